// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/history_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "engine/app/commands.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"
#include "engine/history/history_db.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/run_record.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/clock.hpp"
#include "engine/system/file_owner.hpp"

namespace xrunlab {

namespace {

namespace fs = std::filesystem;

bool is_history_file(const std::string& path) {
  return ends_with(path, ".sqlite") || ends_with(path, ".sqlite3") || ends_with(path, ".db");
}

// The rows PATH gives: another history file, a records file of `xrunlab import`, or run
// folders at or below it. Throws Error(kUsage) naming a path that gives none.
std::vector<HistoryRow> rows_of(const std::string& path, const std::string& now) {
  std::vector<HistoryRow> rows;
  std::error_code ec;
  if (fs::is_regular_file(path, ec) && is_history_file(path)) {
    for (HistoryRow& r : HistoryDb::open_existing(path).rows()) rows.push_back(std::move(r));
    return rows;  // merged as they are: their own added_utc, kernel names and sources
  }
  if (fs::is_regular_file(path, ec) && ends_with(path, ".records.json")) {
    const std::vector<RunRecord> records = read_records_file(path);  // import's own reader
    for (size_t i = 0; i < records.size(); ++i) {
      rows.push_back(history_row_of(records[i], i));
      rows.back().added_utc = now;
    }
    return rows;
  }
  const std::vector<std::string> folders = find_run_folders({path});
  for (const std::string& dir : folders) {
    std::string why;
    const std::optional<RunResult> run = read_run_json(dir + "/run.json", &why);
    if (!run) {
      std::fprintf(stderr, "xrunlab: warning: history add: %s: skipped (%s)\n", dir.c_str(),
                   why.c_str());
      continue;
    }
    if (run->ramp) continue;  // a ramp ends in its xrun by design: not the setting's figures
    rows.push_back(history_row_of(*run, dir));
    rows.back().added_utc = now;
  }
  if (folders.empty()) {
    throw Error(ExitCode::kUsage,
                fmt::format("history add: {}: no run folder (run.json), records file "
                            "(*.records.json) or history file (*.sqlite) there",
                            path));
  }
  return rows;
}

int cmd_add(const HistoryOptions& o) {
  const std::string now = utc_now_iso();
  std::vector<HistoryRow> rows;
  for (const std::string& p : o.paths) {
    for (HistoryRow& r : rows_of(p, now)) rows.push_back(std::move(r));
  }
  if (o.kernel_as) {
    for (HistoryRow& r : rows) {
      r.kernel = *o.kernel_as;
      r.kernel_relabelled = true;
    }
  }
  HistoryDb db(o.db);
  const size_t added = db.add(rows);
  std::printf(
      "%s: %zu run(s) added, %zu already there%s\n", o.db.c_str(), added, rows.size() - added,
      o.kernel_as ? fmt::format(" (under kernel '{}', marked relabelled)", *o.kernel_as).c_str()
                  : "");
  return 0;
}

std::string plot_path(const HistoryOptions& o) {
  if (!o.plot.empty()) return o.plot;
  const fs::path folder = fs::path(o.db).parent_path();
  return (folder.empty() ? fs::path("history.png") : folder / "history.png").string();
}

void draw(const HistoryOptions& o, const HistoryReport& rep, const std::string& self_exe) {
  if (rep.settings.empty()) return;
  const SettingHistory& s = rep.settings.front();
  const std::string picture = plot_path(o);
  // The data beside the picture, to draw it again by hand: history-plot.dat for history.png.
  const fs::path pic(picture);
  const std::string data_path = (pic.parent_path() / (pic.stem().string() + "-plot.dat")).string();
  std::string error;
  const std::string script_dir = find_script_dir(self_exe);
  if (script_dir.empty()) {
    error = "the plot scripts (history.gp) were not found";
  } else {
    write_output_file(data_path, history_plot_data(rep, s));
    std::string kernels, labels;
    for (const KernelRuns& k : s.kernels) {
      std::string name = k.kernel;  // '|' separates the script's names
      std::replace(name.begin(), name.end(), '|', '/');
      kernels += (kernels.empty() ? "" : "|") + name;
    }
    for (const std::string& m : rep.figures) {
      const HistoryFigure& f = *find_history_figure(m);
      labels += (labels.empty() ? "" : "|") + std::string(f.label) +
                (f.unit[0] != '\0' ? fmt::format(" ({})", f.unit) : "");
    }
    hand_over_file(picture);
    error = run_gnuplot(
        gnuplot_argv("gnuplot", script_dir + "/history.gp", PlotFormat::kPng,
                     {data_path, picture, "xrunlab history: " + s.text, kernels, labels}),
        std::chrono::seconds(60));
  }
  if (!error.empty()) {
    std::fprintf(stderr, "xrunlab: warning: no %s: %s\n", picture.c_str(), error.c_str());
  } else {
    std::printf("Picture: %s (%s)\n", picture.c_str(), s.text.c_str());
  }
}

int cmd_trend(const HistoryOptions& o, const std::string& self_exe) {
  const HistoryDb db = HistoryDb::open_existing(o.db);
  const std::vector<std::string> figures =
      o.figures.empty() ? history_default_figures() : o.figures;
  const HistoryReport rep = history_report(db.rows(), o.filter, figures);
  if (o.json) {
    std::cout << history_json(rep).dump(2) << "\n";
  } else {
    std::printf("History: %s, %zu run(s), %zu counted\n\n", o.db.c_str(), rep.rows_total,
                rep.rows_counted);
    std::fputs(history_text(rep, o.by_date).c_str(), stdout);
  }
  std::fflush(stdout);
  if (!o.no_plot && !o.json) draw(o, rep, self_exe);
  return o.fail_on_regression && rep.regressions > 0 ? static_cast<int>(ExitCode::kThreshold) : 0;
}

}  // namespace

int run_history_command(const HistoryOptions& o, const std::string& self_exe) {
  return o.add ? cmd_add(o) : cmd_trend(o, self_exe);
}

void add_run_to_history(const RunResult& run, const std::string& run_dir, const std::string& db) {
  if (run.ramp) return;  // a ramp ends in its xrun by design: not the setting's figures
  try {
    HistoryRow row = history_row_of(run, run_dir);
    row.added_utc = utc_now_iso();
    HistoryDb(db).add({row});
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "xrunlab: warning: history: %s; the run folder is kept: add it later with "
                 "`xrunlab history add %s --db %s`\n",
                 e.what(), run_dir.c_str(), db.c_str());
  }
}

}  // namespace xrunlab
