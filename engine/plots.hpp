#pragma once
// PNG plots of one run, drawn by gnuplot (pngcairo) from the run's timeseries.csv and
// histogram.csv with scripts/plot_run.gp. gnuplot runs as a child process from an argv vector
// (engine/process.hpp: no shell); every value reaches the script as its own argument through
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
  double period_us = 0;              // > 0: the period is drawn in delay.png and histogram.png
  std::string gnuplot = "gnuplot";   // program name (looked up in PATH) or path
  std::chrono::seconds timeout{60};  // gnuplot is killed after this long
};

struct PlotResult {
  std::vector<std::string> written;  // paths of the PNG files written, run_dir + "/plots/..."
  std::string error;                 // empty on success; else what went wrong, for a warning
};

// Reads run_dir/timeseries.csv and run_dir/histogram.csv (engine/report_csv.hpp) and writes
//   run_dir/plots/delay.png      maximum callback delay per second: each client (a key entry
//                                per client up to 12 clients), all clients, the period
//   run_dir/plots/histogram.png  delay histogram of all clients summed, log-scale counts
//   run_dir/plots/cpu.png        JACK DSP load and CPU user/system per second, xruns on y2
// using script_dir/plot_run.gp. gnuplot draws into a temporary folder under plots/; each PNG is
// then copied into place with write_file_atomic, so a plot is either complete or absent.
// A plot without data says so instead of failing. Files gnuplot drew before an error are
// still written and listed. Never throws.
PlotResult write_plots(const std::string& run_dir, const std::string& script_dir,
                       const PlotOptions& options = {});

// The folder holding plot_run.gp: the first of $XRUNLAB_SCRIPTS, <exe dir>/../share/xrunlab/
// scripts (exe dir from argv0, else /proc/self/exe), and the source tree's scripts/ folder
// (XRUNLAB_SOURCE_SCRIPTS_DIR at compile time) that has it. "" when none has.
std::string find_script_dir(const std::string& argv0);

}  // namespace xrunlab
