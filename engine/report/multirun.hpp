#pragma once
// Across runs: `xrunlab summary` (the SUMMARY file), `xrunlab compare` (side-by-side columns)
// and the data behind compare.png. Pure writers of RunRecord lists; the caller finds the runs
// (find_run_folders, read_run_folder, import_jack_test) and writes files / runs gnuplot.
//
// Grouping: runs are grouped by label in order of first appearance; imported runs form their own
// group "<label> (imported)" (historical numbers come from other machines and are never averaged
// with new ones). Within a group, runs keep the order given.
//
// Label aggregates (summary table, compare by label, JSON): counts (Timeout, XRUN, Delay Count)
// are totals; maxima (Delay Maximum, Cycle Maximum, p99) are the worst run; loads and rates are
// means over the runs that have them; clients/ports/frames are shown when all runs agree
// ("mixed" otherwise); "Total seconds ran" is the total; "Number of runs" counts jack_test's
// averaged blocks with their run count. Runs lacking a field are left out of that field.
//
// Non-realtime.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/report/run_record.hpp"

namespace xrunlab {

// `xrunlab summary`: SUMMARY text. For every metric (Delay Maximum, XRUN Count, Cycle Maximum,
// Timeout Count, Delay Count (>spare time), Delay Count (>1000 usecs), Average DSP Load, the six
// CPU lines, the two rates, then xrunlab's Delay p99), one "# <label>" block per group with one
// line per run in jack_test's .SUMMARY layout: jack_test's summary line with its spaces squeezed
// ("Delay Maximum . . . . . . . . : 347 usecs"), so `grep "Delay Maximum" SUMMARY` works as in
// 2005 and import_jack_test reads the file back. Runs lacking the field are skipped; imported
// runs are under "# <label> (imported)". Then a compact table, one row per group: runs, mean and
// worst Delay Maximum, total XRUN Count, worst Cycle Maximum, mean DSP load, worst p99 delay,
// and a note for imported blocks that jack_test had averaged over several runs.
std::string format_summary_file(const std::vector<RunRecord>& runs);
// One row per run, all fields (header row first; empty cell = missing).
std::string format_summary_csv(const std::vector<RunRecord>& runs);
// {"runs": [to_json...], "labels": [{label, imported, runs, delay_max_mean_us, ...}]}
nlohmann::json summary_json(const std::vector<RunRecord>& runs);

// `xrunlab compare`: jack_test's side-by-side columns: one column per run or per group (label
// aggregates as above), rows = jack_test's field names in jack_test order (then Delay p99),
// values right-aligned, "-" when missing, the unit last.
enum class CompareBy { kRun, kLabel };
std::string format_compare(const std::vector<RunRecord>& runs, CompareBy by);
// "field,<column>,<column>..." then one row per field; a second row "started_utc"/"runs".
std::string format_compare_csv(const std::vector<RunRecord>& runs, CompareBy by);
// {"by": "run"|"label", "columns": [{"title", "subtitle", "imported", "fields": {key: value}}]}
nlohmann::json compare_json(const std::vector<RunRecord>& runs, CompareBy by);

// Data for compare.png (the caller runs gnuplot): writes dir/compare_runs.csv
// (label,run_index,delay_max_us,delay_p99_us,xrun_count,imported; run_index counts from 1 within
// the group; label is the group name, so imported runs plot apart) atomically and returns its
// path. Throws Error(kOutput) when it cannot be written.
std::string write_compare_data(const std::vector<RunRecord>& runs, const std::string& dir);

}  // namespace xrunlab
