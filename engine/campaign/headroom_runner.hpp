// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab headroom`: runs the ramps of engine/campaign/headroom.hpp as one campaign
// (campaign_runner.hpp) in DIR, one case per cell (client count x period), each repetition a
// `xrunlab run --ramp` process, interleaved in blocked shuffled rounds so that drift spreads over
// every cell. The same command continues an interrupted measurement: the campaign's folder keeps
// the finished ramps. At the end (and after an interruption, with what was measured)
// DIR/headroom.json, DIR/headroom-summary.txt (the table and the answers) and DIR/headroom.png.
// Non-realtime.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_plan.hpp"
#include "engine/campaign/headroom.hpp"
#include "engine/report/plot_format.hpp"

namespace xrunlab {

struct HeadroomOptions {
  HeadroomSpec spec;
  std::string dir;       // "" = results/headroom/<name>
  bool dry_run = false;  // print the plan and its longest time; run nothing
  bool quiet = false;    // only the table and the answers
  std::string self_exe;  // this xrunlab, run as `xrunlab run ...`
  std::optional<PlotFormat> plot_format;
};

struct HeadroomOutcome {
  int exit_code = 0;
  std::vector<HeadroomCell> cells;
  std::string dir;
};

// One ramp's `xrunlab run` arguments: the spec's run_args, then the cell's clients, ports,
// period, the ramp, --no-plots (the headroom's own picture is the point) and --explain if asked.
std::vector<std::string> headroom_run_args(const HeadroomSpec& spec, int clients, uint32_t period);
// The options a headroom run sets itself, which its run arguments must not give.
bool is_headroom_owned_option(const std::string& arg);

// Checks the spec and every cell's arguments first (Error(kUsage) naming the bad one), then runs
// (or, with dry_run, prints the plan).
HeadroomOutcome run_headroom(const HeadroomOptions& o, const RunArgsCheck& check,
                             const std::atomic<bool>& stop);

}  // namespace xrunlab
