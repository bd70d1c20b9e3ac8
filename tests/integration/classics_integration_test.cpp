// SPDX-License-Identifier: GPL-2.0-or-later
// The classic experiments' presets at their smallest scale, with the real xrunlab, jackd,
// clients, loads, cyclictest and (preempt-2004) the network companion: each campaign finishes,
// prints its own table and writes it into campaign-summary.txt/.json (and rt-kernel-2007 and
// periodic-2001 their pictures). Structure only: the numbers are this machine's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/support/run_harness.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab::testing_support {
namespace {

// Seven runs of 14 clients beside a 64-job compile took over a minute on a 2-core CI machine (the
// campaign's own estimate said 33 s): a campaign is given five.
constexpr std::chrono::seconds kCampaignTimeout{300};

bool is_png(const std::string& path) {
  return read_text_or_empty(path).rfind("\x89PNG\r\n\x1a\n", 0) == 0;
}

TEST(Classics, RtKernel2007GivesTheSpreadOfItsMaximaAndItsPicture) {
  TempDir dir("classics");
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"campaign", "--preset", "rt-kernel-2007", "--scale", "0.01",
                        "--repetitions", "2", "--dir", dir.file("c")},
                       &r, kCampaignTimeout),
            0)
      << r.log();
  EXPECT_NE(r.log().find(" Spread of the maxima across repetitions: "), std::string::npos)
      << r.log();
  EXPECT_NE(r.log().find("Plot: " + dir.file("c") + "/maxima-spread.png"), std::string::npos)
      << r.log();
  EXPECT_TRUE(is_png(dir.file("c/maxima-spread.png")));
  EXPECT_NE(read_text_or_empty(dir.file("c/campaign-summary.txt")).find(" Spread of the maxima"),
            std::string::npos);
  const json j = json::parse(read_text_or_empty(dir.file("c/campaign-summary.json")));
  const json& rows = j["maxima_spread"]["rows"];
  ASSERT_TRUE(rows.is_array()) << j.dump();
  // Every case (none, hackbench, compile:32/cpu) has its Delay Maximum and Cycle Maximum from both
  // runs, and cyclictest's maximum beside them.
  for (const char* metric : {"delay_max", "cycle_max", "baseline_max"}) {
    size_t cases = 0;
    for (const json& row : rows) {
      if (row["metric"] != metric) continue;
      ++cases;
      EXPECT_EQ(row["maxima"].size(), 2u) << row.dump();
      EXPECT_TRUE(row["runs_per_kernel_needed"].contains("20pct")) << row.dump();
    }
    EXPECT_EQ(cases, 3u) << metric << ": " << rows.dump();
  }
  // The report page embeds both pictures.
  EXPECT_NE(read_text_or_empty(dir.file("c/report.html")).find("maxima-spread.png"),
            std::string::npos);
}

TEST(Classics, Preempt2004GivesThe2004TableWithThePingLossOfEveryLoad) {
  if (::geteuid() != 0) GTEST_SKIP() << "--ping needs root";
  TempDir dir("classics");
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"campaign", "--preset", "preempt-2004", "--scale", "0.02", "--repetitions",
                        "1", "--dir", dir.file("c")},
                       &r, kCampaignTimeout),
            0)
      << r.log();
  EXPECT_NE(r.log().find(" The 2004 table: "), std::string::npos) << r.log();
  EXPECT_NE(r.log().find("ping lost"), std::string::npos) << r.log();
  const json j = json::parse(read_text_or_empty(dir.file("c/campaign-summary.json")));
  const json& rows = j["preempt_2004"]["rows"];
  ASSERT_EQ(rows.size(), 7u) << j.dump();
  const std::vector<std::string> loads = {"none",     "x11",     "top",    "net",
                                          "io-write", "io-copy", "io-read"};
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_NE(rows[i]["case"].get<std::string>().find(loads[i]), std::string::npos) << rows[i];
    EXPECT_TRUE(rows[i]["within_100us_pct_median"].is_number()) << rows[i];
    EXPECT_TRUE(rows[i]["worst_loop_us"].is_number()) << rows[i];
    EXPECT_EQ(rows[i]["nominal_us"], 1160) << "43.5 % of 5333 us, shared by 2 clients";
    EXPECT_EQ(rows[i]["ping_lost_pct"].size(), 1u) << "--ping in every run: " << rows[i];
  }
}

TEST(Classics, Periodic2001GivesThe2001TableItsPictureAndTheBenchmarksSlowdown) {
  TempDir dir("classics");
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"campaign", "--preset", "periodic-2001", "--scale", "0.02", "--repetitions",
                        "1", "--dir", dir.file("c")},
                       &r, kCampaignTimeout),
            0)
      << r.log();
  EXPECT_NE(r.log().find(" The 2001 table: "), std::string::npos) << r.log();
  EXPECT_NE(r.log().find("Timed benchmark"), std::string::npos) << r.log();
  EXPECT_NE(r.log().find("Plot: " + dir.file("c") + "/latency-vs-runqueue.png"), std::string::npos)
      << r.log();
  EXPECT_TRUE(is_png(dir.file("c/latency-vs-runqueue.png")));
  EXPECT_NE(read_text_or_empty(dir.file("c/report.html")).find("latency-vs-runqueue.png"),
            std::string::npos);
  const json j = json::parse(read_text_or_empty(dir.file("c/campaign-summary.json")));
  const json& p = j["periodic_2001"];
  ASSERT_EQ(p["rows"].size(), 6u) << p.dump();
  const int hogs[] = {0, 1, 2, 4, 8, 16};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(p["rows"][i]["hogs"], hogs[i]) << p["rows"][i];
    EXPECT_EQ(p["rows"][i]["runs"], 1) << p["rows"][i];
    // cyclictest beside every run: its maximum is exact even beyond its histogram.
    EXPECT_TRUE(p["rows"][i]["cyclictest_max_us"]["median"].is_number()) << p["rows"][i];
  }
  EXPECT_EQ(p["rows"][0]["max_over_unloaded_us"], 0.0) << "the unloaded case against itself";
  const json& b = p["benchmark"];
  EXPECT_NE(b["without_case"].get<std::string>().find("no-periodic-task"), std::string::npos);
  ASSERT_EQ(b["job_ms_without"].size(), 1u) << b;
  ASSERT_EQ(b["job_ms_with"].size(), 1u) << b;
  EXPECT_GT(b["job_ms_without"][0].get<double>(), 0.0);
  EXPECT_TRUE(b["slowdown_pct"].is_number()) << b;
  EXPECT_EQ(b["resolved"], false) << "1 vs 1 run can resolve nothing";
  // The bench case without the periodic task ran without cyclictest.
  const json plan = json::parse(read_text_or_empty(dir.file("c/campaign.json")));
  bool found = false;
  for (const json& c : plan["plan"]["cases"]) {
    if (c["label"] != b["without_case"]) continue;
    found = true;
    const auto args = c["run_args"].get<std::vector<std::string>>();
    const auto at = std::find(args.begin(), args.end(), "--baseline");
    ASSERT_NE(at, args.end());
    EXPECT_EQ(*(at + 1), "none");
  }
  EXPECT_TRUE(found) << plan.dump();
}

}  // namespace
}  // namespace xrunlab::testing_support
