// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab export`'s runs: read from their folders, with their ids, labels and verdicts.
// Non-realtime.
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "engine/base/errors.hpp"
#include "engine/export/exports.hpp"
#include "engine/report/run_record.hpp"
#include "engine/result/run_identity.hpp"
#include "engine/result/run_json.hpp"

namespace xrunlab {

namespace fs = std::filesystem;

ExportRun export_run_of(RunResult run, const std::string& folder) {
  ExportRun e;
  e.id = run_identity(run);
  e.label = run.spec ? run.spec->label : "";
  if (e.label.empty() && !folder.empty()) {
    // As summary names such a run: after its label folder (OUTPUT/LABEL/<timestamp>/).
    e.label = fs::path(folder).lexically_normal().parent_path().filename().string();
  }
  e.folder = folder;
  e.run = std::move(run);
  return e;
}

std::vector<ExportRun> read_export_runs(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    if (!fs::exists(p)) {
      throw Error(ExitCode::kUsage, "export: '" + p +
                                        "' does not exist (give run folders, "
                                        "campaign folders or folders holding them)");
    }
  }
  std::vector<ExportRun> runs;
  for (const std::string& dir : find_run_folders(paths)) {
    std::string why;
    std::optional<RunResult> r = read_run_json(dir + "/run.json", &why);
    if (!r) {
      std::cerr << "xrunlab: warning: export: skipped: " << why << "\n";
      continue;
    }
    runs.push_back(export_run_of(std::move(*r), dir));
  }
  if (runs.empty()) {
    std::string list;
    for (const std::string& p : paths) list += (list.empty() ? "" : ", ") + p;
    throw Error(ExitCode::kUsage, "export: no run folders (run.json) under " + list +
                                      "; give run folders, campaign folders or folders holding "
                                      "them");
  }
  std::stable_sort(runs.begin(), runs.end(), [](const ExportRun& a, const ExportRun& b) {
    return a.run.started_utc != b.run.started_utc ? a.run.started_utc < b.run.started_utc
                                                  : a.folder < b.folder;
  });
  return runs;
}

std::vector<FigureResult> export_figures(const RunResult& run,
                                         const std::vector<Threshold>& fail_if) {
  const bool completed = run.status == RunStatus::kCompleted;
  std::vector<FigureResult> out;
  for (const RunMetric& m : run_metrics()) {
    FigureResult f;
    f.metric = &m;
    f.value = run_metric(run, m.name);
    for (const Threshold& t : fail_if) {
      if (t.metric == m.name) f.checks.push_back(check_threshold(t, f.value));
    }
    if (!f.value && f.checks.empty()) continue;
    const bool crossed = std::any_of(f.checks.begin(), f.checks.end(),
                                     [](const ThresholdCheck& c) { return c.crossed; });
    if (!completed) {
      f.verdict = FigureVerdict::kError;
    } else if (f.checks.empty()) {
      f.verdict = FigureVerdict::kDone;
    } else {
      f.verdict = crossed ? FigureVerdict::kFail : FigureVerdict::kPass;
    }
    out.push_back(std::move(f));
  }
  return out;
}

FigureVerdict run_verdict(const RunResult& run, const std::vector<FigureResult>& figures) {
  if (run.status != RunStatus::kCompleted) return FigureVerdict::kError;
  bool checked = false;
  for (const FigureResult& f : figures) {
    if (f.verdict == FigureVerdict::kFail) return FigureVerdict::kFail;
    checked = checked || !f.checks.empty();
  }
  return checked ? FigureVerdict::kPass : FigureVerdict::kDone;
}

}  // namespace xrunlab
