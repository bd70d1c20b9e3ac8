// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// How many runs per case a campaign would need to see a given relative difference between two
// cases at the noise its runs showed: what a verdict of "no difference" adds so that it is read
// as "not enough runs to tell", not as "the same". An estimate (a formula for normal noise,
// adjusted for the rank test), not a promise. Pure functions.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "engine/stats/describe.hpp"

namespace xrunlab::stats {

// A robust standard deviation of one case: IQR / 1.349 (the IQR of a normal distribution is
// 1.349 sd), so one stalled run does not inflate it; the sample standard deviation when the IQR
// is 0 but the values differ (a few outliers among equal values); 0 when every value is equal.
// Absent below 2 values: one run shows no noise.
std::optional<double> robust_sd(const Description& d);

// Runs per case, before rounding, for a two-sided test at `alpha` to detect a shift `delta`
// with probability `power` when each case's noise has standard deviation `sd`: the two-sample
// t-test's (z(1 - alpha/2) + z(power))^2 * 2 sd^2 / delta^2, divided by the Mann-Whitney test's
// asymptotic relative efficiency under normal noise, 3/pi (Hodges & Lehmann, 1956).
double runs_by_formula(double sd, double delta, double alpha, double power);

// The smallest equal number of runs per case with which the exact rank test can reach p < alpha
// at all (4 for 0.05: 4 vs 4 gives at best 2/70); runs_needed never says less. 0 < alpha < 1.
size_t fewest_runs_for(double alpha);

struct RunsNeeded {
  std::optional<size_t> runs_per_case;  // absent: why_absent says why
  std::string why_absent;
  std::optional<double> noise_sd;  // pooled robust sd: root mean square of the two cases'
  std::optional<double> delta;     // relative_difference * max(|median a|, |median b|)
};

inline constexpr double kTestAlpha = 0.05;
inline constexpr double kTestPower = 0.80;

// Runs per case to detect a difference of `relative_difference` (0.20: 20 % of the larger
// median, in absolute value) between cases a and b: runs_by_formula rounded up, at least
// fewest_runs_for(alpha). Absent when either case has fewer than 2 runs, when the noise is 0
// (every run of both cases gave its case's one value: any difference shows at once), when the
// difference is 0 (both medians 0), or above a million runs.
RunsNeeded runs_needed(const std::vector<double>& a, const std::vector<double>& b,
                       double relative_difference, double alpha = kTestAlpha,
                       double power = kTestPower);

}  // namespace xrunlab::stats
