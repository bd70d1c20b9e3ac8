// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a campaign's runs say together: per case, the distribution of each figure over its
// finished runs (median, IQR, min..max), and per pair of cases that differ in one axis only
// (fifo vs iso-emu:70 under the same load; fifo idle vs fifo under a compile; not fifo idle vs
// iso-emu:70 under a compile, where two things changed at once) a verdict on each main figure
// that never claims more than the repetitions support (engine/stats/verdict.hpp). Written in
// full as campaign-summary.txt and campaign-summary.json in the campaign's folder; the end of
// the campaign prints its short block (format_campaign_brief); --fail-if checks each case's
// median. Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_plan.hpp"
#include "engine/campaign/campaign_store.hpp"
#include "engine/report/html_page.hpp"
#include "engine/report/lava.hpp"
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
  std::vector<std::string> sections;  // the campaign file's extra sections (campaign_spec.hpp)
  std::vector<CaseFigures> cases;
  std::vector<stats::Verdict> verdicts;     // per compared figure, per pair (a before b in order)
  std::vector<std::string> verdict_metric;  // the figure of each verdict
  std::vector<std::pair<size_t, size_t>> verdict_pair;  // the cases of each verdict (a, b)
};

// Whether the campaign file asked for the report section `name` (campaign_section_names()).
bool has_section(const CampaignReport& r, const std::string& name);

// Whether two cases set the same keys and differ in exactly one value (the pairs the report
// compares).
bool one_axis_apart(const CampaignCase& a, const CampaignCase& b);

// Reads each finished counted run's run.json (relative to `dir`) into the report.
CampaignReport build_campaign_report(const CampaignPlan& plan, const CampaignState& state,
                                     const std::string& dir);

// The verdicts at a glance: one row per compared pair ("policy: fifo vs iso-emu:70 (load
// compile)"), one column per compared figure, each cell the better value of the differing axis
// and p where the runs resolve a difference, "~" and p (or "too few runs") where they do not,
// "-" where a case has no value. "" without verdicts.
std::string format_verdict_table(const CampaignReport& r);

// The closing block a terminal gets (and campaign-summary.txt leads with), from the same report:
// format_case_medians, format_verdict_glance, then one sentence per difference claimed, the
// closest-call line and the campaign file's sections (the preset's own tables: preempt-2004,
// maxima-spread). `tables_only` (-q): the two tables alone.
std::string format_campaign_brief(const CampaignReport& r, bool tables_only = false);

// One row per case: its finished runs and the median of each compared figure some case has
// ("-" where the case has no value).
std::string format_case_medians(const CampaignReport& r);

// The verdict table cut to what was claimed: a row per pair with a difference claimed on some
// figure, a column per figure with a claim, "~" where the runs resolve none; then one line for
// the pairs without a claim. Without any claim, one line saying so. "" without verdicts.
std::string format_verdict_glance(const CampaignReport& r);

// The unresolved verdict that the fewest runs per case would resolve: of those whose medians
// differ, the smallest runs_needed_seen (a power estimate for a difference as large as the one
// seen, at the noise seen); the first in the report's order on a tie. nullopt when every
// verdict is resolved or none has an estimate.
std::optional<size_t> closest_call(const CampaignReport& r);

// One line on the closest call: " About 9 runs per case would resolve the closest call,
// xrun_rate, policy: fifo vs iso-emu:70 (load none) (median 31 vs 58 /min; an estimate for a
// difference as large, at this noise, in one comparison; 2 vs 2 runs now)" ("... did not" when
// the estimate is no more than the runs in hand); a line saying there is no estimate when none
// has one; "" when every verdict is resolved (or there is none).
std::string format_closest_call(const CampaignReport& r);

// campaign-summary.txt: the brief block, then the per-case blocks (median [IQR] min..max, each
// case's `xrunlab run` arguments), the full verdict table and every verdict's sentence.
std::string format_campaign_report(const CampaignReport& r);
nlohmann::json campaign_report_json(const CampaignReport& r);

// The plot of the section "maxima-spread" (maxima_spread.hpp): maxima-spread.png (.svg) in
// `dir`, one panel per maximum some case has (Delay Maximum, Cycle Maximum, cyclictest's), each
// repetition's maximum a point, per case its box plot (scripts/campaign.gp), from
// maxima-spread-plot.csv and maxima-spread-medians.csv. "" or what went wrong. Never throws.
std::string draw_maxima_spread_plot(const CampaignReport& r, const std::string& script_dir,
                                    const std::string& dir, PlotFormat format = PlotFormat::kPng);

// The campaign's report.html, one self-contained page (engine/report/html_page.hpp): its
// heading (the cases, the runs, how many differences the runs resolve), the short block, the
// plots (`plots`: campaign.png or .svg, embedded), the verdict table and the whole
// campaign-summary.txt (each case's distributions, every verdict's sentence).
std::string format_campaign_html(const CampaignReport& r, const std::vector<ReportPlot>& plots);

// The campaign's one-line answer, the page's heading: "campaign NAME: 10 cases, 20 runs; 2
// differences resolved (of 175 comparisons)".
std::string campaign_headline(const CampaignReport& r);

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

// --lava: per case, its cases of lava.hpp (L-runs, then each figure as the case's median over
// its counted runs, checked against the thresholds as campaign_threshold_cases does).
std::vector<LavaCase> campaign_lava_cases(const CampaignReport& r,
                                          const std::vector<Threshold>& thresholds);

}  // namespace xrunlab
