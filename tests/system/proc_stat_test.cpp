// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/proc_stat.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

constexpr char kStatA[] =
    "cpu  1000 10 500 8000 200 30 60 0 0 0\n"
    "cpu0 500 5 250 4000 100 15 30 0 0 0\n"
    "cpu1 500 5 250 4000 100 15 30 0 0 0\n"
    "intr 123456 45 0 0 9 0 0 0 0 1 0\n"
    "ctxt 987654\n"
    "btime 1700000000\n"
    "processes 4321\n"
    "procs_running 2\n"
    "procs_blocked 0\n"
    "softirq 5555 0 1 2 3 4 5 6 7 8 9\n";

constexpr char kStatB[] =
    "cpu  1100 30 600 9600 240 40 80 10 0 0\n"
    "cpu0 550 15 300 4800 120 20 40 5 0 0\n"
    "cpu1 550 15 300 4800 120 20 40 5 0 0\n"
    "intr 125456 45 0 0 9 0 0 0 0 1 0\n"
    "ctxt 997654\n"
    "btime 1700000000\n";

TEST(ParseProcStat, ReadsAggregateLineIntrAndCtxt) {
  const auto s = parse_proc_stat(kStatA);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->cpu.user, 1000u);
  EXPECT_EQ(s->cpu.nice, 10u);
  EXPECT_EQ(s->cpu.system, 500u);
  EXPECT_EQ(s->cpu.idle, 8000u);
  EXPECT_EQ(s->cpu.iowait, 200u);
  EXPECT_EQ(s->cpu.irq, 30u);
  EXPECT_EQ(s->cpu.softirq, 60u);
  EXPECT_EQ(s->cpu.steal, 0u);
  EXPECT_EQ(s->cpu.total(), 9800u);
  EXPECT_EQ(s->intr, 123456u);
  EXPECT_EQ(s->ctxt, 987654u);
  EXPECT_EQ(s->taken_us, 0);
}

TEST(ParseProcStat, OldKernelWithFewerCpuFields) {
  const auto s = parse_proc_stat("cpu  1 2 3 4 5 6 7\nintr 8\nctxt 9");  // 2.6-era, no newline
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->cpu.softirq, 7u);
  EXPECT_EQ(s->cpu.steal, 0u);
  EXPECT_EQ(s->intr, 8u);
  EXPECT_EQ(s->ctxt, 9u);
}

TEST(ParseProcStat, MissingOrMalformedLinesGiveNullopt) {
  EXPECT_FALSE(parse_proc_stat("").has_value());
  EXPECT_FALSE(parse_proc_stat("intr 1 2\nctxt 3\n").has_value());              // no cpu
  EXPECT_FALSE(parse_proc_stat("cpu0 1 2 3 4\nintr 1\nctxt 3\n").has_value());  // per-CPU only
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3 4\nctxt 3\n").has_value());          // no intr
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3 4\nintr 1\n").has_value());          // no ctxt
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3\nintr 1\nctxt 3\n").has_value());    // short cpu
  EXPECT_FALSE(parse_proc_stat("cpu  1 x 3 4\nintr 1\nctxt 3\n").has_value());  // junk
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3 4\nintr -1\nctxt 3\n").has_value());
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3 4\nintr 1\nctxt\n").has_value());
}

TEST(DiffProcStat, PercentagesAndRates) {
  auto a = parse_proc_stat(kStatA);
  auto b = parse_proc_stat(kStatB);
  ASSERT_TRUE(a && b);
  a->taken_us = 1'000'000;
  b->taken_us = 3'000'000;  // 2 s
  // Deltas: user 100, nice 20, system 100, idle 1600, iowait 40, irq 10, softirq 20,
  // steal 10 -> total 1900.
  const SystemSample s = diff_proc_stat(*a, *b, 12.5);
  EXPECT_DOUBLE_EQ(s.t_s, 12.5);
  EXPECT_DOUBLE_EQ(s.user_pct, 100.0 * 100 / 1900);
  EXPECT_DOUBLE_EQ(s.nice_pct, 100.0 * 20 / 1900);
  EXPECT_DOUBLE_EQ(s.system_pct, 100.0 * 100 / 1900);
  EXPECT_DOUBLE_EQ(s.iowait_pct, 100.0 * 40 / 1900);
  EXPECT_DOUBLE_EQ(s.irq_pct, 100.0 * 10 / 1900);
  EXPECT_DOUBLE_EQ(s.softirq_pct, 100.0 * 20 / 1900);
  EXPECT_DOUBLE_EQ(s.intr_per_s, 1000.0);
  EXPECT_DOUBLE_EQ(s.ctxt_per_s, 5000.0);
}

TEST(DiffProcStat, CounterGoingBackwardsClampsToZero) {
  auto a = parse_proc_stat("cpu  100 0 100 800 0 0 0 0\nintr 500\nctxt 900\n");
  auto b = parse_proc_stat("cpu  50 0 200 1600 0 0 0 0\nintr 400\nctxt 1900\n");
  ASSERT_TRUE(a && b);
  a->taken_us = 0;
  b->taken_us = 1'000'000;
  const SystemSample s = diff_proc_stat(*a, *b, 1.0);
  EXPECT_DOUBLE_EQ(s.user_pct, 0.0);                  // user went backwards
  EXPECT_DOUBLE_EQ(s.system_pct, 100.0 * 100 / 900);  // total = 100 system + 800 idle
  EXPECT_DOUBLE_EQ(s.intr_per_s, 0.0);                // intr went backwards
  EXPECT_DOUBLE_EQ(s.ctxt_per_s, 1000.0);
}

TEST(DiffProcStat, ZeroElapsedGivesZeros) {
  auto a = parse_proc_stat(kStatA);
  ASSERT_TRUE(a);
  a->taken_us = 42;
  const SystemSample same = diff_proc_stat(*a, *a, 3.0);
  EXPECT_DOUBLE_EQ(same.t_s, 3.0);
  EXPECT_DOUBLE_EQ(same.user_pct, 0.0);
  EXPECT_DOUBLE_EQ(same.system_pct, 0.0);
  EXPECT_DOUBLE_EQ(same.intr_per_s, 0.0);
  EXPECT_DOUBLE_EQ(same.ctxt_per_s, 0.0);

  // Jiffies moved but the wall clock did not (or went backwards): percentages only.
  auto b = parse_proc_stat(kStatB);
  ASSERT_TRUE(b);
  b->taken_us = 10;
  const SystemSample s = diff_proc_stat(*a, *b, 0.0);
  EXPECT_GT(s.user_pct, 0.0);
  EXPECT_DOUBLE_EQ(s.intr_per_s, 0.0);
  EXPECT_DOUBLE_EQ(s.ctxt_per_s, 0.0);
}

TEST(ReadProcStat, ReadsTheRealFile) {
  const auto s = read_proc_stat();
  ASSERT_TRUE(s.has_value());
  EXPECT_GT(s->cpu.total(), 0u);
  EXPECT_GT(s->ctxt, 0u);
  EXPECT_GT(s->taken_us, 0);
}

TEST(ReadProcStat, MissingFileGivesNullopt) {
  EXPECT_FALSE(read_proc_stat("/nonexistent/xrunlab/stat").has_value());
}

}  // namespace
}  // namespace xrunlab
