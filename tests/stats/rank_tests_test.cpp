// SPDX-License-Identifier: GPL-2.0-or-later
// The Mann-Whitney test, the Hodges-Lehmann shift and the normal quantile against published
// values (R's documentation, Hollander & Wolfe, the normal tables) and small cases counted by
// hand.
#include "engine/stats/rank_tests.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>

namespace xrunlab::stats {
namespace {

// C(n, k) for the small counts of the exact distribution.
double choose(int n, int k) {
  double c = 1;
  for (int i = 1; i <= k; ++i) c = c * (n - k + i) / i;
  return c;
}

TEST(NormalQuantile, PublishedValues) {
  // The normal quantile's 16-digit values, as R's qnorm(c(0.975, 0.8)) prints them with
  // print(digits = 16).
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-15);
  EXPECT_NEAR(normal_quantile(0.8), 0.8416212335729143, 1e-15);
  EXPECT_EQ(normal_quantile(0.5), 0.0);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963984540054, 1e-15);
  // The far tail (AS 241's third approximation, r > 5): R's qnorm(1e-10).
  const double far = normal_quantile(1e-10);
  EXPECT_NEAR(far, -6.361340902404056, 6.361340902404056 * 1e-9);
}

TEST(NormalQuantile, EdgesAndRoundTrip) {
  EXPECT_EQ(normal_quantile(0), -INFINITY);
  EXPECT_EQ(normal_quantile(1), INFINITY);
  EXPECT_TRUE(std::isnan(normal_quantile(1.5)));
  EXPECT_TRUE(std::isnan(normal_quantile(-0.1)));
  for (double p : {1e-12, 1e-6, 0.01, 0.2, 0.5, 0.7, 0.99, 1 - 1e-6}) {
    EXPECT_NEAR(normal_cdf(normal_quantile(p)), p, p * 1e-12) << p;
  }
  EXPECT_DOUBLE_EQ(normal_cdf(0), 0.5);
}

TEST(MannWhitney, HollanderWolfeExampleFromRsDocumentation) {
  // R's ?wilcox.test, Hollander & Wolfe (1973), p. 69: wilcox.test(x, y, alternative = "g")
  // gives W = 35, p-value = 0.1272; the two-sided exact p is twice that.
  const std::vector<double> x = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
  const std::vector<double> y = {1.15, 0.88, 0.90, 0.74, 1.21};
  const auto t = mann_whitney(x, y);
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->u, 35);
  EXPECT_NEAR(t->p, 0.2544, 0.00005);
  EXPECT_EQ(t->kind, TestKind::kExact);
  EXPECT_EQ(test_kind_name(t->kind), "exact");
  EXPECT_FALSE(t->ties);
  EXPECT_FALSE(t->z);
}

TEST(MannWhitney, CompleteSeparationGivesTheSmallestExactP) {
  // Of the C(n1 + n2, n1) equally likely arrangements, one puts all x below all y and one
  // above: two-sided p = 2 / C.
  const auto three = mann_whitney({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(three->u, 0);
  EXPECT_NEAR(three->p, 2.0 / 20, 1e-15);  // 0.1
  const auto five = mann_whitney({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(five->u, 25);           // every pair has x > y
  EXPECT_NEAR(five->p, 2.0 / 252, 1e-15);  // 0.00794
  const auto two = mann_whitney({1, 2}, {3, 4});
  EXPECT_NEAR(two->p, 1.0 / 3, 1e-15);
}

TEST(MannWhitney, TiesUseTheNormalApproximation) {
  // x = {1, 2, 2, 3}, y = {3, 4, 4, 5}. Pooled midranks: 1 -> 1, 2 2 -> 2.5, 3 3 -> 4.5,
  // 4 4 -> 6.5, 5 -> 8. x's rank sum 1 + 2.5 + 2.5 + 4.5 = 10.5, U = 10.5 - 4*5/2 = 0.5.
  // Three tie groups of 2: sum(t^3 - t) = 18; N = 8.
  // Variance = 16/12 * (9 - 18 / (8 * 7)) = 11.571428...; mean 8.
  // z = (0.5 - 8 + 0.5) / sqrt(11.571428) = -7 / 3.401680 = -2.057807;
  // p = 2 * Phi(-2.057807) = 0.039609.
  const auto t = mann_whitney({1, 2, 2, 3}, {3, 4, 4, 5});
  ASSERT_TRUE(t);
  EXPECT_EQ(t->kind, TestKind::kNormal);
  EXPECT_EQ(test_kind_name(t->kind), "normal");
  EXPECT_TRUE(t->ties);
  EXPECT_DOUBLE_EQ(t->u, 0.5);
  EXPECT_NEAR(*t->z, -7 / std::sqrt(16.0 / 12 * (9 - 18.0 / 56)), 1e-12);
  EXPECT_NEAR(*t->z, -2.057807, 1e-6);
  EXPECT_NEAR(t->p, 0.039609, 1e-6);
}

TEST(MannWhitney, ExactUpToTheBoundThenNormal) {
  std::vector<double> fifty(50), fifty_one(51), above(50);
  std::iota(fifty.begin(), fifty.end(), 0.0);
  std::iota(fifty_one.begin(), fifty_one.end(), 0.0);
  std::iota(above.begin(), above.end(), 100.0);
  // 50 vs 50 = 2500 pairs: exact, p = 2 / C(100, 50) = 3.9647e-29.
  const auto exact = mann_whitney(fifty, above);
  EXPECT_EQ(exact->kind, TestKind::kExact);
  EXPECT_NEAR(exact->p / (2 / choose(100, 50)), 1, 1e-9);
  // 51 vs 50 = 2550 pairs: normal. U = 0, mean 1275, variance 2550 * 102 / 12 = 21675,
  // z = (0 - 1275 + 0.5) / 147.2243 = -8.656858, p = 2 Phi(-8.656858) = 4.849468e-18.
  const auto normal = mann_whitney(fifty_one, above);
  EXPECT_EQ(normal->kind, TestKind::kNormal);
  EXPECT_FALSE(normal->ties);
  EXPECT_NEAR(*normal->z, -1274.5 / std::sqrt(21675.0), 1e-12);
  EXPECT_NEAR(normal->p / 4.849468e-18, 1, 1e-6);
}

TEST(MannWhitney, AllValuesEqualSayNothing) {
  const auto t = mann_whitney({3, 3, 3}, {3, 3});
  EXPECT_EQ(t->kind, TestKind::kNormal);
  EXPECT_DOUBLE_EQ(t->u, 3);  // half of the 6 tied pairs
  EXPECT_DOUBLE_EQ(t->p, 1);
}

TEST(MannWhitney, EmptySampleHasNoTest) {
  EXPECT_FALSE(mann_whitney({}, {1, 2}));
  EXPECT_FALSE(mann_whitney({1}, {}));
}

TEST(ExactDistribution, CountsOfSmallCases) {
  // 2 vs 2: the 6 arrangements give U = 0, 1, 2, 2, 3, 4.
  const auto two = exact_u_distribution(2, 2);
  ASSERT_EQ(two.size(), 5u);
  const double expected[] = {1, 1, 2, 1, 1};
  for (size_t u = 0; u < 5; ++u) EXPECT_NEAR(two[u] * 6, expected[u], 1e-12) << u;
  // 5 vs 5: the counts of U = u are the partitions of u into at most 5 parts of at most 5:
  // 1, 1, 2, 3, 5, 7 for u = 0..5, out of 252.
  const auto five = exact_u_distribution(5, 5);
  const double partitions[] = {1, 1, 2, 3, 5, 7};
  for (size_t u = 0; u < 6; ++u) EXPECT_NEAR(five[u] * 252, partitions[u], 1e-10) << u;
  // Unequal sizes: same distribution either way round, symmetric, summing to 1.
  const auto a = exact_u_distribution(3, 7);
  const auto b = exact_u_distribution(7, 3);
  ASSERT_EQ(a.size(), 22u);
  EXPECT_NEAR(std::accumulate(a.begin(), a.end(), 0.0), 1, 1e-12);
  for (size_t u = 0; u < a.size(); ++u) {
    EXPECT_NEAR(a[u], b[u], 1e-15);
    EXPECT_NEAR(a[u], a[a.size() - 1 - u], 1e-15);
  }
  EXPECT_NEAR(a[0] * choose(10, 3), 1, 1e-12);
  EXPECT_THROW(exact_u_distribution(51, 50), std::invalid_argument);
}

TEST(SmallestExactP, TooFewRunsCanNeverBeSignificant) {
  EXPECT_NEAR(*smallest_exact_p(2, 2), 1.0 / 3, 1e-15);
  EXPECT_NEAR(*smallest_exact_p(3, 3), 0.1, 1e-15);
  EXPECT_NEAR(*smallest_exact_p(4, 4), 2.0 / 70, 1e-15);
  EXPECT_NEAR(*smallest_exact_p(5, 5), 2.0 / 252, 1e-15);
  EXPECT_NEAR(*smallest_exact_p(2, 8), 2.0 / 45, 1e-15);  // the first 2 vs n under 0.05
  EXPECT_DOUBLE_EQ(*smallest_exact_p(1, 1), 1);           // 2 / 2, not more than 1
  EXPECT_DOUBLE_EQ(*smallest_exact_p(1, 3), 0.5);         // U = 0 and U = 3: 2 of 4 arrangements
  EXPECT_FALSE(smallest_exact_p(0, 3));
}

TEST(HodgesLehmann, HandCountedFourVsFour) {
  // x - y for x = {10, 12, 15, 20}, y = {1, 4, 6, 9}:
  //   10: 9 6 4 1;  12: 11 8 6 3;  15: 14 11 9 6;  20: 19 16 14 11
  // sorted: 1 3 4 6 6 6 8 9 | 9 11 11 11 14 14 16 19; median (9 + 9) / 2 = 9.
  // 4 vs 4: P(U <= 0) = 1/70 <= 0.025 < P(U <= 1) = 2/70, so k = 1: [1st, 16th] = [1, 19],
  // coverage 1 - 2/70.
  const auto s = hodges_lehmann({10, 12, 15, 20}, {1, 4, 6, 9});
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->estimate, 9);
  EXPECT_EQ(s->kind, TestKind::kExact);
  ASSERT_TRUE(s->ci95);
  EXPECT_DOUBLE_EQ(s->ci95->low, 1);
  EXPECT_DOUBLE_EQ(s->ci95->high, 19);
  EXPECT_NEAR(s->ci95->coverage, 1 - 2.0 / 70, 1e-12);
  EXPECT_LE(s->ci95->low, s->estimate);
  EXPECT_GE(s->ci95->high, s->estimate);
}

TEST(HodgesLehmann, FiveVsFiveTakesTheThirdFromEachEnd) {
  // x - y for x = {0, 10, 20, 30, 40}, y = {1..5}: -5..-1, 5..9, 15..19, 25..29, 35..39;
  // the 13th of 25 is 17. 5 vs 5: P(U <= 2) = (1 + 1 + 2)/252 = 0.0159 <= 0.025 <
  // P(U <= 3) = 7/252, so k = 3: [3rd smallest, 3rd largest] = [-3, 37].
  const auto s = hodges_lehmann({0, 10, 20, 30, 40}, {1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(s->estimate, 17);
  ASSERT_TRUE(s->ci95);
  EXPECT_DOUBLE_EQ(s->ci95->low, -3);
  EXPECT_DOUBLE_EQ(s->ci95->high, 37);
  EXPECT_NEAR(s->ci95->coverage, 1 - 8.0 / 252, 1e-12);
}

TEST(HodgesLehmann, TwoVsTwoHasAnEstimateButNoInterval) {
  // x - y: -4 -6 -3 -5 -> median -4.5. Even complete separation of 2 vs 2 has p = 1/3.
  const auto s = hodges_lehmann({1, 2}, {5, 7});
  ASSERT_TRUE(s);
  EXPECT_DOUBLE_EQ(s->estimate, -4.5);
  EXPECT_FALSE(s->ci95);
  EXPECT_EQ(s->why_no_ci, "too few runs for a 95 % interval");
  EXPECT_FALSE(hodges_lehmann({1, 2, 3}, {4, 5, 6})->ci95);  // 3 vs 3: p >= 0.1
}

TEST(HodgesLehmann, TiesUseTheNormalK) {
  // x - y for x = {1, 2, 2, 3}, y = {3, 4, 4, 5}: -4 once, -3 four times, -2 six, -1 four,
  // 0 once; median -2. k = round(8 - 1.959964 * sqrt(16 * 9 / 12)) = round(1.21) = 1:
  // [-4, 0], coverage 1 - 2 Phi((1 - 0.5 - 8) / 3.4641) = 0.96962.
  const auto s = hodges_lehmann({1, 2, 2, 3}, {3, 4, 4, 5});
  EXPECT_EQ(s->kind, TestKind::kNormal);
  EXPECT_DOUBLE_EQ(s->estimate, -2);
  ASSERT_TRUE(s->ci95);
  EXPECT_DOUBLE_EQ(s->ci95->low, -4);
  EXPECT_DOUBLE_EQ(s->ci95->high, 0);
  EXPECT_NEAR(s->ci95->coverage, 0.969617, 1e-6);
}

TEST(HodgesLehmann, LargeSamplesUseTheNormalK) {
  // x = 0, 100, .., 5000 (51), y = 0..49 (50): 2550 pairs, normal. x_i - y: the block
  // 100 i - 49 .. 100 i, 50 values, blocks in order. k = floor(1275 + 0.5 - 1.959964 *
  // sqrt(2550 * 102 / 12)) = floor(986.95) = 986: block 19, its 36th value, 1886; the
  // 986th largest is the 1565th smallest: block 31, its 15th, 3065. Median: mean of the
  // 1275th and 1276th, block 25's 25th and 26th: 2475.5.
  std::vector<double> x, y;
  for (int i = 0; i <= 50; ++i) x.push_back(100.0 * i);
  for (int j = 0; j < 50; ++j) y.push_back(j);
  const auto s = hodges_lehmann(x, y);
  EXPECT_EQ(s->kind, TestKind::kNormal);
  EXPECT_DOUBLE_EQ(s->estimate, 2475.5);
  ASSERT_TRUE(s->ci95);
  EXPECT_DOUBLE_EQ(s->ci95->low, 1886);
  EXPECT_DOUBLE_EQ(s->ci95->high, 3065);
}

TEST(HodgesLehmann, EmptySampleHasNoEstimate) {
  EXPECT_FALSE(hodges_lehmann({1.0}, {}));
}

}  // namespace
}  // namespace xrunlab::stats
