// SPDX-License-Identifier: GPL-2.0-or-later
// The trend and the regression check on hand-made histories: a real shift between two kernels
// is flagged, by the campaigns' test; the same kernel's runs under two names are not; a single
// run never is; settings are kept apart; only completed runs count.
#include "engine/history/history_trend.hpp"

#include <gtest/gtest.h>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

const size_t kDelay = history_figure_index(*find_history_figure("delay_max"));
const size_t kSlack = history_figure_index(*find_history_figure("slack_p1"));

struct Maker {
  int n = 0;
  HistoryRow make(const std::string& kernel, double delay, int period = 256) {
    HistoryRow r;
    ++n;
    r.run_id = "run-" + std::to_string(n);
    r.started_utc = fmt::format("2026-12-{:02}T{:02}:00:00Z", 1 + n / 24, n % 24);
    r.status = "completed";
    r.host = "box";
    r.kernel = kernel;
    r.backend = "vcard";
    r.policy = "SCHED_FIFO 70";
    r.period = period;
    r.clients = 4;
    r.ports = 4;
    r.figures[kDelay] = delay;
    r.figures[kSlack] = 5000 - delay;
    return r;
  }
};

// Runs of the same noise around `centre` (a fixed pattern: the test is exact, not random).
std::vector<double> around(double centre) {
  return {centre - 7, centre + 3, centre - 2, centre + 8, centre - 5, centre + 1};
}

TEST(HistoryTrend, AShiftBetweenTwoKernelsIsARegressionOnThatFigure) {
  Maker m;
  std::vector<HistoryRow> rows;
  for (double d : around(100)) rows.push_back(m.make("6.1-a", d));
  for (double d : around(160)) rows.push_back(m.make("6.1-b", d));
  const HistoryReport r = history_report(rows, {}, {"delay_max", "slack_p1"});
  ASSERT_EQ(r.settings.size(), 1u);
  const SettingHistory& s = r.settings[0];
  ASSERT_EQ(s.kernels.size(), 2u);
  EXPECT_EQ(s.kernels[0].kernel, "6.1-a");  // by first run
  EXPECT_EQ(s.kernels[0].runs, 6u);
  EXPECT_EQ(*s.kernels[1].figures[0].median, 159.5);  // 153 155 158 161 163 168
  ASSERT_EQ(s.steps.size(), 2u);
  EXPECT_EQ(r.comparisons, 2u);
  for (const KernelStep& st : s.steps) {
    EXPECT_TRUE(st.regression) << st.verdict.sentence;  // delay up, slack down: both worse
    EXPECT_FALSE(st.improvement);
    EXPECT_TRUE(st.verdict.resolved);
  }
  EXPECT_EQ(r.regressions, 2u);
  const std::string text = history_text(r, false);
  EXPECT_NE(text.find("REGRESSION on 6.1-b (Delay Maximum): 6.1-a: lower Delay Maximum than 6.1-b"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("2 regressions among 2 comparisons"), std::string::npos) << text;
}

TEST(HistoryTrend, TheSameKernelUnderTwoNamesIsNoRegression) {
  Maker m;
  std::vector<HistoryRow> rows;
  const std::vector<double> v = around(100);
  // One kernel's runs, relabelled in two halves: a null.
  for (size_t i = 0; i < v.size(); ++i) rows.push_back(m.make(i < 3 ? "same-1" : "same-2", v[i]));
  for (size_t i = 0; i < v.size(); ++i) rows.push_back(m.make(i % 2 ? "same-1" : "same-2", v[i]));
  const HistoryReport r = history_report(rows, {}, {"delay_max"});
  ASSERT_EQ(r.settings.size(), 1u);
  EXPECT_EQ(r.regressions, 0u);
  for (const KernelStep& st : r.settings[0].steps) {
    EXPECT_FALSE(st.regression);
    EXPECT_FALSE(st.verdict.resolved) << st.verdict.sentence;
  }
}

TEST(HistoryTrend, ASingleRunIsNeverARegressionHoweverFarOff) {
  Maker m;
  std::vector<HistoryRow> rows;
  for (double d : around(100)) rows.push_back(m.make("6.1-a", d));
  rows.push_back(m.make("6.1-b", 100000));
  const HistoryReport r = history_report(rows, {}, {"delay_max"});
  ASSERT_EQ(r.settings[0].steps.size(), 1u);
  EXPECT_FALSE(r.settings[0].steps[0].regression);
  EXPECT_EQ(r.regressions, 0u);
  EXPECT_EQ(r.settings[0].steps[0].verdict.n_b, 1u);
}

TEST(HistoryTrend, AnImprovementIsNamedAndIsNoRegression) {
  Maker m;
  std::vector<HistoryRow> rows;
  for (double d : around(160)) rows.push_back(m.make("old", d));
  for (double d : around(100)) rows.push_back(m.make("new", d));
  const HistoryReport r = history_report(rows, {}, {"delay_max"});
  ASSERT_EQ(r.settings[0].steps.size(), 1u);
  EXPECT_TRUE(r.settings[0].steps[0].improvement);
  EXPECT_EQ(r.regressions, 0u);
}

TEST(HistoryTrend, SettingsAreFollowedApartAndOnlyCompletedRunsCount) {
  Maker m;
  std::vector<HistoryRow> rows;
  for (double d : around(100)) rows.push_back(m.make("a", d, 256));
  for (double d : around(300)) rows.push_back(m.make("b", d, 128));  // another setting
  HistoryRow killed = m.make("b", 1e6, 256);
  killed.status = "interrupted";
  rows.push_back(killed);
  const HistoryReport r = history_report(rows, {}, {"delay_max"});
  ASSERT_EQ(r.settings.size(), 2u);
  EXPECT_EQ(r.rows_total, 13u);
  EXPECT_EQ(r.rows_counted, 12u);
  for (const SettingHistory& s : r.settings) {
    EXPECT_EQ(s.kernels.size(), 1u) << s.text;
    EXPECT_TRUE(s.steps.empty());
  }
  HistoryFilter only128;
  only128.period = 128;
  const HistoryReport f = history_report(rows, only128, {"delay_max"});
  ASSERT_EQ(f.settings.size(), 1u);
  EXPECT_EQ(f.settings[0].kernels[0].kernel, "b");
}

TEST(HistoryTrend, TheTestsOfAReportAreAdjustedTogether) {
  // 2 settings x 1 figure: each p is adjusted for 2 comparisons.
  Maker m;
  std::vector<HistoryRow> rows;
  for (double d : around(100)) rows.push_back(m.make("a", d, 256));
  for (double d : around(160)) rows.push_back(m.make("b", d, 256));
  for (double d : around(100)) rows.push_back(m.make("a", d, 128));
  for (double d : around(101)) rows.push_back(m.make("b", d, 128));
  const HistoryReport r = history_report(rows, {}, {"delay_max"});
  EXPECT_EQ(r.comparisons, 2u);
  for (const SettingHistory& s : r.settings) {
    ASSERT_EQ(s.steps.size(), 1u);
    EXPECT_EQ(s.steps[0].verdict.comparisons, 2u);
    ASSERT_TRUE(s.steps[0].verdict.q.has_value());
  }
  EXPECT_EQ(r.regressions, 1u);
}

TEST(HistoryTrend, AnUnknownFigureIsAUsageErrorNamingIt) {
  try {
    (void)history_report({}, {}, {"latency"});
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("'latency'"), std::string::npos) << e.what();
  }
}

TEST(HistoryTrend, ThePlotDataHasABlockPerKernelAndNaNForAMissingFigure) {
  Maker m;
  std::vector<HistoryRow> rows = {m.make("a", 100), m.make("b", 200)};
  rows[1].figures[kSlack].reset();
  const HistoryReport r = history_report(rows, {}, {"delay_max", "slack_p1"});
  const std::string data = history_plot_data(r, r.settings[0]);
  EXPECT_NE(data.find("# kernel a\n"), std::string::npos) << data;
  EXPECT_NE(data.find("\n\n\n# kernel b\n"), std::string::npos) << data;
  EXPECT_NE(data.find(" 200 NaN\n"), std::string::npos) << data;
}

}  // namespace
}  // namespace xrunlab
