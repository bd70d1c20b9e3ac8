// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab history`: a machine's runs in one SQLite file (engine/history/history_db.hpp), added
// by every run at its end (unless --no-history) and by `xrunlab history add PATH...` (run
// folders, campaign folders, results roots, imported *.records.json files, or another machine's
// history file to merge); and the trend of a setting across kernels or time, with the
// regressions the campaigns' statistics resolve (engine/history/history_trend.hpp), as text or
// JSON, and history.png. Non-realtime.
#include <optional>
#include <string>
#include <vector>

#include "engine/history/history_trend.hpp"

namespace xrunlab {

struct RunResult;

inline constexpr const char* kDefaultHistory = "results/history.sqlite";

struct HistoryOptions {
  std::string db = kDefaultHistory;  // --db
  bool add = false;                  // `history add PATH...`
  std::vector<std::string> paths;
  std::optional<std::string> kernel_as;  // add: --kernel-as NAME (for tests and demonstrations)
  HistoryFilter filter;
  std::vector<std::string> figures;  // --figure; empty: history_default_figures()
  bool by_date = false;              // --by date
  bool json = false;                 // --format json
  std::string plot;                  // --plot FILE; "" = history.png beside the database
  bool no_plot = false;
  bool fail_on_regression = false;  // exit 10 when a regression is flagged
};

int run_history_command(const HistoryOptions& o, const std::string& self_exe);

// At the end of `xrunlab run`: adds the run folder's run to `db`. Never throws: a database it
// cannot use is one warning line on stderr naming the file and the command that adds the run
// later; the run folder is never touched.
void add_run_to_history(const RunResult& run, const std::string& run_dir, const std::string& db);

}  // namespace xrunlab
