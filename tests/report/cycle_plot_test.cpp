// SPDX-License-Identifier: GPL-2.0-or-later
// The waterfall's data: one row per kept cycle, its hops in chain order, and a marker where the
// chain stopped because a client did not run.
#include "engine/report/cycle_plot.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace xrunlab {
namespace {

CycleRow row(uint64_t id, bool c2_ran, int64_t slack) {
  CycleRow r;
  r.id = id;
  r.t_s = 1.5;
  r.jackd_wake_ns = 50000;
  r.clients = {{true, 80000, 480000}, {c2_ran, 500000, 900000}};
  r.deadline_ns = 5333333;
  if (c2_ran) {
    r.end_ns = 900000;
    r.slack_ns = slack;
  }
  r.missed = !c2_ran || slack < 0;
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(CyclePlotData, HopsInChainOrderAndAMarkerWhereAClientDidNotRun) {
  CycleTableResult t;
  t.present = true;
  t.worst = {row(7, true, -100000), row(8, true, 4433333)};
  t.missed_rows = {row(7, true, -100000), row(9, false, 0)};  // 7 is shown once
  const CyclePlotData d = cycle_plot_data(t);
  EXPECT_EQ(d.rows, 3u);
  const auto l = lines_of(d.text);
  ASSERT_EQ(l.size(), 5u + 5u + 4u);
  EXPECT_EQ(l[0], "0 0.000 50.000 1 \"7 @1.500s slack -100\"");
  EXPECT_EQ(l[1], "0 50.000 80.000 2 \"7 @1.500s slack -100\"");
  EXPECT_EQ(l[2], "0 80.000 480.000 3 \"7 @1.500s slack -100\"");
  EXPECT_EQ(l[3], "0 480.000 500.000 2 \"7 @1.500s slack -100\"");
  EXPECT_EQ(l[4], "0 500.000 900.000 3 \"7 @1.500s slack -100\"");
  EXPECT_EQ(l[5].substr(0, 2), "1 ");
  EXPECT_EQ(l[13], "2 480.000 480.000 4 \"9 @1.500s incomplete\"");
}

TEST(CyclePlotData, ExplainNotesAreAddedToTheirRowsLabelsWithoutQuotes) {
  CycleTableResult t;
  t.present = true;
  t.worst = {row(7, true, -100000), row(8, true, 4433333)};
  const CyclePlotData d =
      cycle_plot_data(t, 12, 8, {{7, "jackd_wakeup: busy \"loop\" pid 42 350 us"}});
  const auto l = lines_of(d.text);
  ASSERT_FALSE(l.empty());
  EXPECT_EQ(l[0],
            "0 0.000 50.000 1 \"7 @1.500s slack -100 | jackd_wakeup: busy 'loop' pid 42 350 us\"");
  EXPECT_EQ(l.back().find("|"), std::string::npos) << l.back();  // row 8 has no note
}

TEST(CyclePlotData, NoTableNoRows) {
  EXPECT_EQ(cycle_plot_data(CycleTableResult{}).rows, 0u);
}

}  // namespace
}  // namespace xrunlab
