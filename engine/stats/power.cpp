// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/stats/power.hpp"

#include <algorithm>
#include <cmath>

#include "engine/stats/rank_tests.hpp"

namespace xrunlab::stats {

namespace {

constexpr double kNormalIqrPerSd = 1.349;  // 2 z(0.75) = 1.3490 for a normal distribution
// Beyond this the number says only "far too many": the noise dwarfs the difference.
constexpr double kMostRunsToPromise = 1e6;

}  // namespace

std::optional<double> robust_sd(const Description& d) {
  if (d.count < 2) return std::nullopt;
  if (*d.iqr > 0) return *d.iqr / kNormalIqrPerSd;
  return *d.sd;  // 0 when every value is equal
}

double runs_by_formula(double sd, double delta, double alpha, double power) {
  const double z_sum = normal_quantile(1 - alpha / 2) + normal_quantile(power);
  const double t_test_runs = z_sum * z_sum * 2 * sd * sd / (delta * delta);
  return t_test_runs * M_PI / 3;
}

size_t fewest_runs_for(double alpha) {
  // 2 / C(2n, n) falls below any alpha a person would choose long before 100 runs (at 20 it
  // is 1.5e-11); the bound only stops a loop for alpha <= 0.
  constexpr size_t kMostRunsSearched = 100;
  size_t n = 1;
  while (n < kMostRunsSearched && *smallest_exact_p(n, n) >= alpha) ++n;
  return n;
}

RunsNeeded runs_needed(const std::vector<double>& a, const std::vector<double>& b,
                       double relative_difference, double alpha, double power) {
  RunsNeeded r;
  const Description da = describe(a);
  const Description db = describe(b);
  const std::optional<double> sd_a = robust_sd(da);
  const std::optional<double> sd_b = robust_sd(db);
  if (!sd_a || !sd_b) {
    r.why_absent = "a case with one run shows no noise";
    return r;
  }
  r.noise_sd = std::sqrt((*sd_a * *sd_a + *sd_b * *sd_b) / 2);
  r.delta = relative_difference * std::max(std::fabs(*da.median), std::fabs(*db.median));
  if (*r.noise_sd == 0) {
    r.why_absent = "every run of each case gave the same value";
    return r;
  }
  if (*r.delta == 0) {
    r.why_absent = "both medians are 0, so a relative difference is 0";
    return r;
  }
  const double runs = std::ceil(runs_by_formula(*r.noise_sd, *r.delta, alpha, power));
  if (runs > kMostRunsToPromise) {
    r.why_absent = "over a million runs each: the noise dwarfs the difference";
    return r;
  }
  r.runs_per_case = std::max(static_cast<size_t>(runs), fewest_runs_for(alpha));
  return r;
}

}  // namespace xrunlab::stats
