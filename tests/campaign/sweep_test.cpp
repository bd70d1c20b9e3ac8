// SPDX-License-Identifier: GPL-2.0-or-later
// The sweep's search and what it says, on a fake measurement (the steps' runs are real in
// tests/integration/sweep_integration_test.cpp): how many steps each search takes, which
// cells it measures, the answer, the rule of three and the refusal of bad lists.
#include "engine/campaign/sweep.hpp"

#include <gtest/gtest.h>

#include <map>
#include <utility>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

SweepSpec spec(std::vector<uint32_t> periods, std::vector<int> clients, std::string search) {
  SweepSpec s;
  s.periods = std::move(periods);
  s.clients = std::move(clients);
  s.search = std::move(search);
  s.duration_s = 60;
  s.repetitions = 3;
  return s;
}

// A machine on which `clients` clients run clean from period threshold(clients) up; dirty steps
// drop out `rate` times per minute. Counts every step it is asked for.
struct FakeMachine {
  explicit FakeMachine(std::function<uint32_t(int)> t) : threshold(std::move(t)) {}
  std::function<uint32_t(int)> threshold;
  double rate = 4;
  std::vector<std::pair<int, uint32_t>> asked;
  StepOutcome operator()(int clients, uint32_t period) {
    asked.emplace_back(clients, period);
    SweepStep s;
    s.clients = clients;
    s.period = period;
    if (period >= threshold(clients)) {
      s.runs = 3;
      s.seconds = 180;
    } else {
      s.runs = 1;  // a dirty step ends after its first run
      s.seconds = 60;
      s.xruns = static_cast<uint64_t>(rate);
      s.glitches = static_cast<uint64_t>(rate) - 1;
      s.dropouts = static_cast<uint64_t>(rate);
    }
    return {s, 0};
  }
};

TEST(SweepSearch, BisectionTakesLog2StepsAndMeasuresBothSidesOfTheAnswer) {
  const SweepSpec s = spec({64, 128, 256, 512, 1024}, {14}, "bisect");
  FakeMachine m{[](int) { return 256u; }};
  const SweepGrid g = search_sweep(s, std::ref(m));
  EXPECT_EQ(g.exit_code, 0);
  ASSERT_EQ(m.asked.size(), 3u);  // ceil(log2(5 + 1))
  EXPECT_EQ(m.asked[0].second, 256u);
  const SweepAnswer a = sweep_answer(s, g, 14);
  ASSERT_NE(a.clean, nullptr);
  ASSERT_NE(a.dirty, nullptr);
  EXPECT_EQ(a.clean->period, 256u);
  EXPECT_EQ(a.dirty->period, 128u);
  EXPECT_FALSE(a.smallest_listed_clean);
}

TEST(SweepSearch, BisectionWhenEveryOrNoPeriodIsClean) {
  const SweepSpec s = spec({64, 128, 256, 512, 1024}, {4}, "bisect");
  FakeMachine all{[](int) { return 1u; }};
  const SweepGrid g1 = search_sweep(s, std::ref(all));
  const SweepAnswer a1 = sweep_answer(s, g1, 4);
  ASSERT_NE(a1.clean, nullptr);
  EXPECT_EQ(a1.clean->period, 64u);
  EXPECT_EQ(a1.dirty, nullptr);
  EXPECT_TRUE(a1.smallest_listed_clean);
  FakeMachine none{[](int) { return 100000u; }};
  const SweepGrid g2 = search_sweep(s, std::ref(none));
  const SweepAnswer a2 = sweep_answer(s, g2, 4);
  EXPECT_EQ(a2.clean, nullptr);
  ASSERT_NE(a2.dirty, nullptr);
  EXPECT_EQ(a2.dirty->period, 1024u);
  EXPECT_NE(sweep_recommendation(s, g2).find("no listed period ran without dropouts"),
            std::string::npos);
  // A larger client count after one with no clean period is not measured, and says why.
  const SweepSpec two = spec({64, 128, 256, 512, 1024}, {4, 14}, "bisect");
  FakeMachine none2{[](int) { return 100000u; }};
  const SweepGrid g3 = search_sweep(two, std::ref(none2));
  EXPECT_EQ(none2.asked.size(), 3u);
  EXPECT_NE(sweep_recommendation(two, g3).find("14 clients: not measured: with 4 clients no "
                                               "listed period ran without dropouts"),
            std::string::npos)
      << sweep_recommendation(two, g3);
}

TEST(SweepSearch, MoreClientsStartWhereFewerEndedAndNothingIsMeasuredTwice) {
  const SweepSpec s = spec({64, 128, 256, 512, 1024, 2048}, {2, 8, 16}, "bisect");
  FakeMachine m{[](int c) { return c <= 2 ? 64u : c <= 8 ? 256u : 1024u; }};
  const SweepGrid g = search_sweep(s, std::ref(m));
  std::map<std::pair<int, uint32_t>, int> seen;
  for (const auto& k : m.asked) EXPECT_EQ(++seen[k], 1) << k.first << " " << k.second;
  EXPECT_EQ(sweep_answer(s, g, 2).clean->period, 64u);
  EXPECT_EQ(sweep_answer(s, g, 8).clean->period, 256u);
  EXPECT_EQ(sweep_answer(s, g, 16).clean->period, 1024u);
  EXPECT_EQ(sweep_answer(s, g, 16).dirty->period, 512u);
  // 8 clients never re-measures a period below 2 clients' answer as dirty: none was dirty;
  // 16 clients searches only above 8 clients' largest dirty period (128).
  for (const auto& k : m.asked) {
    if (k.first == 16) {
      EXPECT_GT(k.second, 128u);
    }
  }
}

TEST(SweepSearch, DescendingStopsAfterTheFirstDropoutAndAllMeasuresEveryCell) {
  const SweepSpec d = spec({64, 128, 256, 512}, {4}, "descending");
  FakeMachine m{[](int) { return 256u; }};
  search_sweep(d, std::ref(m));
  ASSERT_EQ(m.asked.size(), 3u);  // 512, 256 clean, 128 dirty: stop
  EXPECT_EQ(m.asked.back().second, 128u);
  const SweepSpec a = spec({64, 128, 256, 512}, {4, 8}, "all");
  FakeMachine n{[](int) { return 256u; }};
  const SweepGrid g = search_sweep(a, std::ref(n));
  EXPECT_EQ(n.asked.size(), 8u);
  EXPECT_EQ(g.steps.size(), 8u);
}

TEST(SweepSearch, AStepThatCannotFinishStopsTheSearchWithItsCode) {
  const SweepSpec s = spec({64, 128, 256, 512, 1024}, {4, 8}, "bisect");
  int calls = 0;
  const SweepGrid g = search_sweep(s, [&](int, uint32_t p) -> StepOutcome {
    if (++calls == 2) return {std::nullopt, 130};
    SweepStep st;
    st.period = p;
    st.clients = 4;
    st.runs = 3;
    st.seconds = 180;
    return {st, 0};
  });
  EXPECT_EQ(g.exit_code, 130);
  EXPECT_EQ(g.steps.size(), 1u);
}

TEST(SweepReport, TheRecommendationStatesTheRuleOfThreeAndTheNextPeriodsRate) {
  const SweepSpec s = spec({64, 128, 256, 512, 1024}, {14}, "bisect");
  FakeMachine m{[](int) { return 256u; }};
  const SweepGrid g = search_sweep(s, std::ref(m));
  const std::string r = sweep_recommendation(s, g);
  // 0 in 3 x 60 s: below 3 / 180 s = 1.0 per minute at 95 %.
  EXPECT_NE(r.find("14 clients: 256 frames at 48 kHz (5.3 ms): 0 dropouts in 3 x 60 s, fewer "
                   "than 1.0 per minute at 95 % confidence (for fewer than 1 per hour, run 3 h "
                   "without one)."),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("128 frames: 4.0 dropouts per minute (4 dropouts in 1 x 60 s)."),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("bisection: it assumes"), std::string::npos);
  const std::string t = sweep_table(s, g);
  EXPECT_NE(t.find("drops out"), std::string::npos) << t;
  EXPECT_NE(t.find("< 1.00"), std::string::npos) << t;
  const nlohmann::json j = sweep_json(s, g);
  EXPECT_EQ(j["answers"][0]["smallest_clean_period"], 256);
  EXPECT_EQ(j["answers"][0]["largest_dirty_period_below"], 128);
  EXPECT_EQ(j["steps"].size(), 3u);
  EXPECT_DOUBLE_EQ(j["steps"][0]["bound_per_min_95"].get<double>(), 1.0);
}

TEST(SweepReport, TheCheckVerdictIsOneParagraphAMusicianCanActOn) {
  SweepSpec s = spec({64, 128, 256, 512, 1024}, {14}, "bisect");
  s.duration_s = 10;
  s.repetitions = 2;
  FakeMachine m{[](int) { return 256u; }};
  SweepGrid g = search_sweep(s, std::ref(m));
  for (SweepStep& st : g.steps) {  // the fake's clean steps are 3 x 60 s; make them 2 x 10 s
    if (st.clean()) {
      st.runs = 2;
      st.seconds = 20;
    }
  }
  EXPECT_EQ(
      check_verdict(s, g, 30, "CPU governor is powersave (see xrunlab doctor)."),
      "This machine can run 14 clients at 30 % DSP load with 256-frame periods (5.3 ms at "
      "48 kHz) without dropouts: 0 in 2 x 10 s, fewer than 9.0 per minute at 95 % "
      "confidence; at 128 frames it dropped out 4.0 times a minute. For a tighter claim, "
      "run `xrunlab sweep` with a longer --duration. Fix first: CPU governor is powersave (see "
      "xrunlab doctor).");
  FakeMachine none{[](int) { return 100000u; }};
  const SweepGrid g2 = search_sweep(s, std::ref(none));
  EXPECT_EQ(check_verdict(s, g2, 30, ""),
            "This machine dropped out with 14 clients at 30 % DSP load at every period tried, up "
            "to 1024 frames (21.3 ms): 4.0 times a minute there.");
}

TEST(SweepReport, HeatmapRowsAreTheMeasuredCellsOnly) {
  const SweepSpec s = spec({64, 128, 256, 512, 1024}, {14}, "bisect");
  FakeMachine m{[](int) { return 256u; }};
  const SweepGrid g = search_sweep(s, std::ref(m));
  const std::string d = sweep_heatmap_data(s, g);
  size_t rows = 0;
  for (char ch : d) rows += ch == '\n';
  EXPECT_EQ(rows, 1u + 3u);  // the header and one row per measured step
  EXPECT_NE(d.find("0 2 0 \"0 in 3 x 60 s\""), std::string::npos) << d;
  EXPECT_NE(d.find("0 1 4 \"4.0/min\""), std::string::npos) << d;
}

TEST(SweepReport, PeriodTextAndTheDefaultNameFollowTheSettings) {
  EXPECT_EQ(period_text(256, 48000), "256 frames at 48 kHz (5.3 ms)");
  EXPECT_EQ(period_text(128, 44100), "128 frames at 44.1 kHz (2.9 ms)");
  SweepSpec a = spec({64, 128}, {4}, "bisect");
  SweepSpec b = a;
  EXPECT_EQ(default_sweep_name(a), default_sweep_name(b));
  b.run_args = {"--policy", "rr"};
  EXPECT_NE(default_sweep_name(a), default_sweep_name(b));
  EXPECT_EQ(default_sweep_name(a).rfind("sweep-", 0), 0u);
}

TEST(SweepLists, BadListsAreRefusedNamingTheFlag) {
  EXPECT_EQ(parse_positive_list("--periods", "512,64,128", 16, 8192),
            (std::vector<uint32_t>{64, 128, 512}));
  for (const char* bad : {"", "64,,128", "64,abc", "8", "64,64", "-64"}) {
    try {
      parse_positive_list("--periods", bad, 16, 8192);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find("--periods"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace xrunlab
