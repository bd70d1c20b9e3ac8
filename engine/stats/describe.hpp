// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Descriptive statistics of one sample: the values of one metric over the runs of one case
// (e.g. xruns per minute of every repetition of "fifo"). Count, range, mean, median, quartiles
// and spread, for the campaign's per-case tables and for the verdicts (rank_tests, power).
// Pure functions. Values must be finite (a NaN has no place in an order).
#include <cstddef>
#include <optional>
#include <vector>

namespace xrunlab::stats {

struct Description {
  size_t count = 0;
  // All absent for an empty sample: a case without runs has no median, not a median of 0.
  std::optional<double> min, max, mean;
  std::optional<double> median, q1, q3;  // quartiles by quantile_sorted (R's type 7)
  std::optional<double> iqr;             // q3 - q1
  std::optional<double> sd;  // sample standard deviation (divisor n - 1); absent below 2 values
};

Description describe(const std::vector<double>& sample);

// The p-quantile (0 <= p <= 1) of an ascending sample, by linear interpolation between order
// statistics: h = (n - 1) p, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]). This is
// Hyndman & Fan's type 7, the default of R's quantile() and of numpy.percentile, so the numbers
// can be checked there. Absent when the sample is empty.
std::optional<double> quantile_sorted(const std::vector<double>& sorted, double p);

}  // namespace xrunlab::stats
