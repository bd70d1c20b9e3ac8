// SPDX-License-Identifier: GPL-2.0-or-later
// --lava's test cases (engine/report/lava.hpp): the lines, LAVA's characters in names, skip for
// a figure the run lacks, fail for a crossed or unmeasured threshold, measurements without an
// exponent.
#include "engine/report/lava.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <limits>
#include <map>

namespace xrunlab {
namespace {

using Figures = std::map<std::string, double>;

std::vector<std::string> lines(const std::vector<LavaCase>& cases) {
  std::vector<std::string> out;
  for (const LavaCase& c : cases) out.push_back(lava_line(c));
  return out;
}

std::vector<LavaCase> cases_of(const std::string& label, bool completed, const Figures& figures,
                               const std::vector<std::string>& fail_if = {},
                               std::optional<size_t> runs = std::nullopt) {
  std::vector<Threshold> thresholds;
  for (const std::string& t : fail_if) thresholds.push_back(parse_threshold(t));
  return lava_cases(
      label, completed, runs,
      [&figures](const std::string& name) -> std::optional<double> {
        auto it = figures.find(name);
        if (it == figures.end()) return std::nullopt;
        return it->second;
      },
      thresholds);
}

TEST(Lava, EveryFigureOfARunIsOneLineInLavaTestCaseForm) {
  const Figures f = {{"xrun_count", 2}, {"delay_max", 268.25}, {"cycle_max", 781},
                     {"xruns", 0},      {"slack_p1", -12.5},   {"wakeup_p99", 31.125}};
  const std::vector<std::string> expected = {
      "lava-test-case demo-run --result pass",
      "lava-test-case demo-xrun_count --result pass --measurement 2 --units count",
      "lava-test-case demo-delay_max --result pass --measurement 268.25 --units us",
      "lava-test-case demo-cycle_max --result pass --measurement 781 --units us",
      "lava-test-case demo-xruns --result pass --measurement 0 --units count",
      "lava-test-case demo-slack_p1 --result pass --measurement -12.5 --units us",
      "lava-test-case demo-wakeup_p99 --result pass --measurement 31.125 --units us"};
  EXPECT_EQ(lines(cases_of("demo", true, f)), expected);
}

TEST(Lava, AnIncompleteRunFailsItsRunCase) {
  const auto c = cases_of("demo", false, {});
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(lava_line(c.front()), "lava-test-case demo-run --result fail");
}

TEST(Lava, AFigureTheRunLacksIsSkippedWithoutMeasurementNeverZero) {
  const auto c = cases_of("demo", true, {{"xruns", 3}});
  ASSERT_EQ(c.size(), 1 + lava_figures().size());
  for (const LavaCase& k : c) {
    if (k.name == "demo-run" || k.name == "demo-xruns") {
      EXPECT_EQ(k.result, "pass") << k.name;
      continue;
    }
    EXPECT_EQ(k.result, "skip") << k.name;
    EXPECT_FALSE(k.measurement) << k.name;
    EXPECT_EQ(lava_test_case_argv(k).size(), 4u) << k.name;
  }
  EXPECT_EQ(lava_line(c[2]), "lava-test-case demo-delay_max --result skip");
}

TEST(Lava, ACrossedThresholdFailsItsFigureAndOnlyThat) {
  const auto c =
      cases_of("demo", true, {{"xruns", 3}, {"delay_max", 1500}}, {"xruns>0", "delay_max>=2ms"});
  std::map<std::string, std::string> result;
  for (const LavaCase& k : c) result[k.name] = k.result;
  EXPECT_EQ(result["demo-xruns"], "fail");
  EXPECT_EQ(result["demo-delay_max"], "pass");  // 1500 us < 2 ms
  EXPECT_EQ(result["demo-run"], "pass");
  // The failing case still carries its measurement.
  for (const LavaCase& k : c) {
    if (k.name == "demo-xruns") {
      EXPECT_EQ(lava_line(k),
                "lava-test-case demo-xruns --result fail --measurement 3 --units count");
    }
  }
}

TEST(Lava, AThresholdOnAnUnmeasuredFigureFailsAsJunitSays) {
  const auto c = cases_of("demo", true, {}, {"cycle_max>1ms"});
  bool seen = false;
  for (const LavaCase& k : c) {
    if (k.name != "demo-cycle_max") continue;
    seen = true;
    EXPECT_EQ(lava_line(k), "lava-test-case demo-cycle_max --result fail");
  }
  EXPECT_TRUE(seen);
}

TEST(Lava, AThresholdOnAnotherFigureAddsItsCaseAtTheEnd) {
  const auto c = cases_of("demo", true, {{"dsp_load", 41.5}}, {"dsp_load>50"});
  ASSERT_EQ(c.size(), 1 + lava_figures().size() + 1);
  EXPECT_EQ(lava_line(c.back()),
            "lava-test-case demo-dsp_load --result pass --measurement 41.5 --units percent");
  // Named once even when two thresholds name it.
  EXPECT_EQ(cases_of("demo", true, {}, {"xruns>0", "xruns>=5"}).size(), 1 + lava_figures().size());
}

TEST(Lava, ACampaignCaseReportsItsRunsAndFailsWithoutAny) {
  auto c = cases_of("fifo 128", true, {{"xruns", 1}}, {}, 5);
  EXPECT_EQ(lava_line(c.front()),
            "lava-test-case fifo_128-runs --result pass --measurement 5 --units runs");
  EXPECT_EQ(lava_line(c[4]),
            "lava-test-case fifo_128-xruns --result pass --measurement 1 --units count");
  c = cases_of("fifo", false, {}, {}, 0);
  EXPECT_EQ(lava_line(c.front()),
            "lava-test-case fifo-runs --result fail --measurement 0 --units runs");
}

TEST(Lava, NamesKeepOnlyLavasCharacters) {
  EXPECT_EQ(lava_name("policy=rr:80 load=compile"), "policy_rr_80_load_compile");
  EXPECT_EQ(lava_name("jack_test4-period.128"), "jack_test4-period.128");
  EXPECT_EQ(lava_name("a/b\"c'd$e;f"), "a_b_c_d_e_f");
  EXPECT_EQ(lava_name(""), "_");
  EXPECT_EQ(lava_name("é"), "__");  // UTF-8: each byte
  const auto c = cases_of("x y", true, {});
  for (const LavaCase& k : c) {
    for (const char ch : k.name) {
      EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' ||
                  ch == '.')
          << k.name;
    }
  }
}

TEST(Lava, UnitsAreLavaWords) {
  EXPECT_EQ(lava_units("delay_max"), "us");
  EXPECT_EQ(lava_units("xrun_count"), "count");
  EXPECT_EQ(lava_units("dsp_load"), "percent");
  EXPECT_EQ(lava_units("xrun_rate"), "/min");
  EXPECT_EQ(lava_units("bench_job_ms"), "ms");
}

TEST(Lava, MeasurementsHaveNoExponentAndEnoughDigits) {
  EXPECT_EQ(lava_measurement(0), "0");
  EXPECT_EQ(lava_measurement(-0.0), "0");
  EXPECT_EQ(lava_measurement(3), "3");
  EXPECT_EQ(lava_measurement(123.5), "123.5");
  EXPECT_EQ(lava_measurement(-12.25), "-12.25");
  EXPECT_EQ(lava_measurement(1e7), "10000000");
  EXPECT_EQ(lava_measurement(123456789.125), "123456789.125");
  EXPECT_EQ(lava_measurement(1e-6), "0.000001");
  EXPECT_EQ(lava_measurement(2.0 / 3.0), "0.666667");
  for (const double v : {1e-3, 1e12, 4.5e-5, 9.87654321e8}) {
    EXPECT_EQ(lava_measurement(v).find_first_of("eE"), std::string::npos) << v;
  }
}

TEST(Lava, AnInfiniteFigureIsNotAMeasurement) {
  const auto c = cases_of("demo", true, {{"xruns", std::numeric_limits<double>::infinity()}});
  EXPECT_EQ(lava_line(c[4]), "lava-test-case demo-xruns --result skip");
}

}  // namespace
}  // namespace xrunlab
