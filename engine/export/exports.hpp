// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab export`: finished runs as the files test farms and monitoring take (docs/exports.md):
//
//   KCIDB        KernelCI's I/O schema v4.4 (kcidb-io, kcidb_io/schema/v04_04.py, the first
//                version whose test has "number"): the kernel each run ran on as a checkout and
//                a build, one test per figure per run and one per run
//   SQUAD        the tests, metrics and metadata files of Linaro SQUAD's submit API
//                (POST /api/submit/GROUP/PROJECT/BUILD/ENVIRONMENT)
//   OpenMetrics  text exposition for Prometheus node-exporter's textfile collector: the latest
//                run of each case, one gauge per figure
//
// The figures are run_metrics()'s (engine/report/run_metrics.hpp), each defined once there; a
// figure a run does not have is left out of every export, never written as 0. A --fail-if
// condition (parse_threshold, check_threshold: the grammar and the verdict of `xrunlab run
// --fail-if`) makes the figure it names PASS or FAIL. A run is known by run_identity().
// Everything here is pure (no files): the command writes the texts. Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/report/run_metrics.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// One run to export, as read from its folder.
struct ExportRun {
  RunResult run;
  std::string folder;  // where its run.json was read ("" for a model made by hand)
  std::string id;      // run_identity(run)
  std::string label;   // spec.label; without one, the run folder's parent's name
};

// Every run folder at or below `paths` (find_run_folders: run folders, campaign folders, result
// roots), read with read_run_json, in started_utc order (then folder). A run.json that cannot be
// read is skipped with a warning on stderr naming it and why. Throws Error(kUsage) naming a
// path that does not exist, and when no run is found at all.
std::vector<ExportRun> read_export_runs(const std::vector<std::string>& paths);

// An ExportRun of a model (tests, hand-made runs): id and label filled in as above.
ExportRun export_run_of(RunResult run, const std::string& folder = "");

struct ExportOptions {
  std::string origin = "xrunlab";  // KCIDB's origin and the prefix of its ids
  std::vector<Threshold> fail_if;  // --fail-if, parsed
};

// --origin NAME as KCIDB takes it: ^[a-z0-9_]+$. Throws Error(kUsage) naming it otherwise.
void check_kcidb_origin(const std::string& origin);

// A figure's verdict in a run: kError when the run did not complete (its figures are of a cut
// window); else, for a figure a --fail-if names, kPass or kFail by check_threshold (a figure
// the run lacks fails, as in `xrunlab run`); else kDone (measured, no verdict asked).
enum class FigureVerdict { kPass, kFail, kDone, kError };
struct FigureResult {
  const RunMetric* metric = nullptr;
  std::optional<double> value;  // absent: the run does not have this figure
  FigureVerdict verdict = FigureVerdict::kDone;
  std::vector<ThresholdCheck> checks;  // the --fail-if conditions on this figure, checked
};
// The figures a run exports, in run_metrics() order: those it has, and those a --fail-if names
// (with no value when the run lacks them).
std::vector<FigureResult> export_figures(const RunResult& run,
                                         const std::vector<Threshold>& fail_if);

// A run's verdict over its figures: kError (not completed), kFail (a threshold crossed), kPass
// (thresholds given, none crossed), kDone (no threshold given).
FigureVerdict run_verdict(const RunResult& run, const std::vector<FigureResult>& figures);

// ---- KCIDB
inline constexpr int kKcidbMajor = 4;
inline constexpr int kKcidbMinor = 4;
// `label` with every character outside [a-zA-Z0-9_-] replaced by '_' (KCIDB's test path
// allows [.a-zA-Z0-9_-]; '.' separates its levels, so a label's own dots are replaced too);
// "unlabelled" for "".
std::string kcidb_path_part(const std::string& label);
// The whole document: version, checkouts, builds, tests.
nlohmann::ordered_json kcidb_json(const std::vector<ExportRun>& runs, const ExportOptions& o);

// ---- SQUAD
// bugprone-exception-escape: clang-tidy 14 flags every struct holding a nlohmann::json (as
// engine/campaign/campaign_store.hpp says).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct SquadFiles {
  nlohmann::ordered_json tests, metrics, metadata;
};
// `label` with '/', '[' and ']' (which SQUAD reads as suite and variant separators) and
// whitespace replaced by '_'; "unlabelled" for "".
std::string squad_name_part(const std::string& label);
SquadFiles squad_files(const std::vector<ExportRun>& runs, const ExportOptions& o);

// ---- OpenMetrics
// The exposition's name of a figure ("delay_max" -> "xrunlab_delay_max_seconds") with the
// factor from the figure's unit to it (1e-6) and the OpenMetrics UNIT ("seconds"; "" for none).
struct OpenMetricsName {
  std::string name;
  double scale = 1;
  std::string unit;
};
OpenMetricsName openmetrics_name(const RunMetric& m);
// A label value escaped as the text format wants it: \ -> \\, " -> \", newline -> \n.
std::string openmetrics_escaped(const std::string& value);
// The exposition, ending in "# EOF\n".
std::string openmetrics_text(const std::vector<ExportRun>& runs);

}  // namespace xrunlab
