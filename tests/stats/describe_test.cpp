// SPDX-License-Identifier: GPL-2.0-or-later
// Descriptive statistics of a sample: absent for an empty one, and quartiles by R's type 7,
// checked against the values R's quantile() and numpy.percentile give.
#include "engine/stats/describe.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace xrunlab::stats {
namespace {

// min, Q1, median, Q3, max: what R's quantile() prints, to compare in one line. The values
// below are exact in binary, so equality is the right check.
std::vector<double> five_numbers(const Description& d) {
  return {*d.min, *d.q1, *d.median, *d.q3, *d.max};
}

TEST(Describe, EmptySampleHasNoStatistics) {
  const Description d = describe({});
  EXPECT_EQ(d.count, 0u);
  EXPECT_FALSE(d.min);
  EXPECT_FALSE(d.max);
  EXPECT_FALSE(d.mean);
  EXPECT_FALSE(d.median);
  EXPECT_FALSE(d.q1);
  EXPECT_FALSE(d.q3);
  EXPECT_FALSE(d.iqr);
  EXPECT_FALSE(d.sd);
}

TEST(Describe, QuartilesOfOneToFourAsRAndNumpy) {
  // R: quantile(c(1, 2, 3, 4)) -> 1.00 1.75 2.50 3.25 4.00; numpy.percentile the same.
  // Given unsorted: describe sorts a copy.
  const Description d = describe({4, 1, 3, 2});
  EXPECT_EQ(d.count, 4u);
  EXPECT_EQ(five_numbers(d), (std::vector<double>{1, 1.75, 2.5, 3.25, 4}));
  EXPECT_DOUBLE_EQ(*d.iqr, 1.5);
  EXPECT_DOUBLE_EQ(*d.mean, 2.5);
  // Deviations -1.5, -0.5, 0.5, 1.5: squares sum to 5, over n - 1 = 3.
  EXPECT_DOUBLE_EQ(*d.sd, std::sqrt(5.0 / 3.0));
}

TEST(Describe, OddSampleHasItsMiddleValueAsMedian) {
  // R: quantile(c(3, 1, 2)) -> 1.0 1.5 2.0 2.5 3.0
  const Description d = describe({3, 1, 2});
  EXPECT_EQ(five_numbers(d), (std::vector<double>{1, 1.5, 2, 2.5, 3}));
}

TEST(Describe, OneValueIsEveryStatisticButTheSpread) {
  const Description d = describe({7.5});
  EXPECT_EQ(d.count, 1u);
  EXPECT_EQ(five_numbers(d), (std::vector<double>{7.5, 7.5, 7.5, 7.5, 7.5}));
  EXPECT_DOUBLE_EQ(*d.iqr, 0);
  EXPECT_FALSE(d.sd);  // one run shows no noise
}

TEST(QuantileSorted, InterpolatesBetweenOrderStatistics) {
  // R: quantile(1:10, c(0, 0.1, 0.9, 1)) -> 1.0 1.9 9.1 10.0 (h = 9 p).
  const std::vector<double> one_to_ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(*quantile_sorted(one_to_ten, 0), 1);
  EXPECT_DOUBLE_EQ(*quantile_sorted(one_to_ten, 0.1), 1.9);
  EXPECT_DOUBLE_EQ(*quantile_sorted(one_to_ten, 0.9), 9.1);
  EXPECT_DOUBLE_EQ(*quantile_sorted(one_to_ten, 1), 10);
  EXPECT_FALSE(quantile_sorted({}, 0.5));
}

}  // namespace
}  // namespace xrunlab::stats
