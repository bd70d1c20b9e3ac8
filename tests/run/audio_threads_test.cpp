// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/audio_threads.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/wire/thread_sched.hpp"

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

TEST(FirstMismatch, AnAffinityMismatchIsNamedAsNotOnTheRequestedCpus) {
  std::vector<AudioThread> t(1);
  t[0].role = "server";
  t[0].sched.tid = 77;
  t[0].mismatch = "CPU affinity 0-1, expected 0 (--cpus)";
  EXPECT_EQ(first_mismatch(t),
            "server thread 77 is not on the requested CPUs: CPU affinity 0-1, expected 0 (--cpus)");
}

// read() on this test's own thread standing in for a client's process thread: --priority 0
// makes the target SCHED_OTHER nice 0, which this thread runs under, so only --cpus decides.
TEST(AudioThreadPolicy, ReadChecksEveryThreadsAffinityAgainstCpus) {
  if (getpriority(PRIO_PROCESS, 0) != 0) GTEST_SKIP() << "this test runs niced";
  const std::optional<std::vector<int>> mine = read_affinity(0);
  ASSERT_TRUE(mine.has_value());
  const std::vector<ClientThread> self = {{"self", getpid(), static_cast<pid_t>(gettid())}};
  RunOptions o;
  o.priority = 0;
  {
    const std::vector<AudioThread> t = AudioThreadPolicy(o).read(getpid(), self);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].mismatch, "") << "without --cpus the affinity is not checked";
  }
  o.cpus = *mine;
  {
    const std::vector<AudioThread> t = AudioThreadPolicy(o).read(getpid(), self);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].mismatch, "");
    EXPECT_EQ(t[0].sched.cpus, *mine);
  }
  o.cpus = {4000};  // never this thread's set
  {
    const std::vector<AudioThread> t = AudioThreadPolicy(o).read(getpid(), self);
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].mismatch, "CPU affinity " + format_cpu_list(*mine) + ", expected 4000 (--cpus)");
    EXPECT_EQ(first_mismatch(t), "self thread " + std::to_string(gettid()) +
                                     " is not on the requested CPUs: " + t[0].mismatch);
  }
}

// run.json's affinity from what the result holds: every read-back counted, any differing one
// makes verified false, and a requested set with nothing read back leaves it null.
TEST(AffinityJson, CountsTheReadBacksAndVerifiesOnlyWhatWasRead) {
  EXPECT_FALSE(affinity_record({}, {}, {}, {}, std::vector<LoadRecord>{}));
  std::vector<AudioThread> start(3), end(3);
  for (auto* set : {&start, &end}) {
    for (AudioThread& a : *set) a.sched.cpus = {0};
  }
  std::vector<LoadRecord> loads(1);
  loads[0].spec = "cpu:1";
  loads[0].cpus = std::vector<int>{1};
  const std::optional<AffinityRecord> all = affinity_record({0}, {1}, start, end, loads);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->cpus, std::vector<int>{0});
  EXPECT_EQ(all->load_cpus, std::vector<int>{1});
  EXPECT_EQ(all->threads_checked, 6);
  EXPECT_EQ(all->loads_checked, 1);
  EXPECT_EQ(all->verified, true);
  const std::optional<AffinityRecord> no_loads = affinity_record({0}, {}, start, end, loads);
  ASSERT_TRUE(no_loads);
  EXPECT_TRUE(no_loads->load_cpus.empty());
  EXPECT_EQ(no_loads->loads_checked, 0);
  EXPECT_EQ(no_loads->verified, true);
  end[2].sched.cpus = {0, 1};
  EXPECT_EQ(affinity_record({0}, {1}, start, end, loads)->verified, false);
  end[2].sched.cpus = {0};
  std::vector<LoadRecord> unreadable = loads;
  unreadable[0].cpus = std::nullopt;
  EXPECT_EQ(affinity_record({0}, {1}, start, end, unreadable)->verified, false);
  // The run ended before the window: nothing read back, nothing verified.
  const std::optional<AffinityRecord> early =
      affinity_record({0}, {}, {}, {}, std::vector<LoadRecord>{});
  ASSERT_TRUE(early);
  EXPECT_EQ(early->threads_checked, 0);
  EXPECT_FALSE(early->verified);
  EXPECT_FALSE(affinity_record({}, {1}, {}, {}, std::vector<LoadRecord>{})->verified);
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
  EXPECT_FALSE(p.group_record());
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
