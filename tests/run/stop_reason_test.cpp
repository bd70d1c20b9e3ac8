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

}  // namespace
}  // namespace xrunlab
