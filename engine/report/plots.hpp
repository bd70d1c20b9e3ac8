// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The plots of one run, PNG (gnuplot's pngcairo) or SVG (its svg terminal: --plot-format,
// engine/report/plot_format.hpp), drawn from the result model with scripts/timeline.gp,
// latency.gp and cycles.gp (one script per plot, so users can restyle them).
// gnuplot runs as a child process from an argv vector (engine/system/process.hpp: no shell);
// every value reaches the script as its own argument through `gnuplot -c`, so titles and paths
// are never parsed as gnuplot commands. Plots are optional output: nothing here throws,
// failures come back as an error message. Non-realtime: used after a run and by `xrunlab plot`.
#include <chrono>
#include <string>
#include <vector>

#include "engine/report/plot_format.hpp"
#include "engine/report/run_file.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// The plots, relative to the run folder, in the order draw_plots makes them, as PNGs (an SVG's
// name ends in .svg instead: plot_files).
inline constexpr const char* kPlotFiles[] = {"plots/timeline.png", "plots/latency.png",
                                             "plots/cycles.png"};
// kPlotFiles in format `f`: "plots/timeline.svg", ...
std::vector<std::string> plot_files(PlotFormat f);
// Plots of older xrunlab versions, stale next to the new ones: delay.png and cpu.png are now
// part of timeline.png, histogram.png (the callback delay histogram) is latency.png.
inline constexpr const char* kReplacedPlotFiles[] = {"plots/delay.png", "plots/cpu.png",
                                                     "plots/histogram.png"};

struct PlotOptions {
  std::string gnuplot = "gnuplot";   // program name (looked up in PATH) or path
  std::chrono::seconds timeout{60};  // gnuplot is killed after this long
  PlotFormat format = PlotFormat::kPng;
};

struct PlotResult {
  std::vector<RunFile> files;  // the plots drawn, named as plot_files(format) names them
  std::string error;           // empty on success; else what went wrong, for a warning
};

// Draws (1280x800, white background, key outside the data area; .png or .svg as
// options.format says)
//   plots/timeline.png  per second: callback delay max and mean of the first, middle and last
//                       client (every client when there are at most 3), cycle time max, the
//                       period; DSP load and CPU user+system on y2. Xruns and audible glitches:
//                       a red (xrun) or blue (glitch) marker per event while there are at most
//                       200 of them and the result lists them all; else their counts per
//                       second in a panel above, on the same time axis (xruns from the
//                       per-second samples, which cover the whole run). The legend gives each
//                       kind's true count in the run, also where a list holds only the first
//                       events (engine/report/plot_data.hpp timeline_xruns, timeline_glitches)
//   plots/latency.png   latency distributions as the OSADL / cyclictest latency plots draw
//                       them: log count against usecs (1 usec bins), one line per series, the
//                       period (the deadline) marked, each legend entry with its count and
//                       maximum. Series: each hop kind of the cycle table (interrupt -> jackd
//                       wake-up, client wake-up, DSP time, cycle, slack; negative slack, the
//                       missed deadlines, only counted), or without it the callback delays
//                       against the interrupt of all clients together and the same clients
//                       as the timeline (plot_data.hpp latency_plot); log time axis when the
//                       worst value is far beyond the period and the body of the values
//                       (latency_axis_needs_log)
//   plots/cycles.png    the worst cycles by slack, then cycles that missed, as a waterfall:
//                       every hop of each cycle in chain order against the deadline, and a
//                       mark where a client did not run (engine/report/cycle_plot.hpp); "no
//                       cycle table" without one
// from r (engine/report/plot_data.hpp plot_inputs: the title, the data files and the scripts'
// arguments) using script_dir/timeline.gp, latency.gp and cycles.gp. gnuplot draws in a
// private temporary folder ($TMPDIR, else /tmp), removed before returning; the plots come back
// as bytes, for write_run_files (engine/report/run_folder.hpp). A plot without data says so
// instead of failing. Plots gnuplot drew before an error are still returned. gnuplot missing:
// the error names the package (gnuplot-nox). Never throws.
PlotResult draw_plots(const RunResult& r, const std::string& script_dir,
                      const PlotOptions& options = {});

// Runs gnuplot (argv[0], looked up in PATH) to completion, or kills it at the deadline. Returns
// an error text naming what went wrong, "" on success (exit status 0). Never throws.
std::string run_gnuplot(const std::vector<std::string>& argv, std::chrono::seconds timeout);

// The folder holding the plot scripts (found by its timeline.gp): the first of
// $XRUNLAB_SCRIPTS, <prefix>/share/xrunlab/scripts for a binary in <prefix>/bin (the binary's
// folder from argv0 and from /proc/self/exe; engine/base/install_layout.hpp), and, for a program
// of this build tree only, the source tree's scripts/ folder (XRUNLAB_SOURCE_SCRIPTS_DIR at
// compile time) that has it. "" when none has. As root, argv0 is not used, a folder another user
// could change is passed over (engine/system/output_folder.hpp), and such an $XRUNLAB_SCRIPTS
// is refused with Error(ExitCode::kUsage).
std::string find_script_dir(const std::string& argv0);

}  // namespace xrunlab
