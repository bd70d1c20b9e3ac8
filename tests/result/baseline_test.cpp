// SPDX-License-Identifier: GPL-2.0-or-later
// The timer baseline's pure parts (engine/result/baseline.hpp): cyclictest's argv, its --json
// file read into a histogram (the samples beyond the histogram counted, not invented), and
// run.json's "baseline" with the ratios of the run's p99s to cyclictest's.
#include "engine/result/baseline.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

using nlohmann::json;

// A cut-down --json file as rt-tests 2.4 writes it: 12 wake-ups, 2 of them beyond -h.
const char* kJson = R"({
  "file_version": 1, "rt_test_version:": "2.40", "num_threads": 1,
  "thread": {"0": {"histogram": {"44": 1, "50": 2, "60": 7}, "cycles": 12, "min": 44,
                   "max": 20327, "avg": 1747.5, "cpu": 0, "node": 0}}})";

TEST(Baseline, CyclictestArgvIsOneThreadAtThePriorityAndPeriodWithoutHoldingDmaLatency) {
  EXPECT_EQ(cyclictest_argv("/usr/bin/cyclictest", 65, 5333, 35, "/r/b.json"),
            (std::vector<std::string>{"/usr/bin/cyclictest", "-m", "-q", "--laptop", "-t", "1",
                                      "-p", "65", "-i", "5333", "-h", "100000", "-D", "35",
                                      "--json=/r/b.json"}));
}

TEST(Baseline, TheJsonFileGivesEveryWakeUpAndItsMaximum) {
  std::string why;
  const auto c = read_cyclictest_json(kJson, &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->us.count(), 12u) << "the 2 beyond the histogram count too";
  EXPECT_EQ(c->us.overflow_count(), 2u);
  EXPECT_EQ(c->us.percentile(50)->value_us, 60);
  EXPECT_TRUE(c->us.percentile(50)->exact);
  EXPECT_FALSE(c->us.percentile(99)->exact) << "the 99th falls beyond the histogram: a bound";
  EXPECT_EQ(c->max_us, 20327);
}

TEST(Baseline, WhatIsNotCyclictestsOutputIsRefusedWithWhy) {
  std::string why;
  EXPECT_FALSE(read_cyclictest_json("{not json", &why));
  EXPECT_EQ(why, "not cyclictest's --json output (no thread 0)");
  EXPECT_FALSE(read_cyclictest_json(R"({"thread": {"0": {"cycles": 3}}})", &why));
  EXPECT_EQ(why, "cyclictest's --json output has no histogram (was it run with -h?)");
  EXPECT_FALSE(read_cyclictest_json(R"({"thread": {"0": {"histogram": {"x": 1}}}})", &why));
  EXPECT_EQ(why, "cyclictest's histogram has a bin 'x' that is not a count per us");
  EXPECT_FALSE(read_cyclictest_json(R"({"thread": {"0": {"histogram": {}, "cycles": 0}}})", &why));
  EXPECT_EQ(why, "cyclictest measured no wake-up");
}

TEST(Baseline, RunJsonHasThePercentilesAndTheRatiosToItsP99) {
  CyclictestResult c;
  for (int us = 1; us <= 100; ++us) c.us.add(us);  // p50 50, p99 99, p99.9 100
  c.max_us = 100;
  const BaselineRecord j = baseline_record({"cyclictest"}, 65, 1333, c, 158.4, std::nullopt);
  EXPECT_EQ(j.tool, "cyclictest");
  EXPECT_EQ(j.policy, "SCHED_FIFO");
  EXPECT_EQ(j.wakeups, 100u);
  ASSERT_TRUE(j.p50 && j.p99 && j.p99_9);
  EXPECT_EQ(j.p50->value_us, 50);
  EXPECT_EQ(j.p99->value_us, 99);
  EXPECT_TRUE(j.p99->exact);
  EXPECT_EQ(j.p99_9->value_us, 100);
  EXPECT_EQ(j.max_us, 100);
  EXPECT_FALSE(j.holds_cpu_dma_latency);
  ASSERT_TRUE(j.jackd_wakeup_ratio);
  EXPECT_DOUBLE_EQ(*j.jackd_wakeup_ratio, 1.6);  // 158.4 / 99
  EXPECT_FALSE(j.head_client_delay_ratio) << "the run lacks it";
  EXPECT_EQ(j.bins.size(), 100u);
  EXPECT_FALSE(j.error);
}

TEST(Baseline, NoRatioAgainstAP99ThatIsOnlyABound) {
  const auto c = read_cyclictest_json(kJson, nullptr);
  ASSERT_TRUE(c);
  const BaselineRecord j = baseline_record({"cyclictest"}, 0, 1333, *c, 500.0, 600.0);
  EXPECT_EQ(j.policy, "SCHED_OTHER");
  ASSERT_TRUE(j.p99);
  EXPECT_FALSE(j.p99->exact);
  EXPECT_FALSE(j.jackd_wakeup_ratio);
  const BaselineRecord e =
      baseline_error_record({"cyclictest"}, 65, 1333, "cyclictest exited with status 1");
  EXPECT_EQ(e.error, "cyclictest exited with status 1");
  EXPECT_FALSE(e.p99);
}

}  // namespace
}  // namespace xrunlab
