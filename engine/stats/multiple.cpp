// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/stats/multiple.hpp"

#include <algorithm>
#include <numeric>

namespace xrunlab::stats {

std::vector<double> benjamini_hochberg(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> q(m);
  double running = 1.0;  // the minimum over the larger p-values, from the largest down
  for (size_t k = m; k-- > 0;) {
    const double rank = static_cast<double>(k + 1);
    running = std::min(running, p[order[k]] * static_cast<double>(m) / rank);
    q[order[k]] = running;
  }
  return q;
}

}  // namespace xrunlab::stats
