// SPDX-License-Identifier: GPL-2.0-or-later
// Linaro SQUAD's submit files (doc/intro.rst of Linaro/squad, "Input file formats"): tests
// {"suite/test": "pass"|"fail"|"skip"}, metrics {"suite/metric": number or [numbers]} (SQUAD
// takes a list's mean as the result and keeps the set), metadata {"key": "string"}.
// Non-realtime.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/base/text.hpp"
#include "engine/export/exports.hpp"

namespace xrunlab {

namespace {

using nlohmann::ordered_json;

std::string joined(const std::set<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

}  // namespace

std::string squad_name_part(const std::string& label) {
  if (label.empty()) return "unlabelled";
  std::string s;
  for (const char c : label) {
    const bool bad =
        c == '/' || c == '[' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
    s += bad ? '_' : c;
  }
  return s;
}

SquadFiles squad_files(const std::vector<ExportRun>& runs, const ExportOptions& o) {
  SquadFiles f;
  f.tests = ordered_json::object();
  f.metrics = ordered_json::object();
  f.metadata = ordered_json::object();
  // The runs of each case (label), in the order they came (started_utc).
  std::vector<std::string> order;
  std::map<std::string, std::vector<const ExportRun*>> by_case;
  for (const ExportRun& e : runs) {
    const std::string c = squad_name_part(e.label);
    if (by_case.find(c) == by_case.end()) order.push_back(c);
    by_case[c].push_back(&e);
  }
  ordered_json suite_versions = ordered_json::object();
  for (const std::string& c : order) {
    const std::string suite = "xrunlab/" + c;
    const std::vector<const ExportRun*>& case_runs = by_case[c];
    // Did every run of the case measure its whole window?
    bool all_completed = true;
    std::string version;
    for (const ExportRun* e : case_runs) {
      all_completed = all_completed && e->run.status == RunStatus::kCompleted;
      if (!e->run.xrunlab_version.empty()) version = e->run.xrunlab_version;
    }
    f.tests[suite + "/completed"] = all_completed ? "pass" : "fail";
    if (!version.empty()) suite_versions[suite] = version;
    // The figures of the completed runs; a --fail-if verdict over them (fail when any crossed).
    for (const RunMetric& m : run_metrics()) {
      std::vector<double> values;
      bool checked = false, crossed = false;
      for (const ExportRun* e : case_runs) {
        if (e->run.status != RunStatus::kCompleted) continue;
        for (const FigureResult& fr : export_figures(e->run, o.fail_if)) {
          if (fr.metric != &m) continue;
          if (fr.value && std::isfinite(*fr.value)) values.push_back(*fr.value);
          checked = checked || !fr.checks.empty();
          crossed = crossed || fr.verdict == FigureVerdict::kFail;
        }
      }
      if (values.size() == 1) f.metrics[suite + "/" + m.name] = values.front();
      if (values.size() > 1) f.metrics[suite + "/" + m.name] = values;
      const bool named = std::any_of(o.fail_if.begin(), o.fail_if.end(),
                                     [&](const Threshold& t) { return t.metric == m.name; });
      if (named) f.tests[suite + "/" + m.name] = !checked ? "skip" : (crossed ? "fail" : "pass");
    }
  }
  // Metadata: strings only (SQUAD's rule), but suite_versions, which it reads as an object.
  std::set<std::string> ids, hosts, kernels, statuses;
  for (const ExportRun& e : runs) {
    ids.insert(e.id);
    if (e.run.host && !e.run.host->hostname.empty()) hosts.insert(e.run.host->hostname);
    if (e.run.host && !e.run.host->kernel.release.empty()) {
      kernels.insert(e.run.host->kernel.release);
    }
    statuses.insert(run_status_name(e.run.status));
  }
  // job_id must be unique in the project: the run's own id, or for several runs one derived
  // from all of theirs (the same runs give the same id, so a second submission is seen as such).
  std::string all_ids;
  for (const std::string& id : ids) all_ids += id + "\n";
  f.metadata["job_id"] =
      runs.size() == 1 ? runs.front().id : fmt::format("xrunlab-{:016x}", fnv1a_64(all_ids));
  if (!runs.front().run.started_utc.empty()) f.metadata["datetime"] = runs.front().run.started_utc;
  f.metadata["job_status"] = joined(statuses);
  f.metadata["runs"] = std::to_string(runs.size());
  f.metadata["run_ids"] = joined(ids);
  if (!hosts.empty()) f.metadata["host"] = joined(hosts);
  if (!kernels.empty()) f.metadata["kernel_release"] = joined(kernels);
  if (!runs.front().run.xrunlab_version.empty()) {
    f.metadata["xrunlab_version"] = runs.front().run.xrunlab_version;
  }
  if (!o.fail_if.empty()) {
    std::string conds;
    for (const Threshold& t : o.fail_if) conds += (conds.empty() ? "" : ", ") + t.text;
    f.metadata["fail_if"] = conds;
  }
  if (!suite_versions.empty()) f.metadata["suite_versions"] = suite_versions;
  return f;
}

}  // namespace xrunlab
