// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/campaign_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "engine/base/text.hpp"
#include "engine/campaign/maxima_spread.hpp"
#include "engine/campaign/periodic_2001.hpp"
#include "engine/campaign/preempt_2004.hpp"
#include "engine/report/plots.hpp"
#include "engine/result/run_json.hpp"
#include "engine/stats/multiple.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/file_owner.hpp"

namespace xrunlab {

namespace {

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

// The pair as a row heading: the differing axis and its two values, then what the cases share.
std::string pair_heading(const CampaignCase& a, const CampaignCase& b) {
  std::string differ, shared;
  for (size_t i = 0; i < a.axes.size() && i < b.axes.size(); ++i) {
    if (a.axes[i].second != b.axes[i].second) {
      differ = fmt::format("{}: {} vs {}", a.axes[i].first, a.axes[i].second, b.axes[i].second);
    } else {
      shared +=
          fmt::format("{}{} {}", shared.empty() ? "" : ", ", a.axes[i].first, a.axes[i].second);
    }
  }
  return shared.empty() ? differ : differ + " (" + shared + ")";
}

// The differing axis's value of case `c` against `other` (its name when none differs).
std::string differing_value(const CampaignCase& c, const CampaignCase& other) {
  for (size_t i = 0; i < c.axes.size() && i < other.axes.size(); ++i) {
    if (c.axes[i].second != other.axes[i].second) return c.axes[i].second;
  }
  return c.name;
}

// The cell's evidence: q among several comparisons ("q = 0.031", "q < 0.001"), else p.
std::string evidence(const stats::Verdict& v) {
  if (!v.q) return stats::format_p(v.test->p);
  const std::string q = stats::format_q(*v.q);
  return q.front() == '<' ? "q " + q : "q = " + q;
}

std::string table_cell(const stats::Verdict& v, const CampaignCase& a, const CampaignCase& b) {
  if (!v.test) return "-";
  if (v.resolved && v.a_better) {
    return fmt::format("{} ({})", *v.a_better ? differing_value(a, b) : differing_value(b, a),
                       evidence(v));
  }
  if (v.smallest_p && *v.smallest_p >= stats::kVerdictAlpha) return "~ (too few runs)";
  return fmt::format("~ ({})", evidence(v));
}

// The number of tests the report's verdicts were adjusted for (1: none).
size_t comparisons(const CampaignReport& r) {
  for (const stats::Verdict& v : r.verdicts) {
    if (v.comparisons > 1) return v.comparisons;
  }
  return 1;
}

// The compared figures some case has, in their order.
std::vector<std::string> figures_present(const CampaignReport& r) {
  std::vector<std::string> out;
  for (const std::string& m : campaign_compared_metrics()) {
    const bool any = std::any_of(r.cases.begin(), r.cases.end(),
                                 [&](const CaseFigures& f) { return !f.of(m).empty(); });
    if (any) out.push_back(m);
  }
  return out;
}

// The pairs in the order they first appear among the verdicts.
std::vector<std::pair<size_t, size_t>> verdict_pairs(const CampaignReport& r) {
  std::vector<std::pair<size_t, size_t>> pairs;
  for (const auto& p : r.verdict_pair) {
    if (std::find(pairs.begin(), pairs.end(), p) == pairs.end()) pairs.push_back(p);
  }
  return pairs;
}

// Whether no verdict with a test could ever be resolved: too few runs for p < 0.05.
bool every_test_too_small(const CampaignReport& r) {
  bool any = false;
  for (const stats::Verdict& v : r.verdicts) {
    if (!v.test) continue;
    any = true;
    if (!v.smallest_p || *v.smallest_p < stats::kVerdictAlpha) return false;
  }
  return any;
}

}  // namespace

bool one_axis_apart(const CampaignCase& a, const CampaignCase& b) {
  // The same keys in the same order: a [[cases]] case sets keys of its own.
  if (a.axes.size() != b.axes.size()) return false;
  size_t differ = 0;
  for (size_t i = 0; i < a.axes.size(); ++i) {
    if (a.axes[i].first != b.axes[i].first) return false;
    differ += a.axes[i].second != b.axes[i].second ? 1 : 0;
  }
  return differ == 1;
}

const std::vector<std::string>& campaign_described_metrics() {
  static const std::vector<std::string> m = {
      "xrun_rate",  "xrun_count",        "delay_max",    "cycle_max",     "slack_p1", "slack_min",
      "wakeup_p99", "client_wakeup_p99", "baseline_p99", "ping_lost_pct", "glitches", "dsp_load"};
  return m;
}

const std::vector<std::string>& campaign_compared_metrics() {
  // The xrun events, jack_test's XRUN Count and the audible glitches side by side: they can
  // rank two cases in opposite orders (consecutive missed cycles are one event, so a policy
  // whose misses come in long stalls has fewer events and more driver xruns and glitches).
  static const std::vector<std::string> m = {"xrun_rate",        "xrun_count", "glitches",
                                             "delay_max",        "slack_p1",   "wakeup_p99",
                                             "client_wakeup_p99"};
  return m;
}

const std::vector<double>& CaseFigures::of(const std::string& metric) const {
  static const std::vector<double> none;
  for (const auto& [name, v] : values) {
    if (name == metric) return v;
  }
  return none;
}

CampaignReport build_campaign_report(const CampaignPlan& plan, const CampaignState& state,
                                     const std::string& dir) {
  CampaignReport r;
  r.name = plan.name;
  r.sections = plan.sections;
  for (const CampaignCase& c : plan.cases) {
    CaseFigures f;
    f.c = &c;
    for (const RunMetric& m : run_metrics()) f.values.push_back({m.name, {}});
    for (const CampaignRunRecord& run : state.runs) {
      if (run.warmup || run.case_index != c.index || run.status != "completed") continue;
      const std::optional<RunResult> j = read_run_json(dir + "/" + run.run_dir + "/run.json");
      if (!j) continue;
      ++f.runs;
      f.wall_s += run.wall_s;
      for (auto& [name, v] : f.values) {
        if (const auto x = run_metric(*j, name)) v.push_back(*x);
      }
    }
    r.cases.push_back(std::move(f));
  }
  // Every comparison first, so that each test's p can be adjusted for all the others.
  for (const std::string& m : campaign_compared_metrics()) {
    for (size_t a = 0; a < r.cases.size(); ++a) {
      for (size_t b = a + 1; b < r.cases.size(); ++b) {
        if (!one_axis_apart(*r.cases[a].c, *r.cases[b].c)) continue;
        // A figure neither case has (no cycle table) is no comparison.
        if (r.cases[a].of(m).empty() && r.cases[b].of(m).empty()) continue;
        r.verdict_metric.push_back(m);
        r.verdict_pair.emplace_back(a, b);
      }
    }
  }
  std::vector<double> ps;
  std::vector<std::optional<size_t>> tested;  // each comparison's index into ps
  for (size_t i = 0; i < r.verdict_metric.size(); ++i) {
    const auto [a, b] = r.verdict_pair[i];
    const std::optional<double> p =
        stats::comparison_p(r.cases[a].of(r.verdict_metric[i]), r.cases[b].of(r.verdict_metric[i]));
    tested.push_back(p ? std::optional<size_t>(ps.size()) : std::nullopt);
    if (p) ps.push_back(*p);
  }
  const std::vector<double> qs = stats::benjamini_hochberg(ps);
  for (size_t i = 0; i < r.verdict_metric.size(); ++i) {
    const auto [a, b] = r.verdict_pair[i];
    const std::string& m = r.verdict_metric[i];
    std::optional<stats::Adjusted> adjusted;
    if (tested[i]) adjusted = stats::Adjusted{qs[*tested[i]], ps.size()};
    r.verdicts.push_back(stats::compare_cases(r.cases[a].c->name, r.cases[a].of(m),
                                              r.cases[b].c->name, r.cases[b].of(m),
                                              stats_metric(*find_run_metric(m)), adjusted));
  }
  return r;
}

std::string format_case_medians(const CampaignReport& r) {
  const std::vector<std::string> figures = figures_present(r);
  std::vector<std::vector<std::string>> rows = {{"case", "runs"}, {"", ""}};
  for (const std::string& m : figures) {
    rows[0].push_back(m);
    rows[1].push_back(find_run_metric(m)->unit);
  }
  for (const CaseFigures& f : r.cases) {
    std::vector<std::string> row = {f.c->label, std::to_string(f.runs)};
    for (const std::string& m : figures) {
      const std::optional<double> median = stats::describe(f.of(m)).median;
      row.push_back(median ? stats::format_number(*median) : "-");
    }
    rows.push_back(std::move(row));
  }
  return " Medians over each case's finished runs (\"-\": no value)\n" + aligned_columns(rows, 1);
}

std::string format_verdict_glance(const CampaignReport& r) {
  if (r.verdicts.empty()) return "";
  const std::vector<std::pair<size_t, size_t>> pairs = verdict_pairs(r);
  std::vector<std::pair<size_t, size_t>> claimed_pairs;
  std::vector<std::string> claimed_figures;
  for (const std::string& m : campaign_compared_metrics()) {
    for (size_t i = 0; i < r.verdicts.size(); ++i) {
      if (r.verdict_metric[i] != m || !r.verdicts[i].resolved) continue;
      if (claimed_figures.empty() || claimed_figures.back() != m) claimed_figures.push_back(m);
    }
  }
  for (const auto& p : pairs) {
    for (size_t i = 0; i < r.verdicts.size(); ++i) {
      if (r.verdict_pair[i] == p && r.verdicts[i].resolved) {
        claimed_pairs.push_back(p);
        break;
      }
    }
  }
  const size_t figures = figures_present(r).size();
  std::string out = fmt::format(" Verdicts: {} pair(s) of cases one axis apart x {} figure(s)",
                                pairs.size(), figures);
  if (comparisons(r) > 1) out += fmt::format(", {} comparisons", comparisons(r));
  if (claimed_pairs.empty()) {
    out += ": no difference resolved";
    if (every_test_too_small(r)) out += " (too few runs: the test cannot reach p < 0.05)";
    return out + "\n";
  }
  out += fmt::format("; the better value where a difference is claimed{}, \"~\" where none is\n",
                     comparisons(r) > 1 ? " (q: p adjusted for them all, Benjamini-Hochberg)" : "");
  std::vector<std::vector<std::string>> rows = {{"pair"}};
  for (const std::string& m : claimed_figures) rows[0].push_back(m);
  for (const auto& [a, b] : claimed_pairs) {
    std::vector<std::string> row = {pair_heading(*r.cases[a].c, *r.cases[b].c)};
    for (const std::string& m : claimed_figures) {
      std::string text = "-";
      for (size_t i = 0; i < r.verdicts.size(); ++i) {
        if (r.verdict_pair[i] != std::make_pair(a, b) || r.verdict_metric[i] != m) continue;
        const stats::Verdict& v = r.verdicts[i];
        text = v.resolved ? table_cell(v, *r.cases[a].c, *r.cases[b].c) : (v.test ? "~" : "-");
      }
      row.push_back(std::move(text));
    }
    rows.push_back(std::move(row));
  }
  out += aligned_columns(rows, rows[0].size());
  if (claimed_pairs.size() < pairs.size()) {
    out += fmt::format("   the other {} pair(s): no difference resolved\n",
                       pairs.size() - claimed_pairs.size());
  }
  return out;
}

std::optional<size_t> closest_call(const CampaignReport& r) {
  std::optional<size_t> best;
  for (size_t i = 0; i < r.verdicts.size(); ++i) {
    const stats::Verdict& v = r.verdicts[i];
    if (v.resolved || !v.runs_needed_seen || !v.runs_needed_seen->runs_per_case) continue;
    if (!best ||
        *v.runs_needed_seen->runs_per_case < *r.verdicts[*best].runs_needed_seen->runs_per_case) {
      best = i;
    }
  }
  return best;
}

std::string format_closest_call(const CampaignReport& r) {
  const bool open = std::any_of(r.verdicts.begin(), r.verdicts.end(),
                                [](const stats::Verdict& v) { return !v.resolved; });
  if (!open) return "";
  const std::optional<size_t> i = closest_call(r);
  if (!i) {
    return " No estimate of the runs per case that would resolve an open comparison (each "
           "verdict's sentence says why)\n";
  }
  const stats::Verdict& v = r.verdicts[*i];
  const RunMetric* m = find_run_metric(r.verdict_metric[*i]);
  const size_t needed = *v.runs_needed_seen->runs_per_case;
  // Saying "N would be needed" with N in hand would mislead (a miss at 80 % power happens one
  // campaign in five): then the line says these runs did not resolve it.
  const std::string now = needed <= std::min(v.n_a, v.n_b)
                              ? fmt::format("; {} vs {} runs did not", v.n_a, v.n_b)
                              : fmt::format("; {} vs {} runs now", v.n_a, v.n_b);
  return fmt::format(
      " About {} runs per case would resolve the closest call, {}, {} (median {} vs {}{}; an "
      "estimate for a difference as large, at this noise, in one comparison{})\n",
      needed, m->name,
      pair_heading(*r.cases[r.verdict_pair[*i].first].c, *r.cases[r.verdict_pair[*i].second].c),
      stats::format_number(*v.median_a), stats::format_number(*v.median_b),
      m->unit.empty() ? "" : " " + m->unit, now);
}

bool has_section(const CampaignReport& r, const std::string& name) {
  return std::find(r.sections.begin(), r.sections.end(), name) != r.sections.end();
}

std::string format_campaign_brief(const CampaignReport& r, bool tables_only) {
  std::string out = format_case_medians(r);
  const std::string glance = format_verdict_glance(r);
  if (!glance.empty()) out += "\n" + glance;
  if (tables_only) return out;
  bool first = true;
  for (size_t i = 0; i < r.verdicts.size(); ++i) {
    if (!r.verdicts[i].resolved) continue;
    out += fmt::format("{}   {}\n", first ? "\n" : "", r.verdicts[i].sentence);
    first = false;
  }
  const std::string closest = format_closest_call(r);
  if (!closest.empty()) out += "\n" + closest;
  // The preset's own tables (the campaign file's sections) belong to the short answer.
  if (has_section(r, "periodic-2001")) out += format_periodic_2001(periodic_2001(r));
  if (has_section(r, "preempt-2004")) out += format_preempt_2004(preempt_2004_rows(r));
  if (has_section(r, "maxima-spread")) out += format_maxima_spread(maxima_spread(r));
  return out;
}

std::string format_campaign_report(const CampaignReport& r) {
  std::string out = fmt::format("Campaign {}\n\n", r.name) + format_campaign_brief(r) +
                    "\n\nIn full: per case, median [IQR] min..max over its finished runs\n";
  for (const CaseFigures& f : r.cases) {
    out += fmt::format("  {} = xrunlab run", f.c->label);
    for (const std::string& a : f.c->run_args) out += " " + a;
    out += "\n";
  }
  // One block per figure keeps the lines short whatever the number of cases.
  for (const std::string& m : campaign_described_metrics()) {
    const RunMetric* rm = find_run_metric(m);
    bool any = false;
    for (const CaseFigures& f : r.cases) any = any || !f.of(m).empty();
    if (!any) continue;
    out += fmt::format("\n {}{}\n", rm->label, rm->unit.empty() ? "" : " (" + rm->unit + ")");
    for (const CaseFigures& f : r.cases) {
      const std::vector<double>& v = f.of(m);
      out += fmt::format("   {:<32} {:>2} of {:>2} runs  {}\n", f.c->label, v.size(), f.runs,
                         describe_cell(stats::describe(v)));
    }
  }
  out += format_verdict_table(r);
  if (!r.verdicts.empty()) {
    out += fmt::format(
        "\n Verdicts between cases that differ in one axis only (two-sided Mann-Whitney test; "
        "95 % interval of the Hodges-Lehmann difference; a difference is claimed only when "
        "p < 0.05 and the interval excludes 0{}):\n",
        comparisons(r) > 1
            ? fmt::format(", and the p adjusted for the report's {} comparisons (Benjamini-"
                          "Hochberg: of the differences claimed, at most 5 % are expected to "
                          "be chance) is below 0.05 too",
                          comparisons(r))
            : "");
    std::string last;
    for (size_t i = 0; i < r.verdicts.size(); ++i) {
      if (r.verdict_metric[i] != last) {
        last = r.verdict_metric[i];
        out += fmt::format("   {}:\n", find_run_metric(last)->label);
      }
      out += "     " + r.verdicts[i].sentence + "\n";
    }
  }
  return out;
}

std::string format_verdict_table(const CampaignReport& r) {
  if (r.verdicts.empty()) return "";
  // Rows in the order the pairs first appear; columns in the compared figures' order.
  std::vector<std::pair<size_t, size_t>> pairs;
  std::vector<std::string> metrics;
  for (size_t i = 0; i < r.verdicts.size(); ++i) {
    if (std::find(pairs.begin(), pairs.end(), r.verdict_pair[i]) == pairs.end()) {
      pairs.push_back(r.verdict_pair[i]);
    }
    if (std::find(metrics.begin(), metrics.end(), r.verdict_metric[i]) == metrics.end()) {
      metrics.push_back(r.verdict_metric[i]);
    }
  }
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"pair"});
  for (const std::string& m : metrics) rows[0].push_back(m);
  for (const auto& [a, b] : pairs) {
    const CampaignCase& ca = *r.cases[a].c;
    const CampaignCase& cb = *r.cases[b].c;
    std::vector<std::string> row = {pair_heading(ca, cb)};
    for (const std::string& m : metrics) {
      std::string text = "-";
      for (size_t i = 0; i < r.verdicts.size(); ++i) {
        if (r.verdict_pair[i] == std::make_pair(a, b) && r.verdict_metric[i] == m) {
          text = table_cell(r.verdicts[i], ca, cb);
        }
      }
      row.push_back(text);
    }
    rows.push_back(std::move(row));
  }
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  }
  std::string out =
      "\n Verdicts at a glance: one row per pair of cases that differ in one axis; per figure\n"
      " the better value of that axis where the runs resolve a difference, \"~\" where they do\n"
      " not, \"-\" where a case has no value (the sentences below give the medians, intervals\n"
      " and runs needed)\n";
  if (comparisons(r) > 1) {
    out += fmt::format(
        " q: the p-value adjusted for all {} comparisons of this report (Benjamini-Hochberg)\n",
        comparisons(r));
  }
  for (const auto& row : rows) {
    std::string line = "   ";
    for (size_t k = 0; k < row.size(); ++k) {
      line += fmt::format("{:<{}}", row[k], k + 1 < row.size() ? width[k] + 3 : 0);
    }
    out += line + "\n";
  }
  return out;
}

nlohmann::json campaign_report_json(const CampaignReport& r) {
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseFigures& f : r.cases) {
    nlohmann::json figures = nlohmann::json::object();
    for (const auto& [name, v] : f.values) {
      if (v.empty()) continue;
      const stats::Description d = stats::describe(v);
      figures[name] = {{"values", v},     {"median", opt(d.median)}, {"q1", opt(d.q1)},
                       {"q3", opt(d.q3)}, {"min", opt(d.min)},       {"max", opt(d.max)}};
    }
    cases.push_back({{"case", f.c->index},
                     {"name", f.c->name},
                     {"label", f.c->label},
                     {"runs", f.runs},
                     {"figures", std::move(figures)}});
  }
  nlohmann::json verdicts = nlohmann::json::array();
  for (size_t i = 0; i < r.verdicts.size(); ++i) {
    const stats::Verdict& v = r.verdicts[i];
    nlohmann::json ci = nullptr;
    if (v.shift && v.shift->ci95) ci = {v.shift->ci95->low, v.shift->ci95->high};
    verdicts.push_back(
        {{"figure", r.verdict_metric[i]},
         {"pair",
          pair_heading(*r.cases[r.verdict_pair[i].first].c, *r.cases[r.verdict_pair[i].second].c)},
         {"a", v.name_a},
         {"b", v.name_b},
         {"n_a", v.n_a},
         {"n_b", v.n_b},
         {"median_a", opt(v.median_a)},
         {"median_b", opt(v.median_b)},
         {"shift", v.shift ? nlohmann::json(v.shift->estimate) : nlohmann::json()},
         {"ci95", ci},
         {"p", v.test ? nlohmann::json(v.test->p) : nlohmann::json()},
         {"q", opt(v.q)},
         {"comparisons", v.comparisons},
         {"test", v.test ? nlohmann::json(std::string(stats::test_kind_name(v.test->kind)))
                         : nlohmann::json()},
         {"runs_needed_for_20pct", v.runs_needed.runs_per_case
                                       ? nlohmann::json(*v.runs_needed.runs_per_case)
                                       : nlohmann::json()},
         {"runs_needed_seen", v.runs_needed_seen && v.runs_needed_seen->runs_per_case
                                  ? nlohmann::json(*v.runs_needed_seen->runs_per_case)
                                  : nlohmann::json()},
         {"resolved", v.resolved},
         {"better",
          v.a_better ? nlohmann::json(*v.a_better ? v.name_a : v.name_b) : nlohmann::json()},
         {"sentence", v.sentence}});
  }
  // The open comparison the fewest runs per case would resolve (closest_call), as the brief
  // block says it.
  nlohmann::json closest = nullptr;
  if (const std::optional<size_t> i = closest_call(r)) {
    const stats::Verdict& v = r.verdicts[*i];
    std::string line = format_closest_call(r);
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    while (!line.empty() && line.front() == ' ') line.erase(0, 1);
    closest = {{"verdict", *i},
               {"figure", r.verdict_metric[*i]},
               {"pair", verdicts[*i]["pair"]},
               {"runs_per_case", *v.runs_needed_seen->runs_per_case},
               {"n_a", v.n_a},
               {"n_b", v.n_b},
               {"sentence", line}};
  }
  nlohmann::json out = {{"name", r.name},
                        {"cases", std::move(cases)},
                        {"verdicts", std::move(verdicts)},
                        {"closest_call", std::move(closest)}};
  if (has_section(r, "maxima-spread")) out["maxima_spread"] = maxima_spread_json(maxima_spread(r));
  if (has_section(r, "preempt-2004")) out["preempt_2004"] = preempt_2004_json(preempt_2004_rows(r));
  if (has_section(r, "periodic-2001")) out["periodic_2001"] = periodic_2001_json(periodic_2001(r));
  return out;
}

namespace {

// campaign.gp's picture of `candidates` (those some case has, up to three) as BASE.png (.svg)
// in `dir`, from BASE-plot.csv and BASE-medians.csv, under `plot_title`.
std::string draw_case_plot(const CampaignReport& r, const std::vector<std::string>& candidates,
                           const std::string& base, const std::string& plot_title,
                           const std::string& script_dir, const std::string& dir,
                           PlotFormat format) {
  if (script_dir.empty()) return "the plot scripts (campaign.gp) were not found";
  std::vector<std::string> figures;
  for (const std::string& m : candidates) {
    bool any = false;
    for (const CaseFigures& f : r.cases) any = any || !f.of(m).empty();
    if (any) figures.emplace_back(m);
  }
  if (figures.empty() || r.cases.empty()) return "no finished run has a figure to draw";
  auto num = [](std::optional<double> v) { return v ? fmt::format("{}", *v) : std::string(); };
  std::string runs = "case,label,x";
  std::string medians = "case,label";
  for (const std::string& m : figures) {
    runs += "," + m;
    for (const char* k : {"median", "q1", "q3", "min", "max"})
      medians += fmt::format(",{}_{}", k, m);
  }
  runs += "\n";
  medians += "\n";
  for (size_t c = 0; c < r.cases.size(); ++c) {
    const CaseFigures& f = r.cases[c];
    size_t rows = 0;
    for (const std::string& m : figures) rows = std::max(rows, f.of(m).size());
    for (size_t i = 0; i < rows; ++i) {
      // Spread a case's runs across +-0.2 of its column.
      const double x =
          static_cast<double>(c + 1) +
          (rows > 1 ? -0.2 + 0.4 * static_cast<double>(i) / static_cast<double>(rows - 1) : 0.0);
      runs += fmt::format("{},{},{}", c + 1, f.c->label, x);
      for (const std::string& m : figures) {
        const std::vector<double>& v = f.of(m);
        runs += "," + (i < v.size() ? fmt::format("{}", v[i]) : std::string());
      }
      runs += "\n";
    }
    medians += fmt::format("{},{}", c + 1, f.c->label);
    for (const std::string& m : figures) {
      const stats::Description d = stats::describe(f.of(m));
      for (const std::optional<double>& v : {d.median, d.q1, d.q3, d.min, d.max}) {
        medians += "," + num(v);
      }
    }
    medians += "\n";
  }
  try {
    write_output_file(dir + "/" + base + "-plot.csv", runs);
    write_output_file(dir + "/" + base + "-medians.csv", medians);
  } catch (const std::exception& e) {
    return e.what();
  }
  const std::string out = dir + "/" + plot_file(base, format);
  std::vector<std::string> args = {
      dir + "/" + base + "-plot.csv", dir + "/" + base + "-medians.csv", out, plot_title,
      std::to_string(r.cases.size()), std::to_string(figures.size())};
  for (const std::string& m : figures) {
    const RunMetric* rm = find_run_metric(m);
    std::string title = rm->unit.empty() ? rm->label : rm->label + " (" + rm->unit + ")";
    // A logarithmic axis where the runs span over 20x and none is 0 or below (a log axis
    // would drop those): one stalled run must not flatten every other case to the floor.
    double low = 0, high = 0;
    bool first = true;
    for (const CaseFigures& f : r.cases) {
      for (double v : f.of(m)) {
        low = first ? v : std::min(low, v);
        high = first ? v : std::max(high, v);
        first = false;
      }
    }
    if (!first && low > 0 && high > 20 * low) title += ", log scale";  // campaign.gp reads this
    args.push_back(title);
  }
  hand_over_file(out);  // gnuplot writes it (under sudo: as root)
  return run_gnuplot(gnuplot_argv("gnuplot", script_dir + "/campaign.gp", format, args),
                     std::chrono::seconds(60));
}

}  // namespace

std::string draw_campaign_plot(const CampaignReport& r, const std::string& script_dir,
                               const std::string& dir, PlotFormat format) {
  return draw_case_plot(r, {"xrun_rate", "delay_max", "slack_p1"}, "campaign",
                        fmt::format("xrunlab campaign {}: every finished run (point); per case "
                                    "the median (bar), the interquartile range (box) and "
                                    "min..max (whiskers)",
                                    r.name),
                        script_dir, dir, format);
}

std::string draw_maxima_spread_plot(const CampaignReport& r, const std::string& script_dir,
                                    const std::string& dir, PlotFormat format) {
  return draw_case_plot(r, maxima_spread_metrics(), "maxima-spread",
                        fmt::format("xrunlab campaign {}: the spread of the maxima across "
                                    "repetitions: each run's maximum (point); per case the "
                                    "median (bar), IQR (box) and min..max (whiskers)",
                                    r.name),
                        script_dir, dir, format);
}

std::vector<JunitCase> campaign_threshold_cases(const CampaignReport& r,
                                                const std::vector<Threshold>& thresholds) {
  std::vector<JunitCase> out;
  for (const CaseFigures& f : r.cases) {
    JunitCase j;
    j.name = f.c->label;
    j.classname = "xrunlab.campaign." + r.name;
    j.seconds = f.wall_s;
    if (f.runs == 0) j.error = "no finished run of this case";
    for (const Threshold& t : thresholds) {
      j.checks.push_back(check_threshold(t, stats::describe(f.of(t.metric)).median));
    }
    out.push_back(std::move(j));
  }
  return out;
}

std::vector<LavaCase> campaign_lava_cases(const CampaignReport& r,
                                          const std::vector<Threshold>& thresholds) {
  std::vector<LavaCase> out;
  for (const CaseFigures& f : r.cases) {
    // Each figure the case's median, as campaign_threshold_cases checks it.
    const auto median = [&f](const std::string& metric) {
      return stats::describe(f.of(metric)).median;
    };
    std::vector<LavaCase> cases = lava_cases(f.c->label, f.runs > 0, f.runs, median, thresholds);
    out.insert(out.end(), cases.begin(), cases.end());
  }
  return out;
}

std::string campaign_headline(const CampaignReport& r) {
  size_t runs = 0;
  for (const CaseFigures& c : r.cases) runs += c.runs;
  size_t resolved = 0;
  for (const stats::Verdict& v : r.verdicts) resolved += v.resolved ? 1 : 0;
  return fmt::format(
      "campaign {}: {} case{}, {} finished run{}; {} difference{} resolved (of {} "
      "comparison{})",
      r.name, r.cases.size(), r.cases.size() == 1 ? "" : "s", runs, runs == 1 ? "" : "s", resolved,
      resolved == 1 ? "" : "s", r.verdicts.size(), r.verdicts.size() == 1 ? "" : "s");
}

std::string format_campaign_html(const CampaignReport& r, const std::vector<ReportPlot>& plots) {
  const std::string headline = campaign_headline(r);
  std::string body = fmt::format("<h1 id=\"verdict\">{}</h1>\n", html_escape(headline));
  body += html_section("brief", "At a glance") + html_pre(format_campaign_brief(r));
  body += html_section("plots", "Plots");
  for (const ReportPlot& p : plots) body += html_plot(p);
  if (const std::string table = format_verdict_table(r); !table.empty()) {
    body += html_section("verdicts", "Every verdict") + html_pre(table);
  }
  body += html_section("in-full", "In full (campaign-summary.txt)") +
          html_pre(format_campaign_report(r));
  return html_page("xrunlab: " + headline, body);
}

}  // namespace xrunlab
