// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The run folder: the exporters that turn the result model into its files (bytes), the one
// writer that puts files into a run folder, and the loader that reads a finished folder back
// into the model. Non-realtime.
//
//   run.json         to_json (engine/result/run_json.hpp)
//   timeseries.csv   format_timeseries_csv, histogram.csv format_histogram_csv (report_csv.hpp)
//   summary.txt      format_summary (engine/report/report_summary.hpp)
//   plots/*.png      draw_plots (engine/report/plots.hpp); plots/*.svg with --plot-format svg
#include <optional>
#include <string>
#include <vector>

#include "engine/report/plots.hpp"
#include "engine/report/run_file.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// Pure: the model as run.json, timeseries.csv, histogram.csv, summary.txt (no plots), in that
// order, and seconds.jsonl with every row in memory unless r.seconds_appended (the run's own
// file, appended by the run: engine/report/seconds_file.hpp).
std::vector<RunFile> render_run_files(const RunResult& r);

// What a checkpoint rewrites while the run measures: run.json, histogram.csv, summary.txt. Not
// the per-second rows (appended to seconds.jsonl) nor timeseries.csv, which is made from all of
// them at the end (or by the janitor of a killed run, from seconds.jsonl).
std::vector<RunFile> render_checkpoint_files(const RunResult& r);

// The plots as files ("plots/timeline.png", "plots/latency.png", ...; .svg for `format` svg),
// drawn by gnuplot from the model in a private temporary folder; problems come back as warnings
// ("plots: ..."), never thrown.
struct RenderedPlots {
  std::vector<RunFile> files;
  std::vector<std::string> warnings;
};
RenderedPlots render_plots(const RunResult& r, const std::string& scripts_dir,
                           PlotFormat format = PlotFormat::kPng);

// The plot format a run's options asked for: r.spec's "plot_format" (written from
// RunOptions::plot_format, typed when the command line was parsed); PNG when the spec has none
// (a run of an older version, a model made by hand).
PlotFormat run_plot_format(const RunResult& r);

// The one place that writes a run folder: each file atomically (temp + rename,
// engine/system/atomic_file.hpp), in the order given except run.json, always last: a run.json
// (complete, or marked "incomplete" by a checkpoint) says every file beside it is at least as
// new. Folders are created. Throws Error(kOutput) naming the path (also for a name that is
// absolute or leaves the folder with ".."); OutputError with "the disk is full" for ENOSPC, when
// the files before stay written and run.json stays what it was.
void write_run_files(const std::string& run_dir, const std::vector<RunFile>& files);

// The end of a run: plots first (when asked; in `format`, by default run_plot_format(r)), their
// warnings appended to r.warnings (so the files say so too), then every file written once
// (run.json last). Plots that do not fit on a full disk degrade: the ones written are removed
// again (room for the data files) and a warning "plots: none written: ... the disk is full ..."
// goes into the files. A full disk at a data file throws (OutputError, kOutput).
void write_run_folder(RunResult& r, const std::string& run_dir, bool plots,
                      const std::string& scripts_dir,
                      std::optional<PlotFormat> format = std::nullopt);

// A finished run folder as the model: run.json (run_result_from_json; as finalize() left it,
// not to be finalized again) with each client's histograms from histogram.csv
// (parse_histogram_csv) and, from schema 2 on, the per-second rows from seconds.jsonl
// (parse_seconds_file; a last line cut by a kill is dropped with a warning in r.warnings, and
// the model then renders the file again whole). So render_run_files of it gives the folder's
// run.json, timeseries.csv, histogram.csv and summary.txt again. Throws Error(kUsage) naming the
// file when run.json or histogram.csv is missing or not what xrunlab writes, histogram.csv names
// a client run.json does not have, or seconds.jsonl is missing while run.json counts rows in it
// or holds a line that is not a row.
RunResult load_run_folder(const std::string& dir);

// `xrunlab plot`: the plots of a run folder drawn again, in `format`, from
// load_run_folder(run_dir) with draw_plots and written into it with write_run_files; once all
// are written, the plots of older versions they replace (kReplacedPlotFiles) are removed (those
// of the other format stay). Throws as load_run_folder and write_run_files; a plot that could
// not be drawn is in the returned error.
PlotResult replot_run_folder(const std::string& run_dir, const std::string& scripts_dir,
                             PlotFormat format = PlotFormat::kPng);

}  // namespace xrunlab
