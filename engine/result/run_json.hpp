// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// run.json: the whole RunResult, machine-readable, with schema_version and full context; and
// the one reader that turns it back into a RunResult. Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/result.hpp"

namespace xrunlab {

nlohmann::ordered_json to_json(const MetricSummary& m);
nlohmann::ordered_json to_json(const RunResult& r);  // keys in a readable order
// run.json's "host" (a campaign's campaign.json holds the same object).
nlohmann::ordered_json to_json(const HostRecord& h);

// xrunlab-load's --report file, written and read with the table run.json keeps it by (a load's
// "report"). nullopt with *why when `j` is not such a report.
nlohmann::ordered_json to_json(const LoadReport& l);
std::optional<LoadReport> load_report_from_json(const nlohmann::json& j, std::string* why);

// The RunResult that to_json wrote: to_json(*run_result_from_json(to_json(r))) is to_json(r).
// The result is as finalize() left it (derived totals and client summaries as written): do not
// finalize it again. What run.json does not hold stays empty: the clients' histograms (in
// histogram.csv: load_run_folder in engine/report/run_folder.hpp reads them back), jackd's log
// events (xruns.log_events) and each glitch's telemetry index and JACK time.
//
// A key that is absent or null keeps the model's default, so older run.json files read: before
// --policy they lack scheduling.threads_*/iso_emulation/rt_throttle/policy_spec and the clients'
// rt_tid/sched_error; before --load, "loads" (read as null: not known, rather than "none");
// before the per-second CPU accounting, system_per_second[].cpu_accounted_pct; before --backend,
// jack.backend was the string "dummy" (read as {"name": "dummy"}), and clients[].signal_us,
// unreferenced_cycles, measurement.jackd_cpu_pct, xruns.card_xruns and
// driver_xruns_reach_monitor were not there; before the audible chain, "audio"; before glitches
// named who was late, glitch_list[].late_clients/driver_xrun; before the bounded lists stated
// their bounds, xruns.events_total/events_kept_limit, audio.glitch_list_total/
// glitch_list_kept_limit and clients[].worst_cycles_limit/worst_cycles_per_second_limit (the
// bounds were the same). A partial document (only some top-level parts, as `xrunlab summary`
// reads) reads the same way.
//
// Bounded lists: xruns.events holds the first events_kept_limit xrun events of events_total
// (= monitor_events); audio.glitch_list the first glitch_list_kept_limit glitches of
// glitch_list_total; clients[].worst_cycles the worst_cycles_limit worst cycles by delay among
// the worst_cycles_per_second_limit worst of each second.
//
// From schema 2 on, the per-second rows are in the run folder's seconds.jsonl
// (engine/report/seconds_file.hpp), not in run.json: its "per_second" names the file and counts
// its rows ({"file", "client_rows", "system_rows"}), and there is no clients[].per_second or
// system_per_second. Schema 1 files, which hold their rows there, still read with them.
//
// nullopt with *why (may be null) naming the key at fault when a value has the wrong type
// ("'settings.clients' is not an integer (it is string)"), a per-second row does not match its
// columns, or "schema_version" is missing (not an xrunlab run.json).
std::optional<RunResult> run_result_from_json(const nlohmann::json& j, std::string* why);

// run.json's status and its detail alone, from a document the whole reader may refuse (one cut
// short or edited by hand): the janitor still marks such a run killed. Each is "" where it is
// absent or not a string.
struct RunStatusWords {
  std::string status, detail;
};
RunStatusWords run_status_words(const nlohmann::json& j);
// That document with its status and detail set and the rest as it is, as run.json's text.
std::string with_run_status(nlohmann::json j, RunStatus status, const std::string& detail);

// A run.json file read with run_result_from_json. nullopt with *why (may be null) when it cannot
// be read, is not JSON or is refused; *why then names the file.
std::optional<RunResult> read_run_json(const std::string& path, std::string* why = nullptr);

// The per-second rows' cells, as seconds.jsonl (and schema 1's run.json) holds them: a client's
// second is an array of cells in client_second_columns() order, a system second an object.
inline constexpr const char* kSecondsFileName = "seconds.jsonl";
const std::vector<std::string>& client_second_columns();
nlohmann::ordered_json client_second_row(const ClientSecond& s);
nlohmann::ordered_json system_second_json(const SystemSecond& s);
// Read back; nullopt with *why naming `path` and the cell at fault. A row's cells follow
// `columns` (the file's own header): a column this version does not know is skipped.
std::optional<ClientSecond> client_second_from_row(const nlohmann::json& row,
                                                   const std::vector<std::string>& columns,
                                                   const std::string& path, std::string* why);
std::optional<SystemSecond> system_second_from_json(const nlohmann::json& s,
                                                    const std::string& path, std::string* why);

}  // namespace xrunlab
