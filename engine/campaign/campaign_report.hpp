// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a campaign's runs say together: per case, the distribution of each figure over its
// finished runs (median, IQR, min..max), and per pair of cases that differ in one axis only
// (fifo vs iso-emu:70 under the same load; fifo idle vs fifo under a compile; not fifo idle vs
// iso-emu:70 under a compile, where two things changed at once) a verdict on each main figure
// that never claims more than the repetitions support (engine/stats/verdict.hpp). Written as
// campaign-summary.txt and campaign-summary.json in the campaign's folder and printed at the
// end of the campaign; --fail-if checks each case's median. Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_plan.hpp"
#include "engine/campaign/campaign_store.hpp"
#include "engine/report/plot_format.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/stats/describe.hpp"
#include "engine/stats/verdict.hpp"

namespace xrunlab {

// The figures a campaign describes per case, and the main ones it compares pairwise.
const std::vector<std::string>& campaign_described_metrics();
const std::vector<std::string>& campaign_compared_metrics();

struct CaseFigures {
  const CampaignCase* c = nullptr;
  size_t runs = 0;    // finished counted runs
  double wall_s = 0;  // their `xrunlab run` processes' wall time, summed (JUnit's time)
  // Per figure of run_metrics(): the runs' values (a run without the figure adds none).
  std::vector<std::pair<std::string, std::vector<double>>> values;
  const std::vector<double>& of(const std::string& metric) const;
};

struct CampaignReport {
  std::string name;
  std::vector<CaseFigures> cases;
  std::vector<stats::Verdict> verdicts;     // per compared figure, per pair (a before b in order)
  std::vector<std::string> verdict_metric;  // the figure of each verdict
  std::vector<std::pair<size_t, size_t>> verdict_pair;  // the cases of each verdict (a, b)
};

// Whether two cases differ in exactly one axis value (the pairs the report compares).
bool one_axis_apart(const CampaignCase& a, const CampaignCase& b);

// Reads each finished counted run's run.json (relative to `dir`) into the report.
CampaignReport build_campaign_report(const CampaignPlan& plan, const CampaignState& state,
                                     const std::string& dir);

// The verdicts at a glance: one row per compared pair ("policy: fifo vs iso-emu:70 (load
// compile)"), one column per compared figure, each cell the better value of the differing axis
// and p where the runs resolve a difference, "~" and p (or "too few runs") where they do not,
// "-" where a case has no value. "" without verdicts.
std::string format_verdict_table(const CampaignReport& r);

// The per-case blocks, the verdict table, then every verdict's sentence.
std::string format_campaign_report(const CampaignReport& r);
nlohmann::json campaign_report_json(const CampaignReport& r);

// campaign.png (campaign.svg for `format` svg) in `dir`: one panel per figure (xrun rate, Delay
// Maximum, slack p1; those some case has), every finished run a point, per case a box plot (median,
// IQR, min..max; scripts/campaign.gp), from campaign-plot.csv and campaign-medians.csv, which stay
// beside it. Returns "" or what went wrong (a warning: the text report is complete without the
// picture). Never throws.
std::string draw_campaign_plot(const CampaignReport& r, const std::string& script_dir,
                               const std::string& dir, PlotFormat format = PlotFormat::kPng);

// --fail-if on each case's median; one JUnit case per campaign case.
std::vector<JunitCase> campaign_threshold_cases(const CampaignReport& r,
                                                const std::vector<Threshold>& thresholds);

}  // namespace xrunlab
