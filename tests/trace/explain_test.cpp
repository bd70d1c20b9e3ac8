// SPDX-License-Identifier: GPL-2.0-or-later
// explain_hop and select_late_hops on event lists and cycle rows made by hand.
#include "engine/trace/explain.hpp"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <set>

namespace xrunlab {
namespace {

constexpr int64_t kUs = 1000;

TraceEvent sw(int64_t t_us, int cpu, pid_t prev, const char* prev_comm, int prev_prio, pid_t next,
              const char* next_comm, int next_prio) {
  TraceEvent e;
  e.kind = TraceKind::kSwitch;
  e.t_ns = t_us * kUs;
  e.cpu = cpu;
  e.pid = prev;
  set_comm(e.comm, prev_comm);
  e.prio = prev_prio;
  e.next_pid = next;
  set_comm(e.next_comm, next_comm);
  e.next_prio = next_prio;
  return e;
}

TraceEvent ev(TraceKind k, int64_t t_us, int cpu, int num, const char* name = "") {
  TraceEvent e;
  e.kind = k;
  e.t_ns = t_us * kUs;
  e.cpu = cpu;
  e.num = num;
  set_comm(e.comm, name);
  return e;
}

TraceEvent waking(int64_t t_us, int cpu, pid_t pid) {
  TraceEvent e;
  e.kind = TraceKind::kWaking;
  e.t_ns = t_us * kUs;
  e.cpu = cpu;
  e.pid = pid;
  return e;
}

HopWindow hop(pid_t tid, int64_t a_us, int64_t b_us) {
  HopWindow h;
  h.cycle = 7;
  h.hop_key = "wakeup.c02";
  h.hop_text = "c02's wake-up";
  h.thread = "c02";
  h.tid = tid;
  h.start_ns = a_us * kUs;
  h.end_ns = b_us * kUs;
  h.rel_start_ns = 0;
  h.rel_end_ns = (b_us - a_us) * kUs;
  h.late_ns = 300 * kUs;
  return h;
}

const TraceCoverage kAll{0, 1000000 * kUs};
const PolicyLookup kFifo = [](pid_t) { return std::optional<int>(SCHED_FIFO); };
const PolicyLookup kGone = [](pid_t) { return std::optional<int>(); };

TEST(Explain, RealtimeCompetitorThatRanBeforeTheThreadIsTheBlockerWithItsPidPolicyAndTime) {
  // CPU 1: an editor ran, the busy loop (FIFO 90 = prio 9) took over at 1100 us and held the
  // CPU until 1450 us; c02 (tid 500) was woken at 1050 us and ran at 1450 us. CPU 0 is busy with
  // other things that must not count.
  const std::vector<TraceEvent> events = {
      sw(900, 1, 0, "swapper/1", 120, 300, "editor", 120),
      sw(1000, 0, 0, "swapper/0", 120, 301, "other", 120),
      waking(1050, 0, 500),
      sw(1100, 1, 300, "editor", 120, 4242, "busyloop", 9),
      ev(TraceKind::kIrqEntry, 1200, 1, 11, "virtio0"),
      ev(TraceKind::kIrqExit, 1212, 1, 11),
      sw(1450, 1, 4242, "busyloop", 9, 500, "c02", 34),
      sw(1460, 0, 301, "other", 120, 0, "swapper/0", 120),
  };
  const HopExplanation x = explain_hop(events, hop(500, 1000, 1500), kAll, kFifo, {0.0, 1.5});
  ASSERT_TRUE(x.traced);
  EXPECT_EQ(x.cpu, 1);
  ASSERT_EQ(x.blockers.size(), 2u);
  EXPECT_EQ(x.blockers[0].pid, 4242);
  EXPECT_EQ(x.blockers[0].comm, "busyloop");
  EXPECT_EQ(x.blockers[0].policy, "SCHED_FIFO 90");
  EXPECT_EQ(x.blockers[0].ns, (350 - 12) * kUs);  // the irq's 12 us are the irq's
  EXPECT_EQ(x.blockers[1].pid, 300);
  EXPECT_EQ(x.blockers[1].ns, 50 * kUs);  // from the wake-up at 1050 us: before, c02 slept
  EXPECT_EQ(x.asleep_ns, 50 * kUs);
  ASSERT_EQ(x.irqs.size(), 1u);
  EXPECT_EQ(x.irqs[0].num, 11);
  EXPECT_EQ(x.irqs[0].name, "virtio0");
  EXPECT_EQ(x.irqs[0].count, 1u);
  EXPECT_EQ(x.irqs[0].ns, 12 * kUs);
  EXPECT_EQ(x.self_ns, 50 * kUs);  // 1450..1500
  EXPECT_EQ(x.idle_ns, 0);
  EXPECT_EQ(x.unknown_ns, 0);
  ASSERT_TRUE(x.woken_ns);
  EXPECT_EQ(*x.woken_ns, 50 * kUs);
  ASSERT_TRUE(x.cpu_steal_pct);
  EXPECT_DOUBLE_EQ(*x.cpu_steal_pct, 1.5);
  // Every microsecond of the window is given to exactly one thing.
  int64_t sum = x.asleep_ns + x.self_ns + x.idle_ns + x.unknown_ns;
  for (const auto& b : x.blockers) sum += b.ns;
  for (const auto& i : x.irqs) sum += i.ns;
  EXPECT_EQ(sum, 500 * kUs);
  EXPECT_NE(x.line.find("busyloop pid 4242 SCHED_FIFO 90 ran 338 us"), std::string::npos) << x.line;
  EXPECT_NE(x.line.find("irq 11 virtio0 12 us"), std::string::npos) << x.line;
}

TEST(Explain, IdleCpuIsNothingCompetedWithItsStealAndAGonePidIsOnlyRealtime) {
  const std::vector<TraceEvent> events = {
      sw(900, 0, 77, "gone", 19, 0, "swapper/0", 120),
      ev(TraceKind::kSoftirqEntry, 1100, 0, 1, "TIMER"),
      ev(TraceKind::kSoftirqExit, 1105, 0, 1),
      sw(1190, 0, 0, "swapper/0", 120, 77, "gone", 19),
      sw(1200, 0, 77, "gone", 19, 500, "c02", 34),
  };
  const HopExplanation x = explain_hop(events, hop(500, 1000, 1300), kAll, kGone, {3.25});
  EXPECT_EQ(x.cpu, 0);
  EXPECT_EQ(x.idle_ns, 185 * kUs);
  ASSERT_EQ(x.softirqs.size(), 1u);
  EXPECT_EQ(x.softirqs[0].name, "TIMER");
  EXPECT_EQ(x.softirqs[0].ns, 5 * kUs);
  ASSERT_EQ(x.blockers.size(), 1u);
  EXPECT_EQ(x.blockers[0].policy, "realtime 80");  // FIFO or RR: unknown once the pid is gone
  EXPECT_EQ(x.blockers[0].ns, 10 * kUs);
  EXPECT_EQ(x.self_ns, 100 * kUs);
  EXPECT_NE(x.line.find("nothing runnable competed"), std::string::npos) << x.line;
  EXPECT_NE(x.line.find("CPU 0 steal 3.25% over the run"), std::string::npos) << x.line;
}

TEST(Explain, WindowOutsideTheTraceIsSaidToHaveNoTraceNotGuessed) {
  const std::vector<TraceEvent> events = {sw(1200, 0, 0, "swapper/0", 120, 500, "c02", 34)};
  const HopExplanation before =
      explain_hop(events, hop(500, 1000, 1300), TraceCoverage{1100 * kUs, 5000 * kUs}, kFifo, {});
  EXPECT_FALSE(before.traced);
  EXPECT_TRUE(before.blockers.empty());
  EXPECT_NE(before.line.find("no trace"), std::string::npos);
  const HopExplanation after =
      explain_hop(events, hop(500, 1000, 1300), TraceCoverage{0, 1250 * kUs}, kFifo, {});
  EXPECT_FALSE(after.traced);
  EXPECT_NE(after.no_trace.find("after"), std::string::npos);
}

TEST(Explain, NoSwitchInOfTheThreadMeansNoCpuAndNoBlockers) {
  const std::vector<TraceEvent> events = {sw(1200, 0, 0, "swapper/0", 120, 9, "x", 120)};
  const HopExplanation x = explain_hop(events, hop(500, 1000, 1300), kAll, kFifo, {});
  EXPECT_EQ(x.cpu, -1);
  EXPECT_TRUE(x.blockers.empty());
  EXPECT_NE(x.line.find("no switch of c02 (tid 500)"), std::string::npos) << x.line;
}

TEST(Explain, WithoutASwitchBeforeTheWindowTheFirstSwitchInItSaysWhoRanFromItsStart) {
  const std::vector<TraceEvent> events = {
      sw(1250, 1, 4242, "busyloop", 9, 500, "c02", 34),
  };
  const HopExplanation x = explain_hop(events, hop(500, 1000, 1300), kAll, kFifo, {});
  ASSERT_EQ(x.blockers.size(), 1u);
  EXPECT_EQ(x.blockers[0].pid, 4242);
  EXPECT_EQ(x.blockers[0].ns, 250 * kUs);
  EXPECT_EQ(x.unknown_ns, 0);
}

TEST(Explain, ALowerPriorityTaskRunningWhileTheThreadWasRunnableIsMarkedNotAPreemption) {
  // c02 (prio 34 = FIFO 65) is woken at 1000 us while cc1plus (SCHED_OTHER) runs on CPU 0, and
  // is switched in only at 1300 us: the CPU did not act on the wake-up.
  const std::vector<TraceEvent> events = {
      sw(900, 0, 0, "swapper/0", 120, 300, "cc1plus", 120),
      waking(1000, 1, 500),
      sw(1300, 0, 300, "cc1plus", 120, 500, "c02", 34),
  };
  const HopExplanation x = explain_hop(events, hop(500, 1000, 1350), kAll, kFifo, {});
  ASSERT_EQ(x.blockers.size(), 1u);
  EXPECT_TRUE(x.blockers[0].lower_priority);
  EXPECT_EQ(x.blockers[0].ns, 300 * kUs);
  EXPECT_NE(
      x.line.find(
          "cc1plus pid 300 nice 0 ran 300 us [below c02: the CPU did not act on the wake-up]"),
      std::string::npos)
      << x.line;
  // The busy loop of the first test is above c02: a real preemption.
  const std::vector<TraceEvent> fifo = {
      sw(900, 0, 0, "swapper/0", 120, 4242, "busyloop", 9),
      waking(1000, 1, 500),
      sw(1300, 0, 4242, "busyloop", 9, 500, "c02", 34),
  };
  EXPECT_FALSE(explain_hop(fifo, hop(500, 1000, 1350), kAll, kFifo, {}).blockers[0].lower_priority);
}

TEST(Explain, ALongSilenceOfTheCpuIsSaid) {
  // cc1plus "runs" on CPU 1 for 20 ms while c02 is runnable, and CPU 1 records nothing at all.
  const std::vector<TraceEvent> events = {
      sw(900, 1, 0, "swapper/1", 120, 300, "cc1plus", 120),
      waking(1000, 0, 500),
      sw(21000, 1, 300, "cc1plus", 120, 500, "c02", 34),
  };
  const HopExplanation x = explain_hop(events, hop(500, 1000, 21050), kAll, kFifo, {});
  EXPECT_EQ(x.silent_ns, 20000 * kUs);
  EXPECT_EQ(x.silent_cpu, 1);
  EXPECT_NE(x.line.find("CPU 1 recorded no event for 20000 us of it"), std::string::npos) << x.line;
  const HopExplanation short_one = explain_hop(events, hop(500, 20000, 21050), kAll, kFifo, {});
  EXPECT_EQ(short_one.line.find("recorded no event"), std::string::npos) << short_one.line;
}

TEST(Explain, PolicyTextFollowsTheKernelsPrio) {
  EXPECT_EQ(policy_text(9, SCHED_FIFO), "SCHED_FIFO 90");
  EXPECT_EQ(policy_text(9, SCHED_RR), "SCHED_RR 90");
  EXPECT_EQ(policy_text(9, std::nullopt), "realtime 90");
  EXPECT_EQ(policy_text(120, SCHED_OTHER), "SCHED_OTHER nice 0");
  EXPECT_EQ(policy_text(139, SCHED_BATCH), "SCHED_BATCH nice 19");
  EXPECT_EQ(policy_text(100, std::nullopt), "nice -20");
  EXPECT_EQ(policy_text(-1, std::nullopt), "SCHED_DEADLINE");
}

TEST(Explain, APreemptedThreadThatMigratesIsHeldByWhatPreemptedItNotByTheCpuItMovedTo) {
  // c02 (tid 500) runs its DSP on CPU 0 from 1000 us, is preempted there at 1300 us by a FIFO 99
  // task (prio 0) and runs again on CPU 1 at 1360 us, where an editor had run.
  std::vector<TraceEvent> events = {
      sw(990, 0, 0, "swapper/0", 120, 500, "c02", 34),
      sw(900, 1, 0, "swapper/1", 120, 300, "editor", 120),
      sw(1300, 0, 500, "c02", 34, 600, "cyclictest", 0),
      sw(1360, 1, 300, "editor", 120, 500, "c02", 34),
  };
  events[2].prev_state = 'R';
  std::stable_sort(events.begin(), events.end(),
                   [](const TraceEvent& l, const TraceEvent& r) { return l.t_ns < r.t_ns; });
  const HopExplanation x = explain_hop(events, hop(500, 1000, 1500), kAll, kFifo, {});
  EXPECT_EQ(x.cpu, 1);
  EXPECT_EQ(x.cpus, (std::set<int>{0, 1}));
  EXPECT_EQ(x.self_ns, (300 + 140) * kUs);
  ASSERT_EQ(x.blockers.size(), 1u);
  EXPECT_EQ(x.blockers[0].pid, 600);
  EXPECT_EQ(x.blockers[0].ns, 60 * kUs);
  EXPECT_NE(x.line.find("on CPUs 0,1"), std::string::npos) << x.line;
}

TEST(Explain, AWokenThreadIsHeldByWhatRanOnTheCpuItRanOnNext) {
  // c02 sleeps (prev_state S) on CPU 0, is woken at 1050 us and runs on CPU 1 at 1400 us after
  // the busy loop there.
  std::vector<TraceEvent> events = {
      sw(950, 0, 500, "c02", 34, 0, "swapper/0", 120),
      sw(960, 1, 0, "swapper/1", 120, 4242, "busyloop", 9),
      waking(1050, 0, 500),
      sw(1400, 1, 4242, "busyloop", 9, 500, "c02", 34),
  };
  events[0].prev_state = 'S';
  const HopExplanation x = explain_hop(events, hop(500, 1000, 1450), kAll, kFifo, {});
  ASSERT_EQ(x.blockers.size(), 1u);
  EXPECT_EQ(x.blockers[0].pid, 4242);
  EXPECT_EQ(x.blockers[0].ns, 350 * kUs);  // from its wake-up at 1050 us
  EXPECT_EQ(x.asleep_ns, 50 * kUs);
  EXPECT_EQ(x.idle_ns, 0);
  EXPECT_EQ(x.self_ns, 50 * kUs);
}

TEST(Explain, AThreadWokenLateWasHeldByNoOneWhateverRanBeforeItsWakeUp) {
  // jackd's timer fires late: a compiler runs on CPU 0 until 1400 us, jackd is woken at 1400 us
  // and runs at 1410 us. The compiler did not hold jackd (it was not runnable).
  HopWindow h = hop(500, 1000, 1500);
  h.hop_text = "jackd's wake-up";
  h.thread = "jackd";
  std::vector<TraceEvent> events = {
      sw(900, 0, 0, "swapper/0", 120, 300, "cc1plus", 120),
      waking(1400, 0, 500),
      sw(1410, 0, 300, "cc1plus", 120, 500, "jackd", 29),
      sw(1420, 0, 500, "jackd", 29, 0, "swapper/0", 120),
      sw(1480, 0, 0, "swapper/0", 120, 500, "jackd", 29),
  };
  events[1].prev_state = 'R';
  events[3].prev_state = 'S';
  const HopExplanation x = explain_hop(events, h, kAll, kFifo, {});
  EXPECT_EQ(x.asleep_ns, 400 * kUs);
  ASSERT_EQ(x.blockers.size(), 1u);
  EXPECT_EQ(x.blockers[0].ns, 10 * kUs);
  EXPECT_TRUE(x.blockers[0].lower_priority);  // the 10 us from the wake-up to the switch
  EXPECT_NE(x.line.find("woken 400 us into it, then nothing runnable competed"), std::string::npos)
      << x.line;
}

CycleRow row(uint64_t id, double t_s, int64_t wake, std::vector<std::pair<int64_t, int64_t>> c) {
  CycleRow r;
  r.id = id;
  r.t_s = t_s;
  r.jackd_wake_ns = wake;
  for (const auto& [entry, exit] : c) r.clients.push_back({true, entry, exit});
  r.deadline_ns = 5333333;
  r.end_ns = r.clients.back().exit_ns;
  r.slack_ns = r.deadline_ns - *r.end_ns;
  return r;
}

TEST(Explain, SelectTakesTheNWorstRowsAndTheirLateHopsLatestFirstWithAbsoluteWindows) {
  CycleTableResult t;
  t.worst = {row(10, 1.5, 20000, {{40000, 100000}, {700000, 800000}}),
             row(11, 2.0, 900000, {{920000, 980000}, {1000000, 1100000}}),
             row(12, 3.0, 20000, {{40000, 100000}, {120000, 200000}})};
  const ExplainThreads threads{111, {201, 202}, {"c01", "c02"}};
  const int64_t origin = 1000000000;
  const std::vector<HopWindow> hops = select_late_hops(t, 2, threads, origin);
  // Row 10: c02's wake-up (600 us) is the late one; row 11: jackd's wake-up (900 us). Without
  // medians (no hop series) lateness is the hop's time, so other long hops may follow.
  ASSERT_GE(hops.size(), 2u);
  EXPECT_EQ(hops[0].cycle, 10u);
  EXPECT_EQ(hops[0].hop_key, "wakeup.c02");
  EXPECT_EQ(hops[0].tid, 202);
  EXPECT_EQ(hops[0].start_ns, origin + 1500000000 + 100000);
  EXPECT_EQ(hops[0].end_ns, origin + 1500000000 + 700000);
  bool row11_jackd = false;
  for (const HopWindow& h : hops) {
    EXPECT_NE(h.cycle, 12u);  // only the 2 worst
    if (h.cycle == 11 && h.hop_key == "jackd_wakeup") {
      row11_jackd = true;
      EXPECT_EQ(h.tid, 111);
      EXPECT_EQ(h.rel_start_ns, 0);
      EXPECT_EQ(h.rel_end_ns, 900000);
    }
  }
  EXPECT_TRUE(row11_jackd);
}

TEST(Explain, StealPerCpuIsItsShareOfThatCpusJiffiesBetweenTheTwoTexts) {
  const std::string a = "cpu  10 0 10 80 0 0 0 0\ncpu0 5 0 5 40 0 0 0 0\ncpu1 5 0 5 40 0 0 0 0\n";
  const std::string b =
      "cpu  30 0 30 120 0 0 0 20\ncpu0 10 0 10 80 0 0 0 0\ncpu1 20 0 20 40 0 0 0 20\n";
  const std::vector<double> s = steal_pct_per_cpu(a, b);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_DOUBLE_EQ(s[0], 0.0);
  EXPECT_DOUBLE_EQ(s[1], 40.0);  // 20 of 50 jiffies
  EXPECT_TRUE(steal_pct_per_cpu("", b).empty());
}

TEST(Explain, CyclesGroupTheirHopsUnderOneLineThatStartsWithTheSlack) {
  CycleTableResult t;
  t.worst = {row(10, 0.001, 20000, {{40000, 100000}, {700000, 800000}})};
  // c02 (tid 202) on CPU 1, blocked by pid 4242 from its upstream's exit (origin + 1 ms +
  // 100 us) to its entry (+ 700 us).
  const int64_t base_us = 1000 + 1000;  // origin 1 ms, t_s 1 ms
  const std::vector<TraceEvent> events = {
      sw(base_us + 50, 1, 0, "swapper/1", 120, 4242, "busyloop", 9),
      sw(base_us + 690, 1, 4242, "busyloop", 9, 202, "c02", 34),
  };
  const ExplainThreads threads{111, {201, 202}, {"c01", "c02"}};
  const std::vector<ExplainedCycle> c =
      explain_cycles(events, t, 5, threads, 1000 * kUs, TraceCoverage{0, 10000 * kUs}, kFifo, {});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].cycle, 10u);
  EXPECT_EQ(c[0].slack_ns, 5333333 - 800000);
  EXPECT_EQ(c[0].line.rfind("slack 4533 us: c02's wake-up", 0), 0u) << c[0].line;
  ASSERT_FALSE(c[0].hops.empty());
  EXPECT_EQ(c[0].hops[0].hop.hop_key, "wakeup.c02");
  ASSERT_FALSE(c[0].hops[0].blockers.empty());
  EXPECT_EQ(c[0].hops[0].blockers[0].pid, 4242);
  EXPECT_EQ(c[0].hops[0].blockers[0].ns, 590 * kUs);
}

}  // namespace
}  // namespace xrunlab
