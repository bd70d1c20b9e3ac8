// SPDX-License-Identifier: GPL-2.0-or-later
// The campaign section "preempt-2004" on hand-made cases: one row per load in the 2004 terms.
#include "engine/campaign/preempt_2004.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(Preempt2004, OneRowPerLoadInThe2004Terms) {
  CampaignCase none{1, "none", "1-none", {}, {}};
  CampaignCase x11{2, "x11", "2-x11", {}, {}};
  CampaignReport r;
  CaseFigures a;
  a.c = &none;
  a.runs = 3;
  a.values = {{"dsp_within_100us_pct", {99.9, 100, 99.5}}, {"dsp_overhead_max_pct", {10, 30, 20}},
              {"dsp_max_us", {1276, 1508, 1392}},          {"dsp_nominal_us", {1160, 1160, 1160}},
              {"dsp_p50_us", {1180, 1306, 1200}},          {"ping_lost_pct", {0, 0, 0}}};
  CaseFigures b;
  b.c = &x11;
  b.runs = 2;
  b.values = {{"dsp_within_100us_pct", {82, 90}},
              {"dsp_overhead_max_pct", {115.5, 40}},
              {"dsp_max_us", {2500, 1624}},
              {"dsp_nominal_us", {1160, 1160}},
              {"ping_lost_pct", {13.1, 12.9}}};
  r.cases = {a, b};
  const std::vector<Preempt2004Row> rows = preempt_2004_rows(r);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].within_100us_median, 99.9);
  EXPECT_EQ(rows[0].within_100us_min, 99.5);
  EXPECT_EQ(rows[0].worst_overhead_pct, 30.0) << "the worst run";
  EXPECT_EQ(rows[0].worst_loop_us, 1508.0);
  EXPECT_EQ(rows[0].nominal_us, 1160.0);
  EXPECT_EQ(rows[0].median_loop_us, 1200.0) << "the median of the runs' median loops";
  EXPECT_EQ(rows[1].median_loop_us, std::nullopt) << "no run with the figure";
  EXPECT_EQ(rows[1].within_100us_median, 86.0);
  EXPECT_EQ(rows[1].worst_loop_us, 2500.0);
  EXPECT_EQ(rows[1].ping_lost_pct_median, 13.0);
  const std::string text = format_preempt_2004(rows);
  EXPECT_NE(text.find("The 2004 table: "), std::string::npos) << text;
  EXPECT_NE(text.find("2-x11"), std::string::npos) << text;
  EXPECT_NE(text.find("86 % [82..90]"), std::string::npos) << text;
  EXPECT_NE(text.find("115.5 %"), std::string::npos) << text;
  EXPECT_NE(text.find("2500 vs 1160 us"), std::string::npos) << text;
  EXPECT_NE(text.find("median loop"), std::string::npos) << text;
  EXPECT_NE(text.find("    1200 us"), std::string::npos) << text;
  EXPECT_NE(text.find("ping lost"), std::string::npos) << text;
  const nlohmann::json j = preempt_2004_json(rows);
  EXPECT_EQ(j["rows"][1]["worst_overhead_pct"], 115.5);
  EXPECT_EQ(j["rows"][0]["median_loop_us"], 1200.0);
  EXPECT_EQ(j["rows"][1]["ping_lost_pct"].size(), 2u);
  // Without DSP figures (no cycle table): no table.
  CaseFigures empty;
  empty.c = &none;
  r.cases = {empty};
  EXPECT_EQ(format_preempt_2004(preempt_2004_rows(r)), "");
  // Without --ping: no ping column.
  a.values.pop_back();
  r.cases = {a};
  EXPECT_EQ(format_preempt_2004(preempt_2004_rows(r)).find("ping lost"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
