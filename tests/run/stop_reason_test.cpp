// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/stop_reason.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(StopReason, NoneIsNotAStop) {
  EXPECT_FALSE(StopReason{}.stopped());
  EXPECT_TRUE((StopReason{StopKind::kLoadEnded, "load 1 (compile) ended"}.stopped()));
  EXPECT_EQ(exit_code_for(StopKind::kNone, false), ExitCode::kOk);
}

TEST(StopReason, EachKindHasItsExitCode) {
  EXPECT_EQ(exit_code_for(StopKind::kInterrupted, false), ExitCode::kInterrupted);
  EXPECT_EQ(exit_code_for(StopKind::kDiskFull, false), ExitCode::kOutput);
  EXPECT_EQ(exit_code_for(StopKind::kRunaway, false), ExitCode::kClientsFailed);
  EXPECT_EQ(exit_code_for(StopKind::kServerEnded, false), ExitCode::kRunFailed);
  EXPECT_EQ(exit_code_for(StopKind::kClientEnded, false), ExitCode::kRunFailed);
  EXPECT_EQ(exit_code_for(StopKind::kLoadEnded, false), ExitCode::kRunFailed);
}

// The watchdog stops a runaway client; what ends the window first (often that client's exit or
// the server noticing it) is then a consequence, and the run is a client failure.
TEST(StopReason, ATrippedWatchdogMakesAnyFailureAClientFailureButNotASignalOrAFullDisk) {
  EXPECT_EQ(exit_code_for(StopKind::kClientEnded, true), ExitCode::kClientsFailed);
  EXPECT_EQ(exit_code_for(StopKind::kServerEnded, true), ExitCode::kClientsFailed);
  EXPECT_EQ(exit_code_for(StopKind::kLoadEnded, true), ExitCode::kClientsFailed);
  EXPECT_EQ(exit_code_for(StopKind::kInterrupted, true), ExitCode::kInterrupted);
  EXPECT_EQ(exit_code_for(StopKind::kDiskFull, true), ExitCode::kOutput);
  EXPECT_EQ(exit_code_for(StopKind::kNone, true), ExitCode::kOk);
}

TEST(StopReason, TheWindowsVerdictNamesItsStatusDetailAndExitCode) {
  const WindowVerdict done = window_verdict({}, "", false, 10.0);
  EXPECT_EQ(done.status, RunStatus::kCompleted);
  EXPECT_EQ(done.detail, "");
  EXPECT_EQ(done.code, ExitCode::kOk);

  const WindowVerdict signal = window_verdict({StopKind::kInterrupted, ""}, "", false, 3.04);
  EXPECT_EQ(signal.status, RunStatus::kInterrupted);
  EXPECT_EQ(signal.detail, "stopped by a signal after 3.0 s");
  EXPECT_EQ(signal.code, ExitCode::kInterrupted);

  const WindowVerdict server =
      window_verdict({StopKind::kServerEnded, "jackd exited"}, "thread moved", true, 2.0);
  EXPECT_EQ(server.status, RunStatus::kFailed);
  EXPECT_EQ(server.detail, "jackd exited") << "what ended the window comes first";
  EXPECT_EQ(server.code, ExitCode::kClientsFailed) << "the watchdog stopped a client";

  const WindowVerdict end = window_verdict({}, "c01 is SCHED_OTHER", false, 10.0);
  EXPECT_EQ(end.status, RunStatus::kFailed);
  EXPECT_EQ(end.detail, "at the end: c01 is SCHED_OTHER");
  EXPECT_EQ(end.code, ExitCode::kRunFailed);
}

}  // namespace
}  // namespace xrunlab
