// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab check`: the doctor's checks (engine/doctor) and a short sweep
// (engine/campaign/sweep_runner.hpp) of the periods for the given client count and DSP load,
// ending in one verdict a musician can act on (check_verdict): the smallest period that ran
// without dropouts, with its confidence, the next smaller period's rate, the DSP load there
// before the first xrun (a few ramps of engine/campaign/headroom_runner.hpp), and the first
// thing the doctor says to fix. Writes DIR/check.txt and DIR/check.json beside the sweep's files.
// Returns the exit code: the sweep's when it stopped (130 interrupted, 1 a run failed), else 0
// when a period ran clean and 22 (ExitCode::kCheckDropsOut) when none did. Non-realtime.
#include <atomic>
#include <string>
#include <vector>

#include "engine/campaign/campaign_plan.hpp"
#include "engine/campaign/sweep_runner.hpp"

namespace xrunlab {

struct CheckOptions {
  int clients = 14;
  double dsp_load_pct = 30;
  std::string periods = "64,128,256,512,1024";
  double duration_s = 10;
  int repetitions = 2;
  // --headroom-ramps N: DSP ramps (`xrunlab headroom`) at the recommended period, for "you have
  // about X % of the period to spend there" (0: none).
  int headroom_ramps = 3;
  std::string dir;  // "" = results/checks/<check-hash of the settings>
  bool quiet = false;
  std::vector<std::string> run_args;  // after --: `xrunlab run` options for every run
  std::string self_exe;
};

// What the check sweeps: its settings as a sweep's (the periods parsed, --dsp-load added to the
// runs' options, the name from their hash), and the runs' --rate and --priority as `xrunlab run`
// types them (sweep_run_options; run's defaults when it refuses the options, which the sweep
// then reports). Throws Error(kUsage) for a bad --periods or --dsp-load after --.
struct CheckSweep {
  SweepOptions sweep;
  int jackd_priority = 70;  // the runs' --priority: what the doctor's checks measure against
};
CheckSweep check_sweep_options(const CheckOptions& o);

int run_check_command(const CheckOptions& o, const RunArgsCheck& check,
                      const std::atomic<bool>& stop);

}  // namespace xrunlab
