// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The campaign section "maxima-spread" (campaign files: sections = ["maxima-spread"]; the
// rt-kernel-2007 preset asks for it): the 2007 realtime-kernel comparisons noted that repeated
// 3-minute runs gave different maxima. Per case and per maximum (jack_test's Delay Maximum and
// Cycle Maximum, cyclictest's own maximum beside the run), the repetitions' maxima: their
// median, min..max, how far apart (max / min), their robust spread (IQR / 1.349 over the median,
// engine/stats/power.hpp robust_sd), and how many runs per kernel a comparison of two kernels
// would need to resolve a difference of 10, 20 or 50 % of this median if both kernels' maxima
// spread as this case's did (engine/stats/power.hpp runs_needed: an estimate, for one
// comparison at p < 0.05 with 80 % power). Non-realtime.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_report.hpp"

namespace xrunlab {

// The maxima the section describes (run_metrics names), in its order.
const std::vector<std::string>& maxima_spread_metrics();

// The differences (fractions of the median) it asks runs for.
inline constexpr double kMaximaSpreadDifferences[] = {0.10, 0.20, 0.50};

struct MaximaSpreadRow {
  std::string case_label;
  std::string metric;
  std::vector<double> maxima;  // one per finished run with the figure, in run order
  std::optional<double> median, min, max;
  std::optional<double> ratio;                     // max / min (absent when min <= 0)
  std::optional<double> robust_cv_pct;             // robust sd / median, %
  std::vector<std::optional<size_t>> runs_needed;  // per kMaximaSpreadDifferences
  std::vector<std::string> why_absent;             // per difference, when not known
  std::vector<bool> beyond_estimate;  // per difference: over a million runs (the spread dwarfs it)
};

// One row per case and maximum that some run of the case has.
std::vector<MaximaSpreadRow> maxima_spread(const CampaignReport& r);

// The section's text (a heading, its definition and one block per maximum); "" without rows.
std::string format_maxima_spread(const std::vector<MaximaSpreadRow>& rows);

// campaign-summary.json's "maxima_spread": the definition and the rows.
nlohmann::json maxima_spread_json(const std::vector<MaximaSpreadRow>& rows);

}  // namespace xrunlab
