// SPDX-License-Identifier: GPL-2.0-or-later
// The campaign section "periodic-2001" on hand-made cases: the hog count of each case, the rows
// in 2001's terms against the unloaded case, and the timed benchmark's slowdown.
#include "engine/campaign/periodic_2001.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

using Args = std::vector<std::string>;

TEST(Periodic2001, TheHogCountIsTheSumOfTheCpuLoadsAndAnyOtherLoadHasNone) {
  EXPECT_EQ(hogs_of({"--clients", "4", "--baseline", "cyclictest"}), 0);
  EXPECT_EQ(hogs_of({"--load", "cpu:4"}), 4);
  EXPECT_EQ(hogs_of({"--load", "cpu"}), 1);
  EXPECT_EQ(hogs_of({"--load", "cpu:8", "--load", "cpu:2"}), 10);
  EXPECT_EQ(hogs_of({"--load", "cpu:4", "--load", "hackbench"}), std::nullopt);
  EXPECT_EQ(hogs_of({"--load", "bench"}), std::nullopt);
  EXPECT_EQ(hogs_of({"--load", "cpu:x"}), std::nullopt);
}

CaseFigures figures(const CampaignCase& c, size_t runs,
                    std::vector<std::pair<std::string, std::vector<double>>> values) {
  CaseFigures f;
  f.c = &c;
  f.runs = runs;
  f.values = std::move(values);
  return f;
}

TEST(Periodic2001, RowsByHogCountAgainstTheUnloadedCaseAndTheBenchmarksSlowdown) {
  const Args fixed = {"--period", "64", "--rate", "64000", "--baseline", "cyclictest"};
  auto with = [&](Args more) {
    Args a = fixed;
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const CampaignCase c16{1, "cpu:16", "01-cpu-16", {}, with({"--load", "cpu:16"})};
  const CampaignCase c0{2, "none", "02-none", {}, fixed};
  const CampaignCase c4{3, "cpu:4", "03-cpu-4", {}, with({"--load", "cpu:4"})};
  const CampaignCase other{4, "hackbench", "04-hackbench", {}, with({"--load", "hackbench"})};
  const CampaignCase alone{5,
                           "bench alone",
                           "05-bench-alone",
                           {},
                           {"--period", "64", "--load", "bench", "--baseline", "none"}};
  const CampaignCase beside{6, "bench beside", "06-bench-beside", {}, with({"--load", "bench"})};
  CampaignReport r;
  r.cases = {
      figures(c16, 2,
              {{"baseline_p50", {4, 6}},
               {"baseline_p99", {20, 30}},
               {"baseline_max", {100, 300}},
               {"wakeup_p99", {40, 60}},
               {"delay_max", {900, 1100}},
               {"slack_p1", {200, 100}}}),
      figures(c0, 3,
              {{"baseline_p50", {2, 3, 2}},
               {"baseline_p99", {8, 9, 10}},
               {"baseline_max", {50, 40, 60}},
               {"wakeup_p99", {10, 12, 11}},
               {"delay_max", {300, 400, 350}},
               {"slack_p1", {600, 650, 700}}}),
      figures(c4, 1, {{"baseline_p99", {12}}, {"baseline_max", {70}}}),
      figures(other, 1, {{"baseline_p99", {500}}}),
      figures(alone, 3, {{"bench_job_ms", {40, 41, 42}}}),
      figures(beside, 3, {{"bench_job_ms", {42, 43, 44}}}),
  };
  const Periodic2001 p = periodic_2001(r);
  ASSERT_EQ(p.rows.size(), 3u) << "hackbench is no run-queue case, the benches are apart";
  EXPECT_EQ(p.rows[0].hogs, 0);
  EXPECT_EQ(p.rows[0].case_label, "02-none");
  EXPECT_EQ(p.rows[1].hogs, 4);
  EXPECT_EQ(p.rows[2].hogs, 16);
  EXPECT_EQ(p.rows[0].p99_d.median, 9.0);
  EXPECT_EQ(p.rows[0].p99_over_unloaded, 0.0);
  EXPECT_EQ(p.rows[1].p99_over_unloaded, 3.0);
  EXPECT_EQ(p.rows[2].p99_over_unloaded, 16.0) << "medians: 25 - 9";
  EXPECT_EQ(p.rows[2].max_over_unloaded, 150.0) << "200 - 50";
  EXPECT_EQ(p.rows[2].max_d.max, 300.0);
  EXPECT_EQ(p.rows[2].delay_max, 1000.0);
  EXPECT_EQ(p.rows[1].wakeup_p99, std::nullopt);
  ASSERT_TRUE(p.bench.has_value());
  EXPECT_EQ(p.bench->alone_label, "05-bench-alone");
  EXPECT_EQ(p.bench->with_label, "06-bench-beside");
  EXPECT_EQ(p.bench->alone_median_ms, 41.0);
  EXPECT_EQ(p.bench->with_median_ms, 43.0);
  EXPECT_NEAR(*p.bench->slowdown_pct, 100.0 * 2.0 / 41.0, 1e-9);
  EXPECT_FALSE(p.bench->verdict.resolved) << "3 vs 3 runs cannot reach p < 0.05";
  const std::string text = format_periodic_2001(p);
  EXPECT_NE(text.find("The 2001 table: "), std::string::npos) << text;
  EXPECT_NE(text.find("2/9/50 [60]"), std::string::npos) << text;
  EXPECT_NE(text.find("(reference)"), std::string::npos) << text;
  EXPECT_NE(text.find("+16/+150"), std::string::npos) << text;
  EXPECT_NE(text.find("slowdown +4.88 %"), std::string::npos) << text;
  const nlohmann::json j = periodic_2001_json(p);
  EXPECT_EQ(j["rows"][2]["hogs"], 16);
  EXPECT_EQ(j["rows"][2]["cyclictest_max_us"]["max"], 300.0);
  EXPECT_EQ(j["benchmark"]["job_ms_with"].size(), 3u);
  EXPECT_EQ(j["benchmark"]["resolved"], false);
}

TEST(Periodic2001, NoTableWithoutACaseOfItsKind) {
  const CampaignCase other{1, "hackbench", "01-hackbench", {}, {"--load", "hackbench"}};
  CampaignReport r;
  r.cases = {figures(other, 1, {{"baseline_p99", {500}}})};
  EXPECT_EQ(format_periodic_2001(periodic_2001(r)), "");
  // A case without the periodic task (no --baseline cyclictest) is no row either.
  const CampaignCase bare{1, "none", "01-none", {}, {"--clients", "2"}};
  r.cases = {figures(bare, 1, {})};
  EXPECT_TRUE(periodic_2001(r).rows.empty());
}

}  // namespace
}  // namespace xrunlab
