// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/stats/describe.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace xrunlab::stats {

std::optional<double> quantile_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return std::nullopt;
  const double h = static_cast<double>(sorted.size() - 1) * std::clamp(p, 0.0, 1.0);
  const double below = std::floor(h);
  const auto i = static_cast<size_t>(below);
  if (i + 1 >= sorted.size()) return sorted.back();
  return sorted[i] + (h - below) * (sorted[i + 1] - sorted[i]);
}

Description describe(const std::vector<double>& sample) {
  Description d;
  d.count = sample.size();
  if (sample.empty()) return d;
  std::vector<double> sorted = sample;
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<double>(sorted.size());
  const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / n;
  d.min = sorted.front();
  d.max = sorted.back();
  d.mean = mean;
  d.median = quantile_sorted(sorted, 0.5);
  d.q1 = quantile_sorted(sorted, 0.25);
  d.q3 = quantile_sorted(sorted, 0.75);
  d.iqr = *d.q3 - *d.q1;
  if (sorted.size() >= 2) {
    // Two passes (deviations from the mean) rather than sum of squares minus square of sum:
    // the latter cancels badly for values far from 0 with a small spread (delays in us).
    double squares = 0;
    for (double v : sorted) squares += (v - mean) * (v - mean);
    d.sd = std::sqrt(squares / (n - 1));
  }
  return d;
}

}  // namespace xrunlab::stats
