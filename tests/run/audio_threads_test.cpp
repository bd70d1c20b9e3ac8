#include "engine/run/audio_threads.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(FirstMismatch, NamesTheFirstThreadOutOfItsClass) {
  std::vector<AudioThread> t(3);
  t[0].role = "server";
  t[1].role = "xrunlab-c01";
  t[1].sched.tid = 1234;
  t[1].mismatch = "SCHED_OTHER nice 0, expected SCHED_FIFO 65";
  t[2].role = "xrunlab-c02";
  t[2].mismatch = "cannot read: gone";
  EXPECT_EQ(first_mismatch(t),
            "xrunlab-c01 thread 1234 is not in the requested class: SCHED_OTHER nice 0, expected "
            "SCHED_FIFO 65");
  t[1].mismatch.clear();
  t[2].mismatch.clear();
  EXPECT_EQ(first_mismatch(t), "");
}

TEST(AudioThreadPolicy, FifoServerPriorityFromThePolicyClientsFiveBelow) {
  RunOptions o;
  o.policy = *parse_policy("fifo:80", nullptr);
  const AudioThreadPolicy p(o);
  EXPECT_TRUE(p.realtime());
  EXPECT_EQ(p.server_priority(), 80);
  EXPECT_EQ(p.targets().server.rt_priority, 80);
  EXPECT_EQ(p.targets().client.rt_priority, 75);
  EXPECT_EQ(p.label(), describe(*parse_policy("fifo:80", nullptr)));
  EXPECT_EQ(p.cgroup_procs(), "");
  EXPECT_TRUE(p.group_json().is_null());
}

TEST(AudioThreadPolicy, OtherPoliciesTakePriority) {
  RunOptions o;
  o.policy = *parse_policy("other:-20", nullptr);
  o.priority = 60;
  const AudioThreadPolicy p(o);
  EXPECT_EQ(p.server_priority(), 60);
  EXPECT_EQ(p.targets().client.policy, kSchedOther);
  EXPECT_EQ(p.targets().client.nice, -20);
}

TEST(AudioThreadPolicy, IsoEmuPutsTheServerInTheClientsClass) {
  RunOptions o;
  o.policy = *parse_policy("iso-emu", nullptr);
  const AudioThreadPolicy p(o);
  EXPECT_EQ(p.targets().server, p.targets().client);
  EXPECT_NE(p.label().find("EMULATED"), std::string::npos);
}

TEST(AudioThreadPolicy, PriorityZeroMakesNothingRealtime) {
  RunOptions o;
  o.priority = 0;
  const AudioThreadPolicy p(o);
  EXPECT_FALSE(p.realtime());
  EXPECT_EQ(p.targets().server, ThreadTarget{});
  EXPECT_EQ(p.targets().client, ThreadTarget{});
  EXPECT_EQ(p.label(), "SCHED_OTHER nice 0 (--priority 0: jackd without -R, nothing realtime)");
  EXPECT_NO_THROW(p.check_permitted(14));  // nothing to permit
}

}  // namespace
}  // namespace xrunlab
