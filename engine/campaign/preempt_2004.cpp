// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/preempt_2004.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/stats/describe.hpp"
#include "engine/stats/verdict.hpp"

namespace xrunlab {
namespace {

constexpr const char* kDefinition =
    "the 2004 realtime-preempt application-latency table: per load, the clients' DSP loops (each "
    "client's DSP hop, entry -> exit, against its calibrated nominal length) within 100 us of "
    "nominal, % of every client's cycles (median over the runs, [min..max]); the median loop "
    "(median over the runs: above nominal, the calibration's bias, which lowers every row's "
    "share within 100 us); the worst overhead over nominal and the longest loop against nominal "
    "(the worst run); with --ping, the echo requests lost (median % over the runs)";

std::optional<double> worst(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return *std::max_element(v.begin(), v.end());
}

std::string number(const std::optional<double>& v) {
  return v ? stats::format_number(*v) : std::string("-");
}

}  // namespace

std::vector<Preempt2004Row> preempt_2004_rows(const CampaignReport& r) {
  std::vector<Preempt2004Row> rows;
  for (const CaseFigures& f : r.cases) {
    Preempt2004Row row;
    row.case_label = f.c->label;
    row.runs = f.runs;
    const stats::Description within = stats::describe(f.of("dsp_within_100us_pct"));
    row.within_100us_median = within.median;
    row.within_100us_min = within.min;
    row.within_100us_max = within.max;
    row.worst_overhead_pct = worst(f.of("dsp_overhead_max_pct"));
    row.worst_loop_us = worst(f.of("dsp_max_us"));
    row.nominal_us = stats::describe(f.of("dsp_nominal_us")).median;
    row.median_loop_us = stats::describe(f.of("dsp_p50_us")).median;
    row.ping_lost_pct = f.of("ping_lost_pct");
    row.ping_lost_pct_median = stats::describe(row.ping_lost_pct).median;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string format_preempt_2004(const std::vector<Preempt2004Row>& rows) {
  const bool any = std::any_of(rows.begin(), rows.end(), [](const Preempt2004Row& row) {
    return row.within_100us_median.has_value();
  });
  if (!any) return "";
  const bool ping = std::any_of(rows.begin(), rows.end(), [](const Preempt2004Row& row) {
    return !row.ping_lost_pct.empty();
  });
  std::string out = fmt::format("\n The 2004 table: {}\n", kDefinition);
  out += fmt::format("   {:<28} {:>4}  {:>26}  {:>11}  {:>14}  {:>24}{}\n", "load", "runs",
                     "within 100 us of nominal", "median loop", "worst overhead",
                     "worst loop vs nominal", ping ? "  ping lost" : "");
  for (const Preempt2004Row& row : rows) {
    const std::string within =
        row.within_100us_median
            ? fmt::format("{} % [{}..{}]", number(row.within_100us_median),
                          number(row.within_100us_min), number(row.within_100us_max))
            : std::string("-");
    const std::string overhead =
        row.worst_overhead_pct ? fmt::format("{:.1f} %", *row.worst_overhead_pct) : "-";
    const std::string loop =
        row.worst_loop_us
            ? fmt::format("{} vs {} us", number(row.worst_loop_us), number(row.nominal_us))
            : std::string("-");
    std::string lost;
    if (ping) {
      lost = row.ping_lost_pct_median ? fmt::format("  {:>7} %", number(row.ping_lost_pct_median))
                                      : "        -";
    }
    const std::string median =
        row.median_loop_us ? number(row.median_loop_us) + " us" : std::string("-");
    out += fmt::format("   {:<28} {:>4}  {:>26}  {:>11}  {:>14}  {:>24}{}\n", row.case_label,
                       row.runs, within, median, overhead, loop, lost);
  }
  return out;
}

nlohmann::json preempt_2004_json(const std::vector<Preempt2004Row>& rows) {
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  nlohmann::json list = nlohmann::json::array();
  for (const Preempt2004Row& row : rows) {
    list.push_back({{"case", row.case_label},
                    {"runs", row.runs},
                    {"within_100us_pct_median", opt(row.within_100us_median)},
                    {"within_100us_pct_min", opt(row.within_100us_min)},
                    {"within_100us_pct_max", opt(row.within_100us_max)},
                    {"worst_overhead_pct", opt(row.worst_overhead_pct)},
                    {"worst_loop_us", opt(row.worst_loop_us)},
                    {"nominal_us", opt(row.nominal_us)},
                    {"median_loop_us", opt(row.median_loop_us)},
                    {"ping_lost_pct", row.ping_lost_pct},
                    {"ping_lost_pct_median", opt(row.ping_lost_pct_median)}});
  }
  return {{"definition", kDefinition}, {"rows", list}};
}

}  // namespace xrunlab
