#include "engine/result/run_json.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tests/support/files.hpp"
#include "tests/support/sample_result.hpp"

namespace xrunlab {
namespace {

TEST(ReportJson, MatchesGoldenFile) {
  RunResult r = testing_support::sample_result();
  r.schema_version = 1;
  r.xrunlab_version = "0.1.0";
  r.command_line = {"xrunlab", "run", "--clients", "2"};
  r.started_utc = "2026-11-30T10:00:00Z";
  r.ended_utc = "2026-11-30T10:00:03Z";
  r.graph = {{"system:capture_1", "xrunlab-c1:in_1"}, {"xrunlab-c1:out_1", "xrunlab-c2:in_1"}};
  testing_support::expect_golden("run_basic.json", to_json(r).dump(2) + "\n");
}

TEST(ReportJson, PercentilesSayWhetherTheyAreExact) {
  const auto j = to_json(testing_support::sample_result());
  const auto& p999 = j["totals"]["delay_us"]["p99_9"];
  EXPECT_TRUE(p999.contains("value_us"));
  EXPECT_TRUE(p999["exact"].get<bool>());
}

TEST(ReportJson, EmptyRunHasNullsNotZeros) {
  RunResult r;
  finalize(r);
  const auto j = to_json(r);
  EXPECT_TRUE(j["totals"]["delay_us"]["max"].is_null());
  EXPECT_TRUE(j["totals"]["avg_dsp_load_pct"].is_null());
  EXPECT_EQ(j["clients"].size(), 0u);
}

TEST(ReportJson, PerSecondRowsMatchTheirColumns) {
  const auto j = to_json(testing_support::sample_result());
  const auto& ps = j["clients"][0]["per_second"];
  ASSERT_EQ(ps["rows"].size(), 3u);
  for (const auto& row : ps["rows"]) EXPECT_EQ(row.size(), ps["columns"].size());
}

}  // namespace
}  // namespace xrunlab
