// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One run as a history database keeps it (engine/history/history_db.hpp): where and when it
// ran (host, kernel: release, preemption model, command line; xrunlab's and JACK's versions),
// its setting (backend, policy, period, clients, ports, loads) and its headline figures, each
// with the one definition engine/report/run_metrics.hpp gives it (the figure a run lacks is
// absent, never 0). docs/history.md documents the table. Non-realtime.
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

struct RunResult;
struct RunRecord;

// The figures a history keeps, in their column order. `metric` is the run_metrics() name (what
// --fail-if, campaigns and `xrunlab history --figure` call it), `column` the database's column.
struct HistoryFigure {
  const char* column;      // "delay_max_us"
  const char* metric;      // "delay_max"
  const char* label;       // "Delay Maximum": jack_test's name for jack_test's figures
  const char* unit;        // "us", "%", "/min", "" (a count)
  bool lower_is_better;    // all but the slack
  const char* definition;  // one sentence, stored in the database's `figures` table
};
inline constexpr size_t kHistoryFigureCount = 11;
const std::array<HistoryFigure, kHistoryFigureCount>& history_figures();
// The figure called `name` (its metric name or its column), or nullptr.
const HistoryFigure* find_history_figure(const std::string& name);
// Its index in history_figures().
size_t history_figure_index(const HistoryFigure& f);

struct HistoryRow {
  std::string run_id;  // engine/result/run_identity.hpp; the primary key
  std::string source;  // the run folder (or the imported file) it was added from
  std::string added_utc;
  std::string started_utc;  // "" for an imported jack_test summary
  std::string status;       // completed, interrupted, failed, killed, imported
  std::string label;        // the run's --label (its case)
  std::string host;
  std::string kernel;           // the kernel's release (or the name given by --kernel-as)
  std::string kernel_measured;  // the release the run itself recorded ("" for imports)
  bool kernel_relabelled = false;
  std::string kernel_version;  // uname -v
  std::string preempt;         // PREEMPT_RT, PREEMPT_DYNAMIC, PREEMPT or none
  std::string cmdline;         // /proc/cmdline
  std::string xrunlab_version, jack_version;
  std::string backend, policy, loads;
  std::optional<int64_t> period, rate, clients, ports;
  std::optional<double> seconds;  // the measured window
  std::string definitions;        // which definitions its jack_test fields follow
  bool imported = false;          // from an old jack_test summary
  std::array<std::optional<double>, kHistoryFigureCount> figures{};
};

// A run folder's run (its run.json read back), `folder` its path.
HistoryRow history_row_of(const RunResult& run, const std::string& folder);
// A record of `xrunlab import` (an old jack_test summary): jack_test's figures only; its id is
// derived from its source, label and position (`index`), so adding it twice is a no-op too.
HistoryRow history_row_of(const RunRecord& record, size_t index);

// "fifo, vcard, 64 frames, 14 clients x 4 ports, no load, on HOST": the setting a trend follows.
std::string history_setting_key(const HistoryRow& r);
std::string history_setting_text(const HistoryRow& r);

}  // namespace xrunlab
