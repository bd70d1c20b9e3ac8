// SPDX-License-Identifier: GPL-2.0-or-later
// Campaign plans (engine/campaign/campaign_plan.hpp): the cases as the axes' product, each
// case's `xrunlab run` arguments, the seeded blocked order, and values refused before anything
// runs, naming the file's line.
#include "engine/campaign/campaign_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

// A stand-in for `run`'s parser: refuses the policy "bogus" and a period of 100.
void check(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--policy" && args[i + 1] == "bogus") {
      throw Error(ExitCode::kUsage, "--policy 'bogus': unknown policy");
    }
    if (args[i] == "--period" && args[i + 1] == "100") {
      throw Error(ExitCode::kUsage, "--period 100: not a power of two");
    }
  }
}

CampaignSpec spec_of(const std::string& text) {
  return parse_campaign(text, "c.toml");
}

const char* kTwoAxes = R"(name = "p"
repetitions = 3
seed = 7
[run]
clients = 3
duration = 2
plots = false
[axes]
policy = ["fifo", "other:-5"]
load = ["none", "compile"]
)";

TEST(CampaignPlan, TheCasesAreTheProductWithTheLastAxisFastest) {
  const CampaignPlan p = plan_campaign(spec_of(kTwoAxes), 1, std::nullopt, check);
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_EQ(p.cases[0].name, "fifo, none");
  EXPECT_EQ(p.cases[1].name, "fifo, compile");
  EXPECT_EQ(p.cases[2].name, "other:-5, none");
  EXPECT_EQ(p.cases[3].label, "04-other-5-compile");
  EXPECT_EQ(p.cases[0].run_args, (std::vector<std::string>{"--clients", "3", "--duration", "2",
                                                           "--no-plots", "--policy", "fifo"}))
      << "load 'none' is no --load";
  EXPECT_EQ(p.cases[1].run_args,
            (std::vector<std::string>{"--clients", "3", "--duration", "2", "--no-plots", "--policy",
                                      "fifo", "--load", "compile"}));
  EXPECT_DOUBLE_EQ(p.duration_s, 2.0);
  EXPECT_EQ(p.seed, 7u) << "the file's seed wins over the one drawn";
}

TEST(CampaignPlan, RunCpusAndLoadCpusBecomeTheRunsFlags) {
  const CampaignPlan p = plan_campaign(spec_of(R"(name = "pinned"
[run]
duration = 2
cpus = "0"
load = "cpu:1"
load-cpus = 1
)"),
                                       1, std::nullopt, check);
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].run_args, (std::vector<std::string>{"--duration", "2", "--cpus", "0",
                                                           "--load", "cpu:1", "--load-cpus", "1"}));
}

TEST(CampaignPlan, ExplainTrueIsTheFlagAloneANumberItsValueAndFalseNothing) {
  const auto args_of = [](const std::string& value) {
    const CampaignPlan p =
        plan_campaign(spec_of("name = \"traced\"\n[run]\nduration = 2\nexplain = " + value + "\n"),
                      1, std::nullopt, check);
    return p.cases.at(0).run_args;
  };
  EXPECT_EQ(args_of("true"), (std::vector<std::string>{"--duration", "2", "--explain"}));
  EXPECT_EQ(args_of("12"), (std::vector<std::string>{"--duration", "2", "--explain=12"}));
  EXPECT_EQ(args_of("false"), (std::vector<std::string>{"--duration", "2"}));
}

TEST(CampaignPlan, PingTrueIsTheFlagWithItsRateAndTheSectionsCarryOver) {
  const CampaignPlan p = plan_campaign(
      spec_of("name = \"net\"\nsections = [\"maxima-spread\"]\n[run]\nduration = 2\nping = true\n"
              "ping-rate = 50\n"),
      1, std::nullopt, check);
  EXPECT_EQ(p.cases.at(0).run_args,
            (std::vector<std::string>{"--duration", "2", "--ping", "--ping-rate", "50"}));
  EXPECT_EQ(p.sections, std::vector<std::string>{"maxima-spread"});
  const CampaignPlan off = plan_campaign(
      spec_of("name = \"net\"\n[run]\nduration = 2\nping = false\n"), 1, std::nullopt, check);
  EXPECT_EQ(off.cases.at(0).run_args, (std::vector<std::string>{"--duration", "2"}));
}

TEST(CampaignPlan, ShuffledIsBlockedEveryRoundRunsEveryCaseOnce) {
  const CampaignPlan p = plan_campaign(spec_of(kTwoAxes), 1, std::nullopt, check);
  ASSERT_EQ(p.runs.size(), 12u);
  for (int round = 0; round < 3; ++round) {
    std::set<int> cases;
    for (int i = 0; i < 4; ++i) {
      const PlannedRun& r = p.runs[static_cast<size_t>(round * 4 + i)];
      cases.insert(r.case_index);
      EXPECT_EQ(r.rep, round + 1);
      EXPECT_EQ(r.index, round * 4 + i + 1);
    }
    EXPECT_EQ(cases.size(), 4u) << "round " << round;
  }
}

TEST(CampaignPlan, TheSameSeedGivesTheSameOrderAnotherSeedAnother) {
  // mt19937_64 is specified bit for bit: seed 7's first rounds are fixed everywhere.
  EXPECT_EQ(blocked_order(4, 2, 7), blocked_order(4, 2, 7));
  EXPECT_NE(blocked_order(4, 3, 7), blocked_order(4, 3, 8));
  std::vector<int> all = blocked_order(5, 1, 123);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(CampaignPlan, SequentialRunsEveryRepetitionOfACaseThenTheNext) {
  const CampaignPlan p = plan_campaign(spec_of(kTwoAxes), 1, std::string("sequential"), check);
  ASSERT_EQ(p.runs.size(), 12u);
  EXPECT_EQ(p.runs[0].case_index, 1);
  EXPECT_EQ(p.runs[2].case_index, 1);
  EXPECT_EQ(p.runs[2].rep, 3);
  EXPECT_EQ(p.runs[3].case_index, 2);
  EXPECT_EQ(p.order, "sequential");
}

TEST(CampaignPlan, AWarmUpRunsFirstWithItsOwnDuration) {
  const CampaignPlan p =
      plan_campaign(spec_of("name = \"w\"\nwarmup_s = 3\n[run]\nduration = 10\nclients = 2\n"), 1,
                    std::nullopt, check);
  ASSERT_EQ(p.runs.size(), 2u);
  EXPECT_TRUE(p.runs[0].warmup);
  EXPECT_EQ(p.runs[0].rep, 0);
  EXPECT_EQ(p.warmup_args, (std::vector<std::string>{"--clients", "2", "--duration", "3"}))
      << "the case's own --duration is replaced, not given twice";
  EXPECT_DOUBLE_EQ(measured_seconds(p, p.runs[0]), 3.0);
  EXPECT_DOUBLE_EQ(measured_seconds(p, p.runs[1]), 10.0);
  EXPECT_EQ(p.cases[0].name, "default");
}

TEST(CampaignPlan, ABadAxisValueIsRefusedNamingItsLineBeforeAnythingRuns) {
  try {
    plan_campaign(spec_of("name = \"b\"\n[axes]\npolicy = [\"fifo\", \"bogus\"]\n"), 1,
                  std::nullopt, check);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.toml:3: [axes] policy 'bogus': --policy 'bogus': unknown policy");
  }
  try {
    plan_campaign(spec_of("name = \"b\"\n[run]\nperiod = 100\n"), 1, std::nullopt, check);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "c.toml:3: [run] period: --period 100: not a power of two");
  }
}

TEST(CampaignPlan, ExtraCasesFollowTheProductWithTheirOptionsReplacingRuns) {
  const CampaignPlan p = plan_campaign(spec_of(R"(name = "x"
repetitions = 2
[run]
clients = 3
baseline = "cyclictest"
duration = 2
[axes]
load = ["none", "cpu:1"]
[[cases]]
name = "bench alone"
load = "bench"
baseline = "none"
[[cases]]
load = ["bench", "cpu:2"]
)"),
                                       1, std::nullopt, check);
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_EQ(p.cases[2].index, 3);
  EXPECT_EQ(p.cases[2].name, "bench alone");
  EXPECT_EQ(p.cases[2].label, "03-bench-alone");
  EXPECT_EQ(p.cases[2].run_args,
            (std::vector<std::string>{"--clients", "3", "--duration", "2", "--load", "bench",
                                      "--baseline", "none"}))
      << "[run]'s baseline replaced, not given twice";
  EXPECT_EQ(p.cases[2].axes, (std::vector<std::pair<std::string, std::string>>{
                                 {"load", "bench"}, {"baseline", "none"}}));
  EXPECT_EQ(p.cases[3].name, "load bench+cpu:2");
  EXPECT_EQ(p.cases[3].run_args,
            (std::vector<std::string>{"--clients", "3", "--baseline", "cyclictest", "--duration",
                                      "2", "--load", "bench", "--load", "cpu:2"}));
  EXPECT_EQ(p.runs.size(), 8u) << "every case, extra ones too, repeated";
}

TEST(CampaignPlan, ABadExtraCaseIsRefusedNamingItsLine) {
  try {
    plan_campaign(spec_of("name = \"b\"\n[[cases]]\npolicy = \"bogus\"\n"), 1, std::nullopt, check);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "c.toml:2: [[cases]] policy bogus: --policy 'bogus': unknown policy");
  }
}

TEST(CampaignPlan, RunRepeatIsOneCaseRunNTimes) {
  const CampaignPlan p =
      plan_single_case("My Run", {"--clients", "2", "--duration", "4"}, 3, check);
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].label, "my-run");
  EXPECT_EQ(p.cases[0].run_args, (std::vector<std::string>{"--clients", "2", "--duration", "4"}));
  ASSERT_EQ(p.runs.size(), 3u);
  EXPECT_EQ(p.runs[2].rep, 3);
  EXPECT_DOUBLE_EQ(p.duration_s, 4.0);
  EXPECT_THROW(plan_single_case("x", {"--policy", "bogus"}, 2, check), Error);
}

TEST(CampaignPlan, ThePlansJsonIdentifiesWhatRuns) {
  const CampaignPlan a = plan_campaign(spec_of(kTwoAxes), 1, std::nullopt, check);
  const CampaignPlan b = plan_campaign(spec_of(kTwoAxes), 99, std::nullopt, check);
  EXPECT_EQ(plan_json(a), plan_json(b)) << "the file's seed fixes the order";
  const CampaignPlan c = plan_campaign(spec_of(kTwoAxes), 1, std::string("sequential"), check);
  EXPECT_NE(plan_json(a), plan_json(c));
  EXPECT_EQ(plan_json(a)["cases"][1]["run_args"].size(), 9u);
}

}  // namespace
}  // namespace xrunlab
