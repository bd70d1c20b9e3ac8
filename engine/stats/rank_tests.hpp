// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Rank tests of two independent samples: the runs of case x and of case y on one metric. The
// Mann-Whitney U test (Wilcoxon rank-sum) says whether one case tends to give larger values;
// the Hodges-Lehmann estimate says by how much, with a distribution-free 95 % interval. Ranks,
// not means: run-to-run noise on a loaded machine is far from normal (one stalled run is enough
// to move a mean), and a campaign has a handful of runs per case, too few to check a model.
// Also the normal distribution these fall back on for large or tied samples. Pure functions;
// values must be finite.
//
// Written here rather than taken from Debian's GSL or Boost.Math (1.74): neither has the
// Mann-Whitney test's exact distribution, the Hodges-Lehmann interval or a p-value adjustment
// (Boost.Math's statistics/ has t-, z-, runs and Anderson-Darling tests; GSL has distribution
// functions only); all either would give is the normal quantile, 40 lines here. Each function
// is tested against published values (tests/stats/).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab::stats {

// The exact distribution of U is used when the pooled sample has no ties and n1 * n2 is at most
// this. Its cost grows as n1 * n2 * min(n1, n2) (50 vs 50: about 3 million multiply-adds, a
// few milliseconds here); beyond it the normal approximation serves, as long as both samples
// have some tens of values, as a campaign's cases have alike (it is poor for very unequal
// sizes: for 1 vs 3000 it gives 0.083 where the exact p is 0.00067). 2500 covers every pair up to
// 50 vs 50 (R's wilcox.test is exact below 50 each).
inline constexpr size_t kExactMaxPairs = 2500;

enum class TestKind { kExact, kNormal };
std::string_view test_kind_name(TestKind kind);  // "exact" | "normal"

// The standard normal distribution function, by std::erfc (accurate in both tails).
double normal_cdf(double z);
// Its inverse: Wichura's algorithm AS 241 (PPND16, Applied Statistics 37 (1988) 477-484),
// about 16 correct digits over (0, 1). -inf at 0, +inf at 1, NaN outside [0, 1].
double normal_quantile(double p);

// P(U = u) for u = 0 .. n1 * n2, U the number of pairs (x_i, y_j) with x_i > y_j when all
// n1 + n2 values are distinct and both samples come from the same distribution. Dynamic
// programming over (i, j, u) on probabilities (each step a weighted mean of two smaller cases),
// so no count overflows: C(100, 50) is 1e29. Throws std::invalid_argument above kExactMaxPairs.
std::vector<double> exact_u_distribution(size_t n1, size_t n2);

// The smallest two-sided p-value the exact test can give for n1 vs n2 runs, that of complete
// separation: 2 / C(n1 + n2, n1), at most 1 (2 vs 2: 1/3, 3 vs 3: 0.1, 4 vs 4: 0.029). When it
// is 0.05 or more, no outcome of that many runs can be significant. Absent when either is 0.
std::optional<double> smallest_exact_p(size_t n1, size_t n2);

struct RankSumTest {
  double u = 0;  // of x: pairs with x_i > y_j, plus half the tied pairs (R's W)
  double p = 1;  // two-sided
  TestKind kind = TestKind::kExact;
  bool ties = false;        // in the pooled sample (midranks were used)
  std::optional<double> z;  // kNormal: the standardized, continuity-corrected U
};

// Two-sided Mann-Whitney test of x against y. Exact without ties up to kExactMaxPairs, as R's
// wilcox.test: p = 2 min(P(U <= u), P(U >= u)), at most 1. Otherwise the normal approximation
// with R's corrections: mean n1 n2 / 2; variance n1 n2 / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1)))
// over the tie groups t of the pooled N values; U moved 0.5 towards the mean. When every value
// is equal the variance is 0 and p is 1 (nothing tells the cases apart). Absent when either
// sample is empty.
std::optional<RankSumTest> mann_whitney(const std::vector<double>& x, const std::vector<double>& y);

struct Interval {
  double low = 0, high = 0;
  double coverage = 0;  // the achieved confidence (exact: at least 0.95; normal: approximate)
};

struct ShiftEstimate {
  double estimate = 0;  // median of the n1 n2 differences x_i - y_j: > 0 when x is larger
  TestKind kind = TestKind::kExact;  // how the interval's k was found (as mann_whitney chooses)
  std::optional<Interval> ci95;
  std::string why_no_ci;  // when ci95 is absent
};

// Hodges-Lehmann estimate of the shift x - y and its distribution-free 95 % interval (Moses;
// Bauer 1972): the k-th smallest and k-th largest pairwise differences, k the largest integer
// with P(U <= k - 1) <= 0.025. Exact distribution as mann_whitney decides; otherwise Hollander &
// Wolfe's large-sample k = mn/2 - z(0.975) sqrt(mn (N + 1) / 12) rounded to the nearest integer
// (the continuity correction), the variance without the tie correction: that can only widen the
// interval. No interval when k < 1: so few runs that even complete separation is not
// significant (2 vs 2, 3 vs 3). Absent when either sample is empty.
std::optional<ShiftEstimate> hodges_lehmann(const std::vector<double>& x,
                                            const std::vector<double>& y);

}  // namespace xrunlab::stats
