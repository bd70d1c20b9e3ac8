// SPDX-License-Identifier: GPL-2.0-or-later
// The Benjamini-Hochberg adjustment (engine/stats/multiple.hpp) against a published example and
// cases counted by hand.
#include "engine/stats/multiple.hpp"

#include <gtest/gtest.h>

namespace xrunlab::stats {
namespace {

TEST(BenjaminiHochberg, McDonaldsHandbookExample) {
  // McDonald, Handbook of Biological Statistics (3rd ed., 2014), "Multiple comparisons": 25
  // dietary variables against mammographic density (García-Arenzana et al. 2014). With a false
  // discovery rate of 0.25 the handbook finds the first five significant (the largest p below
  // its critical value (i / 25) 0.25 is the fifth, 0.042 < 0.050) and the sixth not
  // (0.060 = 0.060 is not below). By the definition: q1 = 0.001 * 25 = 0.025, q2 = 0.008 * 25/2
  // = 0.1, q3..q5 = min(0.325, 0.25625, 0.21) = 0.21, q6 = 0.06 * 25/6 = 0.25, q7 = 0.074 *
  // 25/7 = 0.26429; q8..q14 = 0.275 * 25/14 = 0.49107; q25 = 0.986, and q22..q24 the same
  // (their own m p / i are above 1 or 0.986).
  const std::vector<double> p = {0.001, 0.008, 0.039, 0.041, 0.042, 0.060, 0.074, 0.205, 0.212,
                                 0.216, 0.222, 0.251, 0.269, 0.275, 0.340, 0.341, 0.384, 0.569,
                                 0.594, 0.696, 0.762, 0.940, 0.942, 0.975, 0.986};
  const std::vector<double> q = benjamini_hochberg(p);
  ASSERT_EQ(q.size(), p.size());
  EXPECT_NEAR(q[0], 0.025, 1e-12);
  EXPECT_NEAR(q[1], 0.1, 1e-12);
  for (int i : {2, 3, 4}) EXPECT_NEAR(q[i], 0.21, 1e-12) << i;
  EXPECT_NEAR(q[5], 0.25, 1e-12);
  EXPECT_NEAR(q[6], 0.074 * 25 / 7, 1e-12);
  for (int i = 7; i <= 13; ++i) EXPECT_NEAR(q[i], 0.275 * 25 / 14, 1e-12) << i;
  for (int i : {21, 22, 23, 24}) EXPECT_NEAR(q[i], 0.986, 1e-12) << i;
  int below = 0;
  for (double x : q) below += x < 0.25 ? 1 : 0;
  EXPECT_EQ(below, 5) << "the handbook's five discoveries at a false discovery rate of 0.25";
}

TEST(BenjaminiHochberg, OrderIsKeptAndTiesShareTheirQ) {
  // R: p.adjust(c(0.04, 0.01, 0.03, 0.02, 0.05), "BH") is 0.05 for every one.
  const std::vector<double> q = benjamini_hochberg({0.04, 0.01, 0.03, 0.02, 0.05});
  for (double x : q) EXPECT_NEAR(x, 0.05, 1e-12);
  // Ties: {0.01, 0.01, 0.5}: 0.01 * 3 / 2 = 0.015 for both, 0.5 for the last.
  const std::vector<double> t = benjamini_hochberg({0.5, 0.01, 0.01});
  EXPECT_NEAR(t[0], 0.5, 1e-12);
  EXPECT_NEAR(t[1], 0.015, 1e-12);
  EXPECT_NEAR(t[2], 0.015, 1e-12);
}

TEST(BenjaminiHochberg, EdgesOneTestNoneAndTheCapAtOne) {
  EXPECT_TRUE(benjamini_hochberg({}).empty());
  EXPECT_EQ(benjamini_hochberg({0.03}), std::vector<double>{0.03}) << "one test: q = p";
  const std::vector<double> q = benjamini_hochberg({0.9, 0.95});
  EXPECT_NEAR(q[0], 0.95, 1e-12) << "min(0.9 * 2, 0.95)";
  EXPECT_NEAR(q[1], 0.95, 1e-12);
  EXPECT_LE(benjamini_hochberg({1.0, 1.0})[0], 1.0);
}

}  // namespace
}  // namespace xrunlab::stats
