// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The campaign section "preempt-2004" (the preempt-2004 preset asks for it): the table of the
// 2004 realtime-preempt application-latency test, one row per case (each load), in that test's
// terms for the clients' DSP loop against its calibrated nominal length: the % of loops within
// 100 us of nominal (median over the case's runs, with their min..max), the worst overhead in %
// of nominal and the longest loop against nominal (the worst over the runs), the median loop
// (median over the runs; above nominal, it shows the calibration's bias: every row's share
// within 100 us is then smaller for it), and with --ping
// the % of echo requests lost (median) with the requests sent and lost over all runs. Figures
// from run_metrics (dsp_within_100us_pct, dsp_overhead_max_pct, dsp_max_us, dsp_p50_us,
// dsp_nominal_us, ping_lost_pct). Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_report.hpp"

namespace xrunlab {

struct Preempt2004Row {
  std::string case_label;
  size_t runs = 0;
  std::optional<double> within_100us_median, within_100us_min, within_100us_max;
  std::optional<double> worst_overhead_pct, worst_loop_us, nominal_us;
  std::optional<double> median_loop_us;  // the runs' median loops (dsp_p50_us), their median
  std::optional<double> ping_lost_pct_median;
  std::vector<double> ping_lost_pct;  // per run with --ping figures
};

std::vector<Preempt2004Row> preempt_2004_rows(const CampaignReport& r);

// The section's text; "" without a row that has the DSP figures.
std::string format_preempt_2004(const std::vector<Preempt2004Row>& rows);

nlohmann::json preempt_2004_json(const std::vector<Preempt2004Row>& rows);

}  // namespace xrunlab
