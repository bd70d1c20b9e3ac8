// SPDX-License-Identifier: GPL-2.0-or-later
// The campaign section "maxima-spread" on hand-made cases: the maxima's median, range, ratio and
// robust spread, the runs per kernel for 10/20/50 % (worked by hand below), and where there is
// no estimate.
#include "engine/campaign/maxima_spread.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

struct Fixture {
  CampaignCase a{1, "none", "1-none", {}, {}};
  CampaignCase b{2, "hackbench", "2-hackbench", {}, {}};
  CampaignReport r;
  Fixture() {
    r.name = "k";
    CaseFigures fa;
    fa.c = &a;
    fa.runs = 5;
    fa.values = {{"delay_max", {140, 100, 120, 110, 130}}, {"baseline_max", {50, 50, 50}}};
    CaseFigures fb;
    fb.c = &b;
    fb.runs = 1;
    fb.values = {{"delay_max", {900}}, {"xrun_rate", {3}}};
    r.cases = {fa, fb};
  }
};

TEST(MaximaSpread, WorkedExample) {
  const Fixture f;
  const std::vector<MaximaSpreadRow> rows = maxima_spread(f.r);
  ASSERT_EQ(rows.size(), 3u) << "delay_max of both cases, baseline_max of the first";
  const MaximaSpreadRow& a = rows[0];
  EXPECT_EQ(a.case_label, "1-none");
  EXPECT_EQ(a.metric, "delay_max");
  EXPECT_EQ(a.maxima, (std::vector<double>{140, 100, 120, 110, 130})) << "in run order";
  EXPECT_EQ(a.median, 120);
  EXPECT_EQ(a.min, 100);
  EXPECT_EQ(a.max, 140);
  EXPECT_EQ(a.ratio, 1.4);
  // IQR (type 7) 110..130 = 20; robust sd 20 / 1.349 = 14.83, 12.4 % of 120.
  EXPECT_EQ(a.robust_cv_pct, 12.4);
  // Runs per kernel: (z(0.975) + z(0.8))^2 * 2 sd^2 / delta^2 / (3 / pi), delta 12, 24, 60:
  // 25.09 -> 26, 6.27 -> 7, 1.004 -> 2, raised to 4 (the fewest that can reach p < 0.05).
  ASSERT_EQ(a.runs_needed.size(), 3u);
  EXPECT_EQ(a.runs_needed[0], 26u);
  EXPECT_EQ(a.runs_needed[1], 7u);
  EXPECT_EQ(a.runs_needed[2], 4u);
}

TEST(MaximaSpread, NoEstimateFromOneRunOrFromEqualMaxima) {
  const Fixture f;
  const std::vector<MaximaSpreadRow> rows = maxima_spread(f.r);
  const MaximaSpreadRow& one = rows[1];
  EXPECT_EQ(one.case_label, "2-hackbench");
  EXPECT_EQ(one.ratio, 1.0);
  EXPECT_FALSE(one.robust_cv_pct.has_value()) << "one run shows no noise";
  for (const auto& n : one.runs_needed) EXPECT_FALSE(n.has_value());
  EXPECT_FALSE(one.why_absent[0].empty());
  const MaximaSpreadRow& equal = rows[2];
  EXPECT_EQ(equal.metric, "baseline_max");
  EXPECT_EQ(equal.robust_cv_pct, 0.0);
  for (const auto& n : equal.runs_needed) EXPECT_FALSE(n.has_value()) << "any difference shows";
}

TEST(MaximaSpread, ASpreadThatDwarfsTheDifferenceIsSaidSo) {
  CampaignCase c{1, "hackbench", "1-hackbench", {}, {}};
  CampaignReport r;
  CaseFigures f;
  f.c = &c;
  f.runs = 5;
  // The run of 634 ms among runs near 600 us: IQR 580..100000, a spread of ~12000 %.
  f.values = {{"delay_max", {580, 600, 620, 100000, 634670}}};
  r.cases = {f};
  const std::vector<MaximaSpreadRow> rows = maxima_spread(r);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].runs_needed[0].has_value());
  EXPECT_TRUE(rows[0].beyond_estimate[0]);
  EXPECT_NE(format_maxima_spread(rows).find(">1e6/"), std::string::npos)
      << format_maxima_spread(rows);
  EXPECT_EQ(maxima_spread_json(rows)["rows"][0]["runs_per_kernel_needed"]["10pct"], "over 1000000");
}

TEST(MaximaSpread, TextAndJson) {
  const Fixture f;
  const std::vector<MaximaSpreadRow> rows = maxima_spread(f.r);
  const std::string text = format_maxima_spread(rows);
  EXPECT_NE(text.find("Spread of the maxima across repetitions: "), std::string::npos) << text;
  EXPECT_NE(text.find("\n Delay Maximum (us)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n cyclictest max beside the run (us)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("1-none"), std::string::npos);
  EXPECT_NE(text.find("100..140"), std::string::npos) << text;
  EXPECT_NE(text.find("1.40x"), std::string::npos) << text;
  EXPECT_NE(text.find("12.4 %"), std::string::npos) << text;
  EXPECT_NE(text.find("26/7/4"), std::string::npos) << text;
  EXPECT_NE(text.find("-/-/-"), std::string::npos) << text;
  EXPECT_EQ(format_maxima_spread({}), "");
  const nlohmann::json j = maxima_spread_json(rows);
  ASSERT_EQ(j["rows"].size(), 3u);
  EXPECT_EQ(j["rows"][0]["runs_per_kernel_needed"]["10pct"], 26);
  EXPECT_EQ(j["rows"][0]["runs_per_kernel_needed"]["50pct"], 4);
  EXPECT_TRUE(j["rows"][1]["runs_per_kernel_needed"]["20pct"].is_null());
  EXPECT_EQ(j["rows"][0]["max_over_min"], 1.4);
  EXPECT_TRUE(j["definition"].is_string());
}

TEST(MaximaSpread, OnlyWhereTheCampaignFileAsksForIt) {
  Fixture f;
  EXPECT_EQ(format_campaign_report(f.r).find("Spread of the maxima"), std::string::npos);
  EXPECT_FALSE(campaign_report_json(f.r).contains("maxima_spread"));
  f.r.sections = {"maxima-spread"};
  EXPECT_NE(format_campaign_report(f.r).find("Spread of the maxima"), std::string::npos);
  EXPECT_EQ(campaign_report_json(f.r)["maxima_spread"]["rows"].size(), 3u);
}

}  // namespace
}  // namespace xrunlab
