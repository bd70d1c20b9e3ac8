// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One measurement run, from preflight to the written run folder.
#include <atomic>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/result/result.hpp"
#include "engine/run/run_options.hpp"

namespace xrunlab {

struct RunOutcome {
  RunResult result;
  std::string run_dir;
  ExitCode code = ExitCode::kOk;
};

// Runs the measurement. `stop_requested` is set by the signal handler (SIGINT/SIGTERM): the run
// then stops within about a second and still writes what it measured, marked interrupted.
// Throws xrunlab::Error for failures before anything was measured (bad setup, missing
// programs, a server that does not start); after that, failures end up in the outcome.
RunOutcome run_measurement(const RunOptions& options, const std::vector<std::string>& command_line,
                           const std::string& self_exe, const std::atomic<bool>& stop_requested);

}  // namespace xrunlab
