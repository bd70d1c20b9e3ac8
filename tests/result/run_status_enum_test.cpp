// SPDX-License-Identifier: GPL-2.0-or-later
// Every run status has one name, read back as itself; other text is no status; and which ones
// are final (engine/result/run_status.hpp).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/result/run_status.hpp"

namespace xrunlab {
namespace {

TEST(RunStatus, EachStatusHasOneNameThatReadsBackAsItself) {
  std::set<std::string> names;
  for (const RunStatus s : kRunStatuses) {
    names.insert(run_status_name(s));
    EXPECT_EQ(parse_run_status(run_status_name(s)), s) << run_status_name(s);
  }
  EXPECT_EQ(names, (std::set<std::string>{"running", "incomplete", "completed", "interrupted",
                                          "failed", "killed"}));
}

TEST(RunStatus, OtherTextIsNoStatus) {
  EXPECT_FALSE(parse_run_status(""));
  EXPECT_FALSE(parse_run_status("Completed"));
  EXPECT_FALSE(parse_run_status("imported"));
}

TEST(RunStatus, TheFinalOnesAreThoseTheEngineOrTheJanitorWritesAtTheEnd) {
  EXPECT_FALSE(is_final(RunStatus::kRunning));
  EXPECT_FALSE(is_final(RunStatus::kIncomplete));
  EXPECT_TRUE(is_final(RunStatus::kCompleted));
  EXPECT_TRUE(is_final(RunStatus::kInterrupted));
  EXPECT_TRUE(is_final(RunStatus::kFailed));
  EXPECT_TRUE(is_final(RunStatus::kKilled));
}

}  // namespace
}  // namespace xrunlab
