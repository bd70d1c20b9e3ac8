// SPDX-License-Identifier: GPL-2.0-or-later
// RLIMIT_RTTIME's values for a run, and how a client's end is told apart as a runaway's.
#include "engine/run/rt_time_limit.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include "engine/wire/client_args.hpp"

namespace xrunlab {
namespace {

// Raw wait statuses as waitpid reports them.
int exited(int code) {
  return (code & 0xff) << 8;
}
int killed_by(int sig) {
  return sig & 0x7f;
}

TEST(RtTimeLimit, OneSecondFloorThenFourPeriodsPlusTheLargestOverrun) {
  // 1024 frames at 48 kHz: 4 periods are 85 ms, far under the floor.
  const RtTimeLimit small = rt_time_limit(1024 * 1e6 / 48000, 0);
  EXPECT_EQ(small.soft_us, 1000000u);
  EXPECT_EQ(small.hard_us, 2000000u);
  EXPECT_EQ(small.watchdog_us, 3000000u);
  // 8192 frames at 48 kHz (170.7 ms) and a 400 ms injected overrun: 4 periods + 400 ms.
  const RtTimeLimit big = rt_time_limit(8192 * 1e6 / 48000, 400000);
  EXPECT_EQ(big.soft_us, 682667u + 400000u);
  EXPECT_EQ(big.hard_us, big.soft_us + 1000000u);
  EXPECT_EQ(big.watchdog_us, big.hard_us + 1000000u);
  // An overrun of seconds moves the limit with it.
  EXPECT_EQ(rt_time_limit(1000, 5000000).soft_us, 5004000u);
}

TEST(RtTimeLimit, TheChildLimitAndTheRecord) {
  const RtTimeLimit l = rt_time_limit(5333.3, 8000);
  const ChildLimit c = rttime_child_limit(l);
  EXPECT_EQ(c.resource, RLIMIT_RTTIME);
  EXPECT_EQ(c.soft, l.soft_us);
  EXPECT_EQ(c.hard, l.hard_us);
  EXPECT_EQ(c.name, "RLIMIT_RTTIME");
  const RtTimeLimitRecord j = rt_time_limit_record(l, {"jackd", "xrunlab-client"});
  EXPECT_EQ(j.soft_us, 1000000u);
  EXPECT_EQ(j.hard_us, 2000000u);
  EXPECT_EQ(j.watchdog_us, 3000000u);
  EXPECT_EQ(j.applied_to, (std::vector<std::string>{"jackd", "xrunlab-client"}));
  EXPECT_NE(j.rule.find("RLIMIT_RTTIME"), std::string::npos);
}

TEST(RunawayCause, EachEndToldApart) {
  const RtTimeLimit l = rt_time_limit(1000, 0);
  const uint64_t second = 1000000000;
  // The client's SIGXCPU handler exits with its own status; without it the signal itself.
  EXPECT_EQ(runaway_cause(exited(kClientExitRtTime), false, 0, l), RunawayCause::kRtTimeSoft);
  EXPECT_EQ(runaway_cause(killed_by(SIGXCPU), false, 0, l), RunawayCause::kRtTimeSoft);
  // A SIGKILL we did not send, after a stretch of at least the soft limit: the hard limit.
  EXPECT_EQ(runaway_cause(killed_by(SIGKILL), false, second, l), RunawayCause::kRtTimeHard);
  EXPECT_EQ(runaway_cause(killed_by(SIGKILL), false, second - 1, l), RunawayCause::kNone);
  // The watchdog's own kill, whatever the status says.
  EXPECT_EQ(runaway_cause(killed_by(SIGKILL), true, 0, l), RunawayCause::kWatchdog);
  // Ordinary ends.
  EXPECT_EQ(runaway_cause(exited(0), false, 3 * second, l), RunawayCause::kNone);
  EXPECT_EQ(runaway_cause(exited(1), false, 0, l), RunawayCause::kNone);
  EXPECT_EQ(runaway_cause(killed_by(SIGSEGV), false, 3 * second, l), RunawayCause::kNone);
}

TEST(RunawayReason, OneLineNamingTheClientThePolicyAndWhatStoppedIt) {
  const RtTimeLimit l = rt_time_limit(1000, 0);
  EXPECT_EQ(
      runaway_reason("xrunlab-c02", RunawayCause::kRtTimeSoft,
                     runaway_ran_ms(RunawayCause::kRtTimeSoft, 800000000, l), "SCHED_FIFO 65", l),
      "xrunlab-c02's process thread ran 1000 ms at SCHED_FIFO 65 without blocking: "
      "stopped by RLIMIT_RTTIME (SIGXCPU at its soft limit of 1000 ms)");
  EXPECT_EQ(runaway_reason("xrunlab-c01", RunawayCause::kRtTimeHard, 2000, "SCHED_RR 60", l),
            "xrunlab-c01's process thread ran 2000 ms at SCHED_RR 60 without blocking: stopped "
            "by RLIMIT_RTTIME (SIGKILL at its hard limit of 2000 ms)");
  EXPECT_EQ(
      runaway_reason("xrunlab-c03", RunawayCause::kWatchdog,
                     runaway_ran_ms(RunawayCause::kWatchdog, 3210987654, l), "SCHED_DEADLINE", l),
      "xrunlab-c03's process thread ran 3210 ms at SCHED_DEADLINE without blocking: "
      "stopped by the watchdog (SIGKILL after 3000 ms; RLIMIT_RTTIME did not act)");
  // A policy nobody read back is said as such.
  EXPECT_NE(runaway_reason("xrunlab-c03", RunawayCause::kWatchdog, 3000, "", l)
                .find("ran 3000 ms at a realtime policy without blocking"),
            std::string::npos);
  EXPECT_EQ(runaway_reason("x", RunawayCause::kNone, 1, "SCHED_FIFO 1", l), "");
  EXPECT_EQ(stopped_by(RunawayCause::kRtTimeHard), "RLIMIT_RTTIME");
  EXPECT_EQ(stop_signal(RunawayCause::kRtTimeSoft), "SIGXCPU");
  EXPECT_EQ(stop_signal(RunawayCause::kWatchdog), "SIGKILL");
  // What the watchdog saw counts when it is more than the limit the kernel acted at.
  EXPECT_EQ(runaway_ran_ms(RunawayCause::kRtTimeSoft, 1500000000, l), 1500u);
}

}  // namespace
}  // namespace xrunlab
