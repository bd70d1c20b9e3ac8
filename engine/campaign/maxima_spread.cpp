// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/maxima_spread.hpp"

#include <fmt/format.h>

#include <cmath>

#include "engine/report/run_metrics.hpp"
#include "engine/stats/describe.hpp"
#include "engine/stats/power.hpp"
#include "engine/stats/verdict.hpp"

namespace xrunlab {
namespace {

constexpr const char* kDefinition =
    "per case, the maxima of its repetitions: median, min..max, max / min, and their robust "
    "spread (IQR / 1.349, as % of the median); then the runs per kernel that a comparison of two "
    "kernels would need to resolve a difference of 10, 20 or 50 % of this median, if both "
    "kernels' maxima spread as these did (an estimate: two-sided rank test, p < 0.05, 80 % "
    "power, one comparison; at least 4 runs, the fewest with which that test can reach "
    "p < 0.05)";

std::string number(const std::optional<double>& v) {
  return v ? stats::format_number(*v) : std::string("-");
}

}  // namespace

const std::vector<std::string>& maxima_spread_metrics() {
  static const std::vector<std::string> m = {"delay_max", "cycle_max", "baseline_max"};
  return m;
}

std::vector<MaximaSpreadRow> maxima_spread(const CampaignReport& r) {
  std::vector<MaximaSpreadRow> rows;
  for (const std::string& m : maxima_spread_metrics()) {
    for (const CaseFigures& f : r.cases) {
      const std::vector<double>& v = f.of(m);
      if (v.empty()) continue;
      MaximaSpreadRow row;
      row.case_label = f.c->label;
      row.metric = m;
      row.maxima = v;
      const stats::Description d = stats::describe(v);
      row.median = d.median;
      row.min = d.min;
      row.max = d.max;
      if (d.min && d.max && *d.min > 0) row.ratio = std::round(*d.max / *d.min * 100.0) / 100.0;
      const std::optional<double> sd = stats::robust_sd(d);
      if (sd && d.median && *d.median != 0) {
        row.robust_cv_pct = std::round(*sd / std::fabs(*d.median) * 1000.0) / 10.0;
      }
      for (const double diff : kMaximaSpreadDifferences) {
        const stats::RunsNeeded n = stats::runs_needed(v, v, diff);
        row.runs_needed.push_back(n.runs_per_case);
        row.why_absent.push_back(n.runs_per_case ? "" : n.why_absent);
        row.beyond_estimate.push_back(!n.runs_per_case && n.noise_sd && *n.noise_sd > 0 &&
                                      n.delta && *n.delta > 0);
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

std::string format_maxima_spread(const std::vector<MaximaSpreadRow>& rows) {
  if (rows.empty()) return "";
  std::string out = fmt::format("\n Spread of the maxima across repetitions: {}\n", kDefinition);
  std::string last;
  for (const MaximaSpreadRow& row : rows) {
    if (row.metric != last) {
      last = row.metric;
      const RunMetric* m = find_run_metric(row.metric);
      out += fmt::format("\n {}{}\n", m->label, m->unit.empty() ? "" : " (" + m->unit + ")");
      out +=
          fmt::format("   {:<32} {:>4}  {:>9}  {:>19}  {:>7}  {:>8}  {}\n", "case", "runs",
                      "median", "min..max", "max/min", "spread", "runs per kernel for 10/20/50 %");
    }
    std::string runs;
    for (size_t i = 0; i < row.runs_needed.size(); ++i) {
      runs += (i > 0 ? "/" : "") + (row.runs_needed[i] ? fmt::format("{}", *row.runs_needed[i])
                                    : row.beyond_estimate[i] ? std::string(">1e6")
                                                             : std::string("-"));
    }
    out += fmt::format(
        "   {:<32} {:>4}  {:>9}  {:>19}  {:>9}  {:>10}  {}\n", row.case_label, row.maxima.size(),
        number(row.median),
        row.min ? fmt::format("{}..{}", number(row.min), number(row.max)) : std::string("-"),
        row.ratio ? fmt::format("{:.2f}x", *row.ratio) : std::string("-"),
        row.robust_cv_pct ? fmt::format("{:.1f} %", *row.robust_cv_pct) : std::string("-"), runs);
  }
  out +=
      "   (\"-\": no estimate: fewer than 2 runs, or maxima all equal, so that any difference "
      "shows at once; \">1e6\": over a million runs, the spread dwarfs the difference)\n";
  return out;
}

nlohmann::json maxima_spread_json(const std::vector<MaximaSpreadRow>& rows) {
  auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json list = nlohmann::json::array();
  for (const MaximaSpreadRow& row : rows) {
    nlohmann::json runs = nlohmann::json::object();
    for (size_t i = 0; i < row.runs_needed.size(); ++i) {
      // null: no estimate; "over 1000000": the spread dwarfs the difference.
      runs[fmt::format("{:.0f}pct", kMaximaSpreadDifferences[i] * 100)] =
          row.beyond_estimate[i] ? nlohmann::json("over 1000000") : opt(row.runs_needed[i]);
    }
    list.push_back({{"case", row.case_label},
                    {"metric", row.metric},
                    {"maxima", row.maxima},
                    {"median", opt(row.median)},
                    {"min", opt(row.min)},
                    {"max", opt(row.max)},
                    {"max_over_min", opt(row.ratio)},
                    {"robust_spread_pct", opt(row.robust_cv_pct)},
                    {"runs_per_kernel_needed", runs}});
  }
  return {{"definition", kDefinition}, {"rows", list}};
}

}  // namespace xrunlab
