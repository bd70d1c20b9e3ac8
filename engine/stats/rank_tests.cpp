// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/stats/rank_tests.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

#include "engine/stats/describe.hpp"

namespace xrunlab::stats {

namespace {

constexpr double kIntervalTail = 0.025;  // each side of the 95 % interval

// Evaluates c[0] + c[1] r + ... by Horner's rule.
template <size_t N>
double polynomial(const double (&c)[N], double r) {
  double sum = 0;
  for (size_t i = N; i-- > 0;) sum = sum * r + c[i];
  return sum;
}

// What the ranks of the pooled sample say, computed once for the test and the interval.
struct PooledRanks {
  double rank_sum_x = 0;  // midranks, 1-based
  double tie_sum = 0;     // sum of t^3 - t over the groups of t equal values
  bool ties = false;
};

PooledRanks rank_pooled(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::pair<double, bool>> pooled;  // (value, from x)
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.emplace_back(v, true);
  for (double v : y) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end());
  PooledRanks r;
  for (size_t first = 0; first < pooled.size();) {
    size_t end = first + 1;
    while (end < pooled.size() && pooled[end].first == pooled[first].first) ++end;
    const auto t = static_cast<double>(end - first);
    const double midrank = static_cast<double>(first + 1 + end) / 2.0;  // of ranks first+1..end
    for (size_t i = first; i < end; ++i) {
      if (pooled[i].second) r.rank_sum_x += midrank;
    }
    if (end - first > 1) {
      r.ties = true;
      r.tie_sum += t * t * t - t;
    }
    first = end;
  }
  return r;
}

TestKind choose_kind(const PooledRanks& ranks, size_t n1, size_t n2) {
  return !ranks.ties && n1 * n2 <= kExactMaxPairs ? TestKind::kExact : TestKind::kNormal;
}

}  // namespace

std::string_view test_kind_name(TestKind kind) {
  return kind == TestKind::kExact ? "exact" : "normal";
}

double normal_cdf(double z) {
  return 0.5 * std::erfc(-z / M_SQRT2);
}

double normal_quantile(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<double>::quiet_NaN();
  if (p == 0) return -std::numeric_limits<double>::infinity();
  if (p == 1) return std::numeric_limits<double>::infinity();
  // AS 241's coefficients: three rational approximations, for the centre (|p - 0.5| <= 0.425),
  // the tails up to r = sqrt(-log(min(p, 1 - p))) = 5 (p down to about 1.4e-11), and beyond.
  static constexpr double a[] = {3.3871328727963666080e+00, 1.3314166789178437745e+02,
                                 1.9715909503065514427e+03, 1.3731693765509461125e+04,
                                 4.5921953931549871457e+04, 6.7265770927008700853e+04,
                                 3.3430575583588128105e+04, 2.5090809287301226727e+03};
  static constexpr double b[] = {1.0,
                                 4.2313330701600911252e+01,
                                 6.8718700749205790830e+02,
                                 5.3941960214247511077e+03,
                                 2.1213794301586595867e+04,
                                 3.9307895800092710610e+04,
                                 2.8729085735721942674e+04,
                                 5.2264952788528545610e+03};
  static constexpr double c[] = {1.42343711074968357734e+00, 4.63033784615654529590e+00,
                                 5.76949722146069140550e+00, 3.64784832476320460504e+00,
                                 1.27045825245236838258e+00, 2.41780725177450611770e-01,
                                 2.27238449892691845833e-02, 7.74545014278341407640e-04};
  static constexpr double d[] = {1.0,
                                 2.05319162663775882187e+00,
                                 1.67638483018380384940e+00,
                                 6.89767334985100004550e-01,
                                 1.48103976427480074590e-01,
                                 1.51986665636164571966e-02,
                                 5.47593808499534494600e-04,
                                 1.05075007164441684324e-09};
  static constexpr double e[] = {6.65790464350110377720e+00, 5.46378491116411436990e+00,
                                 1.78482653991729133580e+00, 2.96560571828504891230e-01,
                                 2.65321895265761230930e-02, 1.24266094738807843860e-03,
                                 2.71155556874348757815e-05, 2.01033439929228813265e-07};
  static constexpr double f[] = {1.0,
                                 5.99832206555887937690e-01,
                                 1.36929880922735805310e-01,
                                 1.48753612908506148525e-02,
                                 7.86869131145613259100e-04,
                                 1.84631831751005468180e-05,
                                 1.42151175831644588870e-07,
                                 2.04426310338993978564e-15};
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    const double r = 0.180625 - q * q;  // 0.425^2
    return q * polynomial(a, r) / polynomial(b, r);
  }
  double r = std::sqrt(-std::log(q < 0 ? p : 1 - p));
  double tail;
  if (r <= 5) {
    r -= 1.6;
    tail = polynomial(c, r) / polynomial(d, r);
  } else {
    r -= 5;
    tail = polynomial(e, r) / polynomial(f, r);
  }
  return q < 0 ? -tail : tail;
}

std::vector<double> exact_u_distribution(size_t n1, size_t n2) {
  if (n1 * n2 > kExactMaxPairs) {
    throw std::invalid_argument(
        fmt::format("exact_u_distribution: {} vs {} is over {} pairs", n1, n2, kExactMaxPairs));
  }
  // U has the same distribution for (n1, n2) and (n2, n1): keep the smaller as i.
  const size_t m = std::min(n1, n2);
  const size_t n = std::max(n1, n2);
  // dist[i]: the distribution of U for i values of one sample against j of the other, for the
  // j of the loop (j = 0: U is 0 for sure). Of the i + j values the largest is one of the i
  // with probability i / (i + j), and then beats all j: U = j + U(i - 1, j); otherwise it is
  // one of the j and beats none: U = U(i, j - 1).
  std::vector<std::vector<double>> dist(m + 1, std::vector<double>{1.0});
  for (size_t j = 1; j <= n; ++j) {
    for (size_t i = 1; i <= m; ++i) {  // ascending: dist[i - 1] already holds (i - 1, j)
      const double from_i = static_cast<double>(i) / static_cast<double>(i + j);
      const std::vector<double>& fewer_i = dist[i - 1];  // (i - 1, j)
      const std::vector<double>& fewer_j = dist[i];      // (i, j - 1), before it is replaced
      std::vector<double> next(i * j + 1, 0.0);
      for (size_t u = 0; u < fewer_i.size(); ++u) next[u + j] += from_i * fewer_i[u];
      for (size_t u = 0; u < fewer_j.size(); ++u) next[u] += (1 - from_i) * fewer_j[u];
      dist[i] = std::move(next);
    }
  }
  return dist[m];
}

std::optional<double> smallest_exact_p(size_t n1, size_t n2) {
  if (n1 == 0 || n2 == 0) return std::nullopt;
  // C(n1 + n2, k) as a product of ratios, each > 1: no factorial overflows.
  const size_t k = std::min(n1, n2);
  const size_t other = std::max(n1, n2);
  double arrangements = 1;
  for (size_t i = 1; i <= k; ++i) {
    arrangements *= static_cast<double>(other + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2.0 / arrangements);
}

std::optional<RankSumTest> mann_whitney(const std::vector<double>& x,
                                        const std::vector<double>& y) {
  if (x.empty() || y.empty()) return std::nullopt;
  const size_t n1 = x.size();
  const size_t n2 = y.size();
  const PooledRanks ranks = rank_pooled(x, y);
  const auto m = static_cast<double>(n1);
  const auto pairs = static_cast<double>(n1 * n2);
  RankSumTest t;
  t.u = ranks.rank_sum_x - m * (m + 1) / 2;
  t.ties = ranks.ties;
  t.kind = choose_kind(ranks, n1, n2);
  if (t.kind == TestKind::kExact) {
    const std::vector<double> dist = exact_u_distribution(n1, n2);
    const auto u = static_cast<size_t>(std::lround(t.u));  // whole without ties
    double at_most = 0, at_least = 0;
    for (size_t v = 0; v <= u; ++v) at_most += dist[v];
    for (size_t v = u; v < dist.size(); ++v) at_least += dist[v];
    t.p = std::min(1.0, 2 * std::min(at_most, at_least));
    return t;
  }
  const auto total = static_cast<double>(n1 + n2);
  const double variance = pairs / 12 * ((total + 1) - ranks.tie_sum / (total * (total - 1)));
  if (variance <= 0) {  // every value equal
    t.z = 0.0;
    t.p = 1;
    return t;
  }
  const double from_mean = t.u - pairs / 2;
  const double corrected =
      from_mean > 0 ? from_mean - 0.5 : (from_mean < 0 ? from_mean + 0.5 : 0.0);
  t.z = corrected / std::sqrt(variance);
  t.p = std::min(1.0, 2 * normal_cdf(-std::fabs(*t.z)));
  return t;
}

std::optional<ShiftEstimate> hodges_lehmann(const std::vector<double>& x,
                                            const std::vector<double>& y) {
  if (x.empty() || y.empty()) return std::nullopt;
  const size_t pairs = x.size() * y.size();
  std::vector<double> differences;
  differences.reserve(pairs);
  for (double xi : x) {
    for (double yj : y) differences.push_back(xi - yj);
  }
  std::sort(differences.begin(), differences.end());
  ShiftEstimate s;
  s.estimate = *quantile_sorted(differences, 0.5);
  s.kind = choose_kind(rank_pooled(x, y), x.size(), y.size());

  size_t k = 0;  // the interval is [k-th smallest, k-th largest]; 0: none exists
  double coverage = 0;
  if (s.kind == TestKind::kExact) {
    const std::vector<double> dist = exact_u_distribution(x.size(), y.size());
    // The sums of the distribution are rounded: allow a tail that is 0.025 in exact arithmetic.
    constexpr double kTolerance = 1e-12;
    double below = 0;  // P(U <= k - 1)
    while (k < dist.size() && below + dist[k] <= kIntervalTail + kTolerance) below += dist[k++];
    coverage = 1 - 2 * below;
  } else {
    const auto mn = static_cast<double>(pairs);
    const auto total = static_cast<double>(x.size() + y.size());
    const double sd = std::sqrt(mn * (total + 1) / 12);
    const double nearest = std::floor(mn / 2 + 0.5 - normal_quantile(1 - kIntervalTail) * sd);
    k = nearest >= 1 ? static_cast<size_t>(nearest) : 0;
    coverage = 1 - 2 * normal_cdf((static_cast<double>(k) - 0.5 - mn / 2) / sd);
  }
  if (k >= 1 && k <= pairs / 2) {
    s.ci95 = Interval{differences[k - 1], differences[pairs - k], coverage};
  } else {
    s.why_no_ci = "too few runs for a 95 % interval";
  }
  return s;
}

}  // namespace xrunlab::stats
