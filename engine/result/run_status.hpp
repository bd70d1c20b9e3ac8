// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// How a run stands: run.json's "status", and the Status line of summary.txt. Every state a run
// folder can be in:
//   running      in memory only, until the window ends (never written)
//   incomplete   a checkpoint, written while the run measured; still there at the end, it means
//                the engine was killed or the disk was full (docs/outputs.md)
//   completed    the run measured its whole window
//   interrupted  stopped by SIGINT, SIGTERM or SIGHUP; what it measured so far is kept
//   failed       the run could not go on; status_detail says why
//   killed       marked by xrunlab-janitor after the engine died without writing its final
//                results; the last checkpoint's figures are kept (docs/exit-codes.md)
// Pure; non-realtime.
#include <array>
#include <optional>
#include <string_view>

namespace xrunlab {

enum class RunStatus { kRunning, kIncomplete, kCompleted, kInterrupted, kFailed, kKilled };

inline constexpr std::array<RunStatus, 6> kRunStatuses = {
    RunStatus::kRunning,     RunStatus::kIncomplete, RunStatus::kCompleted,
    RunStatus::kInterrupted, RunStatus::kFailed,     RunStatus::kKilled};

// The name run.json and summary.txt use ("completed", ...).
constexpr const char* run_status_name(RunStatus s) {
  switch (s) {
    case RunStatus::kRunning:
      return "running";
    case RunStatus::kIncomplete:
      return "incomplete";
    case RunStatus::kCompleted:
      return "completed";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kKilled:
      return "killed";
  }
  return "?";
}

// The status named `name`; nullopt for any other text.
constexpr std::optional<RunStatus> parse_run_status(std::string_view name) {
  for (const RunStatus s : kRunStatuses) {
    if (name == run_status_name(s)) return s;
  }
  return std::nullopt;
}

// A status the engine (or, for killed, the janitor) writes at the end: the run's result stands.
constexpr bool is_final(RunStatus s) {
  return s == RunStatus::kCompleted || s == RunStatus::kInterrupted || s == RunStatus::kFailed ||
         s == RunStatus::kKilled;
}

}  // namespace xrunlab
