// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// RunRecord: one run as seen across runs (`xrunlab summary`, `compare`, `import`). Read from a
// run folder's run.json, or imported from an old jack_test summary so 2004-2005 numbers sit next
// to new ones. Only jack_test's fields (plus p99 delay and the rates of jack_test's consolidated
// blocks), their definitions and where the run ran are kept: this is the unit of comparison, not
// the full result (that stays in run.json).
//
// Import rules (old jack_test text, see tests/fixtures/jack_test/):
//  * fields are read with parse_summary_lines (any spacing, leading spaces, CRLF, '*' lines and
//    other text skipped);
//  * a "# case" header (.SUMMARY) or a `==> file <==` header (head) starts a section named after
//    it (a `==>` name loses its folder and extension); text before any header belongs to a
//    section named after the file (its stem);
//  * sections with the same name are merged (.SUMMARY repeats every case once per metric);
//  * a section named "<name> [<definitions>]" with a known definitions id (a SUMMARY written by
//    `xrunlab summary` over runs of several definitions) gives records of that definitions,
//    labelled <name>; all others are "jack_test";
//  * within a section the i-th value of every metric belongs to run i, so a section with six
//    "Delay Maximum" lines and six "XRUN Count" lines gives six records;
//  * a line with several columns (" XRUN Count  . . . :    12    30     7": a block that
//    summarised several runs, one column each) gives one value per column, so that block
//    gives three records; its settings ("Total seconds ran", clients, ports, frames) and its
//    "Number of runs (3)", printed once, belong to each of its columns, one run each;
//  * every metric of a section must then have a value for every run, or none: a metric with
//    fewer values cannot be given to runs without guessing, and the import is refused naming
//    its line (give each block its own header);
//  * a one-column block that says "Number of runs (3)" was already averaged over 3 runs by
//    jack_test: it becomes ONE record with `runs` = 3 (never three fake runs); summaries mark
//    it. A block without "Number of runs" (jack_test3 did not print it) is one run;
//  * a "CONSOLIDATED RESULTS" title (jack_test3_consolidated.awk, docs/jack_test-fields.md)
//    starts a section "<name> (consolidated)" that lasts until the next header or title. Such a
//    block, or any section with a "... Rate ... /hour" field, is consolidated: its records
//    keep the rates as rates (never as counts), have `maxima_are_means`, `runs` = its "Number
//    of runs" (required: without it the rates and means cannot be told from one run's) and
//    `seconds` = runs x its "Total seconds ran" (the length of each run, the SECS of the
//    awk's 3600 / (N * SECS)). Counts in a consolidated section are refused: a section
//    cannot be one run's counts and several runs' rates at once.
//
// Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/jack_test_labels.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// One run, from a run folder's run.json or imported from an old jack_test summary.
struct RunRecord {
  std::string label;      // test case (spec.label, or the '# case' / file name for imports)
  std::string source;     // run folder or imported file
  bool imported = false;  // from an old jack_test summary: shown as such everywhere
  // Which definitions the jack_test fields follow (JackTestFields::definitions): "jack_test"
  // (imported 2004-2005 summaries: JACK1's own messages, read by jack_test's awk scripts),
  // "callback-delay" (run.json of xrunlab before the jack_test definitions: Delay Maximum,
  // Cycle Maximum and the Delay Counts were the clients' callback delays against the
  // interrupt, NOT comparable with jack_test's) or "jack1-rules" (runs of this version: JACK1's
  // rules applied to jackd's wake-ups). summary and compare never put two in one column unmarked.
  std::string definitions;
  std::string started_utc;    // "" for imports
  std::string status;         // completed / interrupted / failed / imported
  std::string policy, loads;  // scheduling.label and the load specs joined; "" for imports
  // Where the run ran, to group runs by (summary/compare --by): the host's name and kernel
  // release (run.json host.hostname, host.kernel.release) and the backend (jack.backend.name).
  // "" when the source does not say: imports (jack_test's summaries do not state them, and a
  // kernel in a file or case name is not guessed from) and run.json files without them.
  std::string host, kernel, backend;
  int runs = 1;  // > 1: an imported block jack_test had averaged (or consolidated) over this many
  // An imported CONSOLIDATED RESULTS block (jack_test3_consolidated.awk): its Delay and Cycle
  // Maximum are the MEAN of the runs' maxima, not a maximum; its events are rates per hour
  // over the runs (the *_rate_per_hour fields), never counts; `seconds` is the total time of
  // its runs (runs x each run's seconds).
  bool maxima_are_means = false;
  // jack_test's fields, nullopt when the source did not have them (old files lack many)
  std::optional<double> seconds, clients, ports, frames, timeout_count, xrun_count,
      delay_over_spare, delay_over_1000, delay_max_us, cycle_max_us, dsp_load_pct, cpu_system_pct,
      cpu_user_pct, cpu_nice_pct, cpu_iowait_pct, cpu_irq_pct, cpu_softirq_pct, intr_rate,
      ctxt_rate;
  std::optional<double> delay_p99_us;  // xrunlab only
  // CONSOLIDATED RESULTS only: events per hour over `runs` runs ("XRUN Rate", "Delay Rate
  // (>spare time)", "Delay Rate (>1000 usecs)"), jack_test's counts x 3600 / (runs x seconds).
  std::optional<double> xrun_rate_per_hour, delay_over_spare_rate_per_hour,
      delay_over_1000_rate_per_hour;
};

// What a field measures. It decides the unit jack_test printed after the value and the values
// import accepts (see import_jack_test).
enum class FieldKind {
  kSeconds,    // "Total seconds ran": no unit
  kSetting,    // clients, ports, frames: whole numbers, no unit
  kCount,      // events in the run(s): whole numbers, no unit
  kUsecs,      // a time: "usecs"
  kPercent,    // a load: "%"
  kPerSecond,  // a rate of the system: "/sec"
  kPerHour,    // events per hour of a CONSOLIDATED RESULTS block: "/hour"
};

// What a `definitions` id means, in one line (for the legends of summary and compare);
// nullptr for an id this xrunlab does not know.
const char* definitions_meaning(std::string_view id);

// The numeric fields in jack_test's summary order: their names (the JSON/CSV key and the label
// import reads: jack_test's, or "Delay p99" for xrunlab's own), the member and what it measures.
// Shared by import, JSON, CSV and compare.
struct RecordField {
  JackTestField field;  // key "xrun_count", label "XRUN Count"
  std::optional<double> RunRecord::*member;
  FieldKind kind;
};
const std::vector<RecordField>& record_fields();

// The one mapping from the result model to jack_test's fields: label (spec.label; "" when the
// spec has none), started_utc, status, policy (the scheduling label), loads (the load specs
// joined with '+'), host, kernel and backend (see RunRecord), and the numbers; optional numbers of
// the model stay missing (an empty run has no Delay Maximum). source is left to the caller.
// definitions: r.jack_test.definitions, or "callback-delay" when it is empty (a run.json from
// before the jack_test definitions). With "jack1-rules", Delay Maximum, Cycle Maximum, both
// Delay Counts and (when set) the DSP load come from r.jack_test, JACK1's rules; a maximum
// r.jack_test lacks stays missing rather than being taken from the callback delays. Otherwise
// they come from the totals, as xrunlab always computed them.
RunRecord record_of(const RunResult& r);

// Reads dir/run.json (one read; only the top-level parts a record needs are parsed:
// parse_json_members, then run_result_from_json of that partial document) and maps it with
// record_of; a run without a label is named after its label folder (the run folder's parent).
// nullopt with *why set ("DIR/run.json: ...") when it is missing or not an xrunlab run.json
// (no 'spec' or 'totals', not valid JSON, a value of the wrong type: the key is named).
std::optional<RunRecord> read_run_folder(const std::string& dir, std::string* why);

// Every folder at or below the roots (recursive) containing run.json, sorted, no duplicates.
// A run folder's own subfolders are not searched (run folders do not nest). A campaign's folder
// (campaign.json) gives the runs campaign.json records as finished and counted only: not the
// warm-up, not runs set aside as .incomplete-N. Roots that do not exist or cannot be read
// contribute nothing.
std::vector<std::string> find_run_folders(const std::vector<std::string>& roots);

// Old jack_test results: single blocks, multi-run blocks ("Number of runs (3)"), files with
// "==> f <==" headers, and .SUMMARY files (see the rules above). Empty with *why =
// "SOURCE: not a jack_test summary (no known field such as 'XRUN Count')" when no jack_test field
// is found (random text, empty file).
//
// A known field whose value cannot be what jack_test printed is refused, never imported as
// missing or as a guess: empty with *why = "SOURCE:LINE: \"FIELD\" is ..." naming the line and
// what is wrong. A value is a plain decimal number (an exponent is allowed; "inf", "nan" and hex
// are not), optionally followed by the field's unit as jack_test printed it (usecs, %, /sec) and
// optionally in parentheses ("(    0)"); "n/a" and "-" say "missing" and import as missing. The
// bounds (a value outside them is an error in the source, not a measurement):
//  * counts (Timeout, XRUN, Delay Count) and clients, ports, frames: whole numbers >= 0; counts
//    at most 1e9 (a billion events: more than one per cycle of a 16-frame period at 192 kHz for
//    a day), settings at most 1e6;
//  * times (Delay and Cycle Maximum, Delay p99): 0 .. 3.6e9 usecs (one hour: no cycle of a
//    running JACK server is late by more; jack_test's runs lasted minutes);
//  * loads (Average DSP Load, the CPU loads): 0 .. 100 %. JACK's cpu_load is
//    (1 - spare/period) * 50 + previous * 0.5 with spare in 0..period, so it cannot pass 100;
//    the CPU loads are shares of /proc/stat's jiffies;
//  * interrupt and context-switch rates: 0 .. 1e9 /sec;
//  * event rates of a CONSOLIDATED RESULTS block: 0 .. 1e8 /hour (more than one event per cycle
//    of a 16-frame period at 192 kHz);
//  * "Total seconds ran": 0 .. 31,536,000 (one year);
//  * "Number of runs": a whole number 1 .. 1e6.
std::vector<RunRecord> import_jack_test(std::string_view text, const std::string& source,
                                        std::string* why);

// For `xrunlab import` output (a JSON file of records) and --format json. Missing fields are null.
nlohmann::json to_json(const RunRecord& r);
// The reverse; nullopt with *why naming the bad key. A record without "definitions" (written
// before they existed) gets "jack_test" when imported, else "callback-delay", as record_of.
std::optional<RunRecord> run_record_from_json(const nlohmann::json& j, std::string* why);

// The records file of `xrunlab import` (results/imported/*.records.json):
// {"xrunlab_records": VERSION, "source": FILE, "records": [to_json(record)...]}.
// Version 1: before definitions, maxima_are_means and the rates (its records were all
// imported from jack_test; read as such). Version 2: this layout.
inline constexpr int kRecordsVersion = 2;
nlohmann::json records_file_json(const std::vector<RunRecord>& records, const std::string& source);
// The records of such a file (any version up to kRecordsVersion); nullopt with *why when it is
// not one ("not an xrunlab records file (from xrunlab import)"), is newer than this xrunlab
// reads, or has a bad record (run_record_from_json's message).
std::optional<std::vector<RunRecord>> records_from_file_json(const nlohmann::json& j,
                                                             std::string* why);

}  // namespace xrunlab
