// SPDX-License-Identifier: GPL-2.0-or-later
// Runs needed to see a difference: the formula by hand, the robust noise estimate, the floor
// of runs the exact test needs, and every reason the estimate is absent.
#include "engine/stats/power.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace xrunlab::stats {
namespace {

TEST(RunsByFormula, HandComputed) {
  // z(0.975) + z(0.8) = 1.959964 + 0.841621 = 2.801585; squared 7.848880; times 2 sd^2 /
  // delta^2 = 2 (sd = delta = 1): 15.697759 runs for a t-test; times pi/3: 16.438655.
  EXPECT_NEAR(runs_by_formula(1, 1, 0.05, 0.8), 16.438655, 1e-6);
  // n grows with (sd / delta)^2.
  EXPECT_NEAR(runs_by_formula(2, 1, 0.05, 0.8), 4 * 16.438655, 4e-6);
  EXPECT_NEAR(runs_by_formula(3, 6, 0.05, 0.8), 16.438655 / 4, 1e-6);
}

TEST(RobustSd, IqrOverTheNormalsIqrThenTheSampleSd) {
  EXPECT_NEAR(*robust_sd(describe({1, 2, 3, 4})), 1.5 / 1.349, 1e-12);  // IQR 3.25 - 1.75
  // {5, 5, 5, 5, 9}: Q1 = Q3 = 5, IQR 0, but one run differs: the sample sd, mean 5.8,
  // squares 4 * 0.64 + 10.24 = 12.8, over 4: sqrt(3.2).
  EXPECT_NEAR(*robust_sd(describe({5, 5, 5, 5, 9})), std::sqrt(3.2), 1e-12);
  EXPECT_DOUBLE_EQ(*robust_sd(describe({4, 4, 4})), 0);
  EXPECT_FALSE(robust_sd(describe({4})));
  EXPECT_FALSE(robust_sd(describe({})));
}

TEST(FewestRuns, TheExactTestsFloor) {
  EXPECT_EQ(fewest_runs_for(0.05), 4u);  // 3 vs 3: 0.1; 4 vs 4: 2/70 = 0.029
  EXPECT_EQ(fewest_runs_for(0.01), 5u);  // 4 vs 4: 0.029; 5 vs 5: 2/252 = 0.0079
}

TEST(RunsNeeded, NoisyCases) {
  // a = {0, 10, 20, 30, 40}, b = {10, .., 50}: IQR 20 each, sd = 20 / 1.349 = 14.825797;
  // delta = 0.2 * 30 = 6. n = 16.438655 * (14.825797 / 6)^2 = 100.37 -> 101.
  const RunsNeeded r = runs_needed({0, 10, 20, 30, 40}, {10, 20, 30, 40, 50}, 0.20);
  ASSERT_TRUE(r.runs_per_case) << r.why_absent;
  EXPECT_EQ(*r.runs_per_case, 101u);
  EXPECT_NEAR(*r.noise_sd, 20 / 1.349, 1e-12);
  EXPECT_NEAR(*r.delta, 6, 1e-12);
}

TEST(RunsNeeded, PoolsTheRootMeanSquareAndUsesTheLargerMedianInMagnitude) {
  // IQR 2 and 6: sd 2/1.349 and 6/1.349, pooled sqrt((4 + 36) / 2) / 1.349 = 4.472136 / 1.349.
  // Medians 10 and -40: delta 0.1 * 40 = 4. n = 16.438655 * (3.315149 / 4)^2 = 11.29 -> 12.
  const RunsNeeded r = runs_needed({8, 9, 10, 11, 12}, {-46, -43, -40, -37, -34}, 0.10);
  EXPECT_NEAR(*r.noise_sd, std::sqrt(20.0) / 1.349, 1e-12);
  EXPECT_NEAR(*r.delta, 4, 1e-12);
  EXPECT_EQ(*r.runs_per_case, 12u);
}

TEST(RunsNeeded, NeverFewerThanTheExactTestCanUse) {
  // IQR 2 each: sd 1.482580; delta 0.2 * 20 = 4: the formula says 2.26 -> 3, but 3 vs 3 can
  // never reach p < 0.05.
  const RunsNeeded r = runs_needed({8, 9, 10, 11, 12}, {18, 19, 20, 21, 22}, 0.20);
  EXPECT_NEAR(runs_by_formula(*r.noise_sd, *r.delta, 0.05, 0.8), 2.2583, 1e-4);
  EXPECT_EQ(*r.runs_per_case, 4u);
}

TEST(RunsNeeded, AbsentAndWhy) {
  const RunsNeeded one = runs_needed({5}, {1, 2, 3}, 0.2);
  EXPECT_FALSE(one.runs_per_case);
  EXPECT_EQ(one.why_absent, "a case with one run shows no noise");
  const RunsNeeded flat = runs_needed({3, 3, 3}, {7, 7}, 0.2);
  EXPECT_FALSE(flat.runs_per_case);
  EXPECT_EQ(flat.why_absent, "every run of each case gave the same value");
  const RunsNeeded zero = runs_needed({-1, 0, 1}, {-2, 0, 2}, 0.2);
  EXPECT_FALSE(zero.runs_per_case);
  EXPECT_EQ(zero.why_absent, "both medians are 0, so a relative difference is 0");
  // IQR 1000 around medians of 1: delta 0.2, sd 741: about 2.3e8 runs.
  const RunsNeeded hopeless = runs_needed({-999, 1, 1001}, {-999, 1, 1001}, 0.2);
  EXPECT_FALSE(hopeless.runs_per_case);
  EXPECT_EQ(hopeless.why_absent, "over a million runs each: the noise dwarfs the difference");
}

}  // namespace
}  // namespace xrunlab::stats
