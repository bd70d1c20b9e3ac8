// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab sweep`: runs the search of engine/campaign/sweep.hpp, each step a one-case campaign
// (campaign_runner.hpp) in DIR/steps/cNN-pPPPP/ of `xrunlab run` processes, so a step resumes as
// a campaign does: after Ctrl-C, a crash or a reboot the same command walks the same search,
// finds the finished steps' runs in their folders, runs none of them again and continues where
// it stopped. DIR/sweep.json (the settings, every step so far, the answers) is written after
// every step; at the end DIR/sweep-summary.txt, the table and the recommendation, and
// DIR/sweep.png, the heatmap. A folder holding a sweep with other settings is refused.
// Non-realtime.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_plan.hpp"
#include "engine/campaign/sweep.hpp"
#include "engine/report/plot_format.hpp"

namespace xrunlab {

struct SweepOptions {
  SweepSpec spec;
  std::string dir;       // "" = results/sweeps/<name>
  bool dry_run = false;  // print the plan and its longest time; run nothing
  bool quiet = false;    // no live line, no step lines: only the table and recommendation
  std::string self_exe;  // this xrunlab, run as `xrunlab run ...`
  // --plot-format: sweep.svg instead of sweep.png, and every run's plots in it; none: sweep.png,
  // the runs as their arguments say. Not part of the sweep's settings (its name, its folder).
  std::optional<PlotFormat> plot_format;
};

// What a finished (or stopped) sweep found, for `xrunlab check`.
struct SweepOutcome {
  int exit_code = 0;
  SweepGrid grid;
  std::string dir;
};

// Checks every step's arguments first (Error(kUsage) naming the bad one), then runs.
SweepOutcome run_sweep(const SweepOptions& o, const RunArgsCheck& check,
                       const std::atomic<bool>& stop);

// A step's `xrunlab run` arguments: the spec's run_args and the step's clients, period and
// duration.
std::vector<std::string> sweep_step_args(const SweepSpec& spec, int clients, uint32_t period);

// Checks every step's arguments (Error(kUsage) naming the bad one), the run options a sweep
// owns included; what run_sweep does before anything runs.
void check_sweep_args(const SweepSpec& spec, const RunArgsCheck& check);

// The options a sweep sets per run, which its run arguments must not give.
bool is_sweep_owned_option(const std::string& arg);

}  // namespace xrunlab
