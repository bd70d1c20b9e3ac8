// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Across runs: `xrunlab summary` (the SUMMARY file), `xrunlab compare` (side-by-side columns)
// and the data behind compare.png. Pure writers of RunRecord lists; the caller finds the runs
// (find_run_folders, read_run_folder, import_jack_test) and writes files / runs gnuplot.
//
// Grouping: runs are grouped by label (or, with GroupBy, by host, kernel, backend or policy) in
// order of first appearance; a run whose record lacks that value (imports have no host, kernel
// or backend) is in the group "(not recorded)". Imported runs form their own group
// "<label> (imported)" (historical numbers come from other machines and are never averaged
// with new ones), and so do consolidated records ("(consolidated)": their maxima are means).
// Runs of different definitions (RunRecord::definitions) are never in one group either; when
// the runs shown have more than one, every group name ends in " [<definitions>]" and the text
// outputs end with a legend of the ids shown (the JSON outputs always carry them).
// Within a group, runs keep the order given.
//
// Group aggregates (summary table, compare by label, JSON): counts (Timeout, XRUN, Delay Count)
// are totals; maxima (Delay Maximum, Cycle Maximum, p99) are the worst run (marked "(m)" for a
// consolidated group, whose maxima are means); loads and rates per second are means over the
// runs that have them; rates per hour are over the runs' total time; clients/ports/frames are shown
// when all runs agree
// ("mixed" otherwise); "Total seconds ran" is the total; "Number of runs" counts jack_test's
// averaged blocks with their run count. Runs lacking a field are left out of that field.
//
// Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/run_record.hpp"

namespace xrunlab {

// What summary and compare group runs by: label (the default), where they ran (host, kernel,
// backend: RunRecord's), or the scheduling policy; kRun (compare): every run its own column.
// kLabelKernel: label and kernel together ("01-compile @ 6.18.44"), for the same campaign run
// once per kernel.
enum class GroupBy { kRun, kLabel, kHost, kKernel, kBackend, kPolicy, kLabelKernel };
// "run", "label", "host", "kernel", "backend", "policy", "label-kernel" (the --by words), and
// back (nullopt for another word).
const char* group_by_name(GroupBy by);
std::optional<GroupBy> parse_group_by(std::string_view word);

// `xrunlab summary`: SUMMARY text. For every metric (Delay Maximum, XRUN Count, Cycle Maximum,
// Timeout Count, Delay Count (>spare time), Delay Count (>1000 usecs), the consolidated blocks'
// rates, Average DSP Load, the six CPU lines, the two rates, then xrunlab's Delay p99), one
// "# <group>" block per group with one line per run in jack_test's .SUMMARY layout: jack_test's
// summary line with its spaces squeezed ("Delay Maximum . . . . . . . . : 347 usecs"), so
// `grep "Delay Maximum" SUMMARY` works as in 2005 and import_jack_test reads the file back. A
// group's runs lacking a field its other runs have get "n/a" (runs stay in step on import);
// groups with jack_test's averaged or consolidated blocks also get their "Number of runs".
// Imported runs are under "# <label> (imported)". Then a compact table, one row per group:
// runs, mean and worst Delay Maximum, total XRUN Count (and XRUN rate per hour when a
// consolidated block is there), worst Cycle Maximum, mean DSP load, worst p99 delay, and a
// note for imported blocks that stand for several runs.
std::string format_summary_file(const std::vector<RunRecord>& runs, GroupBy by = GroupBy::kLabel);
// One row per run, all fields (header row first; empty cell = missing).
std::string format_summary_csv(const std::vector<RunRecord>& runs);
// {"runs": [to_json...], "by": "label"|..., "labels": [{name, <by>: value, imported, runs,
// delay_max_mean_us, ...}]}: "labels" has one entry per group (per label unless `by` says
// otherwise).
nlohmann::json summary_json(const std::vector<RunRecord>& runs, GroupBy by = GroupBy::kLabel);

// `xrunlab compare`: jack_test's side-by-side columns: one column per run or per group
// (aggregates as above), rows = jack_test's field names in jack_test order (then Delay p99),
// values right-aligned, "-" when missing, the unit last.
std::string format_compare(const std::vector<RunRecord>& runs, GroupBy by);
// "field,<column>,<column>..." then one row per field; a second row "started_utc"/"runs".
std::string format_compare_csv(const std::vector<RunRecord>& runs, GroupBy by);
// {"by": "run"|"label"|..., "columns": [{"title", "subtitle", "imported", "number_of_runs",
// "maxima_are_means", "fields": {key: value}}]}
nlohmann::json compare_json(const std::vector<RunRecord>& runs, GroupBy by);

// Data for compare.png (the caller runs gnuplot): writes dir/compare_runs.csv
// (label,run_index,delay_max_us,delay_p99_us,xrun_count,imported; run_index counts from 1 within
// the group; label is the group name, so imported runs plot apart; groups by `by`, by label for
// kRun) atomically and returns its path. Throws Error(kOutput) when it cannot be written.
std::string write_compare_data(const std::vector<RunRecord>& runs, const std::string& dir,
                               GroupBy by = GroupBy::kLabel);

}  // namespace xrunlab
