// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/system_sampler.hpp"

#include <gtest/gtest.h>

#include <deque>

namespace xrunlab {
namespace {

ProcStatSnapshot snap(uint64_t user, uint64_t system, uint64_t idle, uint64_t intr, uint64_t ctxt,
                      int64_t taken_us) {
  ProcStatSnapshot s;
  s.cpu.user = user;
  s.cpu.system = system;
  s.cpu.idle = idle;
  s.intr = intr;
  s.ctxt = ctxt;
  s.taken_us = taken_us;
  return s;
}

TEST(SystemSecond, SharesRatesAndAccountedTime) {
  // One wall second on a machine that should account 200 ticks (2 CPUs x 100 Hz): 150 were.
  const auto a = snap(100, 50, 1000, 10000, 5000, 1'000'000);
  const auto b = snap(130, 80, 1090, 16000, 6000, 2'000'000);
  const SystemSecond s = system_second(a, b, 1.0, 200.0);
  EXPECT_DOUBLE_EQ(s.t_s, 1.0);
  EXPECT_DOUBLE_EQ(s.user_pct, 20.0);
  EXPECT_DOUBLE_EQ(s.system_pct, 20.0);
  EXPECT_DOUBLE_EQ(s.intr_per_s, 6000.0);
  EXPECT_DOUBLE_EQ(s.ctxt_per_s, 1000.0);
  ASSERT_TRUE(s.cpu_accounted_pct.has_value());
  EXPECT_DOUBLE_EQ(*s.cpu_accounted_pct, 75.0);
}

TEST(SystemSecond, WithoutTwoSnapshotsOnlyTheTime) {
  const SystemSecond s = system_second(std::nullopt, snap(1, 1, 1, 1, 1, 1), 2.0, 200.0);
  EXPECT_DOUBLE_EQ(s.t_s, 2.0);
  EXPECT_DOUBLE_EQ(s.user_pct, 0.0);
  EXPECT_FALSE(s.cpu_accounted_pct.has_value());
}

TEST(SystemSampler, EachSampleCoversTheIntervalSinceThePreviousOne) {
  std::deque<ProcStatSnapshot> reads = {snap(0, 0, 0, 0, 0, 0), snap(10, 0, 90, 100, 10, 1'000'000),
                                        snap(20, 0, 180, 300, 20, 2'000'000)};
  SystemSampler sampler(5'000'000, 2, [&] {
    ProcStatSnapshot s = reads.front();
    reads.pop_front();
    return std::optional<ProcStatSnapshot>(s);
  });
  const SystemSecond first = sampler.sample(6'000'000, 41.5, 5);
  EXPECT_DOUBLE_EQ(first.t_s, 1.0);
  EXPECT_DOUBLE_EQ(first.user_pct, 10.0);
  EXPECT_DOUBLE_EQ(first.intr_per_s, 100.0);
  EXPECT_EQ(first.xruns, 3u);  // 5 in all, 2 before the window
  ASSERT_TRUE(first.dsp_load_pct.has_value());
  EXPECT_DOUBLE_EQ(*first.dsp_load_pct, 41.5);
  const SystemSecond second = sampler.sample(7'000'000, 40.0, 5);
  EXPECT_DOUBLE_EQ(second.t_s, 2.0);
  EXPECT_DOUBLE_EQ(second.intr_per_s, 200.0);
  EXPECT_EQ(second.xruns, 0u);
}

}  // namespace
}  // namespace xrunlab
