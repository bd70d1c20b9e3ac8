// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Many comparisons at once: a campaign's report tests every pair of cases one axis apart on
// several figures (iso-vs-fifo-2005: 25 pairs x 7 figures = 175 tests). At p < 0.05 each, about
// 9 of 175 would show a "difference" by chance alone where there is none. The Benjamini-Hochberg
// adjustment turns each p into q, the smallest false discovery rate at which that test would
// count as a discovery: claiming every difference with q < 0.05 keeps the expected share of
// false claims among them at 5 % or below (for independent or positively dependent tests, as
// figures of the same runs are). Pure.
#include <vector>

namespace xrunlab::stats {

// q-values of `p` in the same order (R's p.adjust(p, "BH")): with the p-values sorted
// ascending, q_(i) = min over j >= i of m p_(j) / j, at most 1. Empty in, empty out. Values
// must lie in [0, 1].
std::vector<double> benjamini_hochberg(const std::vector<double>& p);

}  // namespace xrunlab::stats
