// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/sched_target.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(SchedTarget, EveryFormRoundTrips) {
  std::vector<ThreadTarget> targets(7);
  targets[0].policy = kSchedFifo;
  targets[0].rt_priority = 65;
  targets[1].policy = kSchedRr;
  targets[1].rt_priority = 1;
  targets[2].policy = kSchedOther;
  targets[2].nice = -20;
  targets[3].policy = kSchedBatch;
  targets[3].nice = 19;
  targets[4].policy = kSchedIdle;
  targets[5].policy = kSchedIso;
  targets[6].policy = kSchedDeadline;
  targets[6].dl_runtime_ns = 300000;
  targets[6].dl_deadline_ns = targets[6].dl_period_ns = 1333333;
  targets[6].dl_flags = kSchedFlagReclaim;
  for (const ThreadTarget& t : targets) {
    const auto back = parse_target(format_target(t), nullptr);
    ASSERT_TRUE(back) << format_target(t);
    EXPECT_TRUE(*back == t) << format_target(t);
  }
  EXPECT_EQ(format_target(targets[2]), "OTHER:-20");
  EXPECT_EQ(format_target(targets[6]), "DEADLINE:300000,1333333,1333333,reclaim");
}

TEST(SchedTarget, RejectsMalformedText) {
  std::string why;
  for (const char* bad :
       {"FIFO", "FIFO:0", "FIFO:100", "OTHER:--20", "OTHER:+5", "OTHER:20", "IDLE:3",
        "DEADLINE:1,2", "DEADLINE:5,2,3", "DEADLINE:1,2,3,x", "SOMETHING"}) {
    EXPECT_FALSE(parse_target(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(SchedTarget, DescriptionsShowSignedNice) {
  ThreadTarget t;
  t.policy = kSchedOther;
  t.nice = -20;
  EXPECT_EQ(describe_target(t), "SCHED_OTHER nice -20");
  t.nice = 19;
  EXPECT_EQ(describe_target(t), "SCHED_OTHER nice +19");
  t.nice = 0;
  EXPECT_EQ(describe_target(t), "SCHED_OTHER nice +0");
}

}  // namespace
}  // namespace xrunlab
