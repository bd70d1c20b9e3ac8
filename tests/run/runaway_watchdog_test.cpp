// SPDX-License-Identifier: GPL-2.0-or-later
// The watchdog's decision from made-up looks at threads (exact by construction), and the /proc
// parsing it reads its looks with.
#include "engine/run/runaway_watchdog.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace xrunlab {
namespace {

constexpr uint64_t kMs = 1000000;

ThreadRun look(uint64_t exec_ms, uint64_t blocks, int64_t at_ms) {
  return {exec_ms * kMs, blocks, static_cast<int64_t>(at_ms) * static_cast<int64_t>(kMs)};
}

TEST(RunawayWatchdog, AThreadThatBlocksBetweenLooksNeverRunsAStretch) {
  RunawayWatchdog w(1, 3000 * kMs);
  // An audio thread: a little CPU per look, a block (or many) between every two looks.
  for (int k = 0; k < 100; ++k) {
    EXPECT_EQ(
        w.observe(0, 42, look(static_cast<uint64_t>(k) * 5, static_cast<uint64_t>(k) * 9, k * 200)),
        0u);
    EXPECT_FALSE(w.runaway(0));
  }
  EXPECT_EQ(w.running_since_ns(0), 0);
}

TEST(RunawayWatchdog, AStretchCountsCpuFromItsFirstLookUntilTheThreshold) {
  RunawayWatchdog w(2, 3000 * kMs);
  w.observe(1, 7, look(100, 50, 0));
  w.observe(1, 7, look(110, 51, 200));  // blocked since: the stretch starts at this look
  EXPECT_EQ(w.observe(1, 7, look(300, 51, 400)), 190 * kMs);
  EXPECT_EQ(w.running_since_ns(1), 200 * static_cast<int64_t>(kMs));
  EXPECT_EQ(w.observe(1, 7, look(3109, 51, 3300)), 2999 * kMs);
  EXPECT_FALSE(w.runaway(1));
  EXPECT_EQ(w.observe(1, 7, look(3110, 51, 3301)), 3000 * kMs);
  EXPECT_TRUE(w.runaway(1));
  EXPECT_EQ(w.running_since_ns(1), 200 * static_cast<int64_t>(kMs));
  // The other thread is untouched.
  EXPECT_EQ(w.ran_ns(0), 0u);
  EXPECT_FALSE(w.runaway(0));
}

TEST(RunawayWatchdog, WallTimeWithoutCpuIsNoRunaway) {
  // Starved by a higher priority (runnable, not running, never blocking): its CPU time does not
  // grow, so neither does its stretch, however long the wall time.
  RunawayWatchdog w(1, 3000 * kMs);
  w.observe(0, 7, look(10, 3, 0));
  EXPECT_EQ(w.observe(0, 7, look(10, 3, 60000)), 0u);
  EXPECT_FALSE(w.runaway(0));
}

TEST(RunawayWatchdog, ABlockEndsTheStretchAndANewThreadStartsAfresh) {
  RunawayWatchdog w(1, 1000 * kMs);
  w.observe(0, 7, look(0, 1, 0));
  w.observe(0, 7, look(900, 1, 1000));
  EXPECT_EQ(w.ran_ns(0), 900 * kMs);
  EXPECT_EQ(w.observe(0, 7, look(1900, 2, 2000)), 0u);  // it blocked: a near miss, forgotten
  EXPECT_FALSE(w.runaway(0));
  // Another thread in the same slot (a client's new process thread): not the old stretch.
  w.observe(0, 7, look(2800, 2, 3000));
  EXPECT_EQ(w.ran_ns(0), 900 * kMs);
  EXPECT_EQ(w.observe(0, 8, look(5, 0, 3100)), 0u);
  EXPECT_EQ(w.observe(0, 8, look(1005, 0, 4200)), 1000 * kMs);
  EXPECT_TRUE(w.runaway(0));
}

// Only a realtime thread can take the machine by never blocking; a fair one (iso-emu demotes to
// SCHED_OTHER) whose overrunning callbacks run back to back is no runaway, and what it ran in
// the fair class does not count once it is realtime again.
TEST(RunawayWatchdog, OnlyARealtimeClassCanRunAway) {
  EXPECT_TRUE(realtime_class(SCHED_FIFO));
  EXPECT_TRUE(realtime_class(SCHED_RR));
  EXPECT_TRUE(realtime_class(6));  // SCHED_DEADLINE
  EXPECT_FALSE(realtime_class(SCHED_OTHER));
  EXPECT_FALSE(realtime_class(SCHED_BATCH));
  EXPECT_FALSE(realtime_class(SCHED_IDLE));
  RunawayWatchdog w(1, 1'000'000'000);
  w.observe(0, 7, {0, 5, 0});
  EXPECT_EQ(w.observe(0, 7, {900'000'000, 5, 1}), 900'000'000u);
  w.restart(0);
  EXPECT_EQ(w.observe(0, 7, {1'800'000'000, 5, 2}), 0u);
  EXPECT_EQ(w.observe(0, 7, {2'500'000'000, 5, 3}), 700'000'000u);
  EXPECT_FALSE(w.runaway(0));
}

TEST(ThreadRun, ParsesSchedstatAndTheVoluntarySwitches) {
  EXPECT_EQ(parse_schedstat_exec_ns("123456789 42 7\n"), 123456789u);
  EXPECT_FALSE(parse_schedstat_exec_ns("").has_value());
  EXPECT_FALSE(parse_schedstat_exec_ns("x 1 2").has_value());
  const std::string status =
      "Name:\txrunlab-client\nState:\tR (running)\nvoluntary_ctxt_switches:\t1234\n"
      "nonvoluntary_ctxt_switches:\t99\n";
  EXPECT_EQ(parse_voluntary_switches(status), 1234u);
  // nonvoluntary_... alone is not it.
  EXPECT_FALSE(parse_voluntary_switches("nonvoluntary_ctxt_switches:\t99\n").has_value());
  EXPECT_EQ(parse_voluntary_switches("nonvoluntary_ctxt_switches:\t5\nvoluntary_ctxt_switches: 6"),
            6u);
}

TEST(ThreadRun, ReadsThisThreadFromProc) {
  const pid_t pid = ::getpid();
  const auto tid = static_cast<pid_t>(::syscall(SYS_gettid));
  const std::optional<ThreadRun> a = read_thread_run(pid, tid, 1);
  ASSERT_TRUE(a.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // blocks: a voluntary switch
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
  while (std::chrono::steady_clock::now() < until) {
  }
  const std::optional<ThreadRun> b = read_thread_run(pid, tid, 2);
  ASSERT_TRUE(b.has_value());
  EXPECT_GT(b->voluntary_switches, a->voluntary_switches);
  EXPECT_GT(b->exec_ns, a->exec_ns);
  EXPECT_EQ(b->at_ns, 2);
  EXPECT_FALSE(read_thread_run(pid, 999999999, 0).has_value());
}

}  // namespace
}  // namespace xrunlab
