#pragma once
// PNG plots of one run, drawn by gnuplot (pngcairo) from the run's timeseries.csv,
// histogram.csv and run.json with scripts/timeline.gp and scripts/histogram.gp (one script per
// plot, so users can restyle them). gnuplot runs as a child process from an argv vector
// (engine/system/process.hpp: no shell); every value reaches the script as its own argument through
// `gnuplot -c`, so paths and titles are never parsed as gnuplot commands.
// Plots are optional output: nothing here throws, failures come back as an error message.
// Non-realtime: used by the engine after a run.
#include <chrono>
#include <string>
#include <vector>

namespace xrunlab {

struct PlotOptions {
  std::string title;                 // first title line of every plot (label and settings);
                                     // "" = the run folder
  double period_us = 0;              // > 0: the period drawn in both plots; 0 = run.json's
                                     // settings.period_us (none when that is missing too)
  std::string gnuplot = "gnuplot";   // program name (looked up in PATH) or path
  std::chrono::seconds timeout{60};  // gnuplot is killed after this long
};

struct PlotResult {
  std::vector<std::string> written;  // paths of the PNG files written, run_dir + "/plots/..."
  std::string error;                 // empty on success; else what went wrong, for a warning
};

// Reads run_dir/timeseries.csv and run_dir/histogram.csv (engine/report/report_csv.hpp), and from
// run_dir/run.json (optional; engine/report/plot_data.hpp) the policy, loads, spare time and xrun
// times, and writes (1280x800 pngcairo, white background, key outside the data area)
//   run_dir/plots/timeline.png   per second: callback delay max and mean of the first, middle
//                                and last client (every client when there are at most 3),
//                                cycle time max, the period; DSP load and CPU user+system on y2;
//                                every xrun of run.json as a red marker at its time
//   run_dir/plots/histogram.png  callback delay histogram (1 usec bins, log count axis) of the
//                                same clients plus all clients summed; period and spare time
//                                marked; log time axis when the worst delay is over 10x the
//                                99th percentile (engine/report/plot_data.hpp delay_axis_needs_log)
// using script_dir/timeline.gp and script_dir/histogram.gp. gnuplot draws into a temporary
// folder under plots/; each PNG is then copied into place with write_file_atomic, so a plot is
// either complete or absent. A plot without data says so instead of failing. Files gnuplot
// drew before an error are still written and listed. Once both are written, delay.png and
// cpu.png of older xrunlab versions (now part of timeline.png) are removed from plots/.
// gnuplot missing: the error names the package (gnuplot-nox). Never throws.
PlotResult write_plots(const std::string& run_dir, const std::string& script_dir,
                       const PlotOptions& options = {});

// The folder holding the plot scripts (found by its timeline.gp): the first of
// $XRUNLAB_SCRIPTS, <exe dir>/../share/xrunlab/scripts (exe dir from argv0, else
// /proc/self/exe), and the source tree's scripts/ folder (XRUNLAB_SOURCE_SCRIPTS_DIR at compile
// time) that has it. "" when none has.
std::string find_script_dir(const std::string& argv0);

}  // namespace xrunlab
