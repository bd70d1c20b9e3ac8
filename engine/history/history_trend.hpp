// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab history`: a history's runs of one setting (host, backend, policy, period, rate,
// clients, ports, loads: history_setting_key) followed across kernels or across time, figure by
// figure, in the campaigns' terms: each kernel's runs as median [quartiles] min..max, and each
// kernel against the one before it (kernels in the order of their first run) by the campaigns'
// rank test and verdict (engine/stats/verdict.hpp), every test's p adjusted for all the tests
// of the report (Benjamini-Hochberg, engine/stats/multiple.hpp).
//
// A REGRESSION is a figure the later kernel's runs are resolved worse on: the verdict resolved
// (p < 0.05, the 95 % interval of the shift excluding 0, q < 0.05) with the earlier kernel the
// better. It needs at least 2 runs on each side and is never flagged from a single run (nor can
// the rank test resolve one from it). Only completed runs (and imported jack_test blocks) count.
// Pure.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/history/history_row.hpp"
#include "engine/stats/describe.hpp"
#include "engine/stats/verdict.hpp"

namespace xrunlab {

// The figures `history` follows when none is named: those a history of any run has most often.
std::vector<std::string> history_default_figures();

struct HistoryFilter {
  std::optional<std::string> label, host, kernel, policy, backend, loads;
  std::optional<int64_t> period, clients;
  bool matches(const HistoryRow& r) const;
};

struct KernelRuns {
  std::string kernel;
  bool relabelled = false;  // any of its runs was added with --kernel-as
  std::string first_utc, last_utc;
  size_t runs = 0;
  std::vector<stats::Description> figures;  // per followed figure, over its runs having it
};

struct KernelStep {   // one kernel against the one before it, on one figure
  size_t figure = 0;  // index into HistoryReport::figures
  size_t from = 0;    // index into SettingHistory::kernels (the earlier kernel)
  stats::Verdict verdict;
  bool regression = false;
  bool improvement = false;
};

struct SettingHistory {
  std::string text;                 // history_setting_text of its runs
  std::vector<HistoryRow> runs;     // oldest first
  std::vector<KernelRuns> kernels;  // by their first run
  std::vector<KernelStep> steps;
};

struct HistoryReport {
  std::vector<std::string> figures;      // metric names, as followed
  std::vector<SettingHistory> settings;  // most runs first
  size_t rows_total = 0;                 // rows in the database
  size_t rows_counted = 0;  // rows that passed the filter and count (completed or imported)
  size_t comparisons = 0;   // tests adjusted together
  size_t regressions = 0;
};

// Throws Error(kUsage) for a figure that is not one of history_figures().
HistoryReport history_report(const std::vector<HistoryRow>& rows, const HistoryFilter& filter,
                             const std::vector<std::string>& figures);

// The report for people: per setting a table of kernels (or, `by_date`, of runs in time) and
// the sentences of every step, regressions first.
std::string history_text(const HistoryReport& r, bool by_date);
nlohmann::json history_json(const HistoryReport& r);

// Data for scripts/history.gp, of one setting: one block per kernel (gnuplot's index, in the
// order of kernels), rows "<UTC seconds> <figure 1> ... <figure N>" ("NaN" where a run lacks a
// figure).
std::string history_plot_data(const HistoryReport& r, const SettingHistory& s);

}  // namespace xrunlab
