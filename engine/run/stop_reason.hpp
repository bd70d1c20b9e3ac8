// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Why a run's measurement window ended before its planned end, and the exit code that follows.
// engine/run/runner_window.cpp asks each part in turn (Runner::stop_reason) and ends the window at
// the first that answers. Pure; non-realtime.
#include <fmt/format.h>

#include <string>

#include "engine/base/errors.hpp"
#include "engine/result/run_status.hpp"

namespace xrunlab {

enum class StopKind {
  kNone,         // the window ran to its planned end
  kInterrupted,  // SIGINT or SIGTERM
  kDiskFull,     // a checkpoint did not fit: the last one is kept
  kServerEnded,  // jackd (or the attached server) went away
  kRunaway,      // an audio thread used its whole CPU time limit and was stopped
  kClientEnded,  // a client process exited or reported a fatal error
  kLoadEnded,    // a background load stopped by itself
  kRampEnded,    // --ramp reached its first xrun: what the run was for (completed, exit 0)
};

struct StopReason {
  StopKind kind = StopKind::kNone;
  std::string detail;  // the sentence run.json's status_detail gives (empty for kNone)

  bool stopped() const { return kind != StopKind::kNone; }
};

// The exit code of a window that ended for `kind` (ExitCode::kOk for kNone). A run whose
// runaway watchdog tripped is a client failure whatever ended the window first, since the
// watchdog stopped that client.
inline ExitCode exit_code_for(StopKind kind, bool runaway_tripped) {
  switch (kind) {
    case StopKind::kNone:
    case StopKind::kRampEnded:
      return ExitCode::kOk;
    case StopKind::kInterrupted:
      return ExitCode::kInterrupted;
    case StopKind::kDiskFull:
      return ExitCode::kOutput;
    case StopKind::kRunaway:
      return ExitCode::kClientsFailed;
    case StopKind::kServerEnded:
    case StopKind::kClientEnded:
    case StopKind::kLoadEnded:
      break;
  }
  return runaway_tripped ? ExitCode::kClientsFailed : ExitCode::kRunFailed;
}

// How a window that has ended went: run.json's status and status_detail, and the exit code.
// `bad_end`: an audio thread found out of its class at the window's end ("" none);
// `seconds_ran`: the window's length.
struct WindowVerdict {
  RunStatus status = RunStatus::kCompleted;  // completed, interrupted or failed
  std::string detail;
  ExitCode code = ExitCode::kOk;
};

inline WindowVerdict window_verdict(const StopReason& reason, const std::string& bad_end,
                                    bool runaway_tripped, double seconds_ran) {
  if (reason.kind == StopKind::kInterrupted) {
    return {RunStatus::kInterrupted, fmt::format("stopped by a signal after {:.1f} s", seconds_ran),
            exit_code_for(reason.kind, runaway_tripped)};
  }
  if (reason.kind == StopKind::kRampEnded && !runaway_tripped && bad_end.empty()) {
    return {RunStatus::kCompleted, reason.detail, ExitCode::kOk};
  }
  if (reason.stopped() && reason.kind != StopKind::kRampEnded) {
    return {RunStatus::kFailed, reason.detail, exit_code_for(reason.kind, runaway_tripped)};
  }
  if (!bad_end.empty()) {
    return {RunStatus::kFailed, "at the end: " + bad_end, ExitCode::kRunFailed};
  }
  return {RunStatus::kCompleted, "", ExitCode::kOk};
}

}  // namespace xrunlab
