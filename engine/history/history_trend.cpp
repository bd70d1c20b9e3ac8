// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/history/history_trend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>

#include "engine/base/errors.hpp"
#include "engine/base/text.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/stats/multiple.hpp"

namespace xrunlab {

namespace {

const HistoryFigure& figure_named(const std::string& name) {
  const HistoryFigure* f = find_history_figure(name);
  if (f == nullptr) {
    std::string known;
    for (const HistoryFigure& h : history_figures())
      known += (known.empty() ? "" : ", ") + std::string(h.metric);
    throw Error(ExitCode::kUsage,
                fmt::format("--figure: '{}' is not a figure a history keeps ({})", name, known));
  }
  return *f;
}

std::vector<double> values_of(const std::vector<const HistoryRow*>& runs, size_t figure) {
  std::vector<double> v;
  for (const HistoryRow* r : runs) {
    if (const auto& x = r->figures[figure]) v.push_back(*x);
  }
  return v;
}

// "2026-12-07T05:10:00Z" -> seconds since the epoch; nullopt for "" or another form.
std::optional<int64_t> utc_seconds(const std::string& iso) {
  std::tm tm{};
  const char* end = strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&tm));
}

std::string short_utc(const std::string& iso) {
  if (iso.size() < 16) return iso.empty() ? std::string("-") : iso;
  return iso.substr(0, 10) + " " + iso.substr(11, 5);
}

std::string kernel_name(const KernelRuns& k) {
  return k.relabelled ? k.kernel + " (relabelled)" : k.kernel;
}

std::string figure_heading(const HistoryFigure& f) {
  return std::string(f.label) + (f.unit[0] != '\0' ? fmt::format(" ({})", f.unit) : "");
}

}  // namespace

std::vector<std::string> history_default_figures() {
  return {"xruns", "xrun_count", "delay_max", "cycle_max", "slack_p1", "wakeup_p99"};
}

bool HistoryFilter::matches(const HistoryRow& r) const {
  return (!label || r.label == *label) && (!host || r.host == *host) &&
         (!kernel || r.kernel == *kernel) &&
         (!policy || r.policy.find(*policy) != std::string::npos) &&
         (!backend || r.backend == *backend) && (!loads || r.loads == *loads) &&
         (!period || r.period == *period) && (!clients || r.clients == *clients);
}

HistoryReport history_report(const std::vector<HistoryRow>& rows, const HistoryFilter& filter,
                             const std::vector<std::string>& figures) {
  HistoryReport rep;
  rep.rows_total = rows.size();
  std::vector<size_t> fig_index;
  for (const std::string& name : figures) {
    const HistoryFigure& f = figure_named(name);
    rep.figures.emplace_back(f.metric);
    fig_index.push_back(history_figure_index(f));
  }
  // Settings, each with its counted runs oldest first (rows come oldest first).
  std::map<std::string, size_t> setting_of;
  for (const HistoryRow& r : rows) {
    if (!filter.matches(r)) continue;
    if (r.status != "completed" && !r.imported) continue;
    ++rep.rows_counted;
    const std::string key = history_setting_key(r);
    auto [it, fresh] = setting_of.emplace(key, rep.settings.size());
    if (fresh) {
      rep.settings.emplace_back();
      rep.settings.back().text = history_setting_text(r);
    }
    rep.settings[it->second].runs.push_back(r);
  }
  std::stable_sort(rep.settings.begin(), rep.settings.end(),
                   [](const SettingHistory& a, const SettingHistory& b) {
                     return a.runs.size() > b.runs.size();
                   });
  // Kernels by their first run, and every step's p, to adjust them together.
  struct Pending {
    size_t setting, figure, from;
  };
  std::vector<Pending> pending;
  std::vector<double> ps;
  std::vector<std::optional<size_t>> tested;
  std::vector<std::vector<std::vector<const HistoryRow*>>> kernel_runs(rep.settings.size());
  for (size_t si = 0; si < rep.settings.size(); ++si) {
    SettingHistory& s = rep.settings[si];
    std::map<std::string, size_t> kernel_of;
    for (const HistoryRow& r : s.runs) {
      auto [it, fresh] = kernel_of.emplace(r.kernel, s.kernels.size());
      if (fresh) {
        s.kernels.push_back({r.kernel, false, r.started_utc, r.started_utc, 0, {}});
        kernel_runs[si].emplace_back();
      }
      KernelRuns& k = s.kernels[it->second];
      k.relabelled = k.relabelled || r.kernel_relabelled;
      k.last_utc = r.started_utc;
      ++k.runs;
      kernel_runs[si][it->second].push_back(&r);
    }
    for (size_t ki = 0; ki < s.kernels.size(); ++ki) {
      for (size_t fi : fig_index) {
        s.kernels[ki].figures.push_back(stats::describe(values_of(kernel_runs[si][ki], fi)));
      }
    }
    for (size_t ki = 1; ki < s.kernels.size(); ++ki) {
      for (size_t f = 0; f < fig_index.size(); ++f) {
        const std::vector<double> a = values_of(kernel_runs[si][ki - 1], fig_index[f]);
        const std::vector<double> b = values_of(kernel_runs[si][ki], fig_index[f]);
        if (a.empty() && b.empty()) continue;
        pending.push_back({si, f, ki - 1});
        const std::optional<double> p = stats::comparison_p(a, b);
        tested.push_back(p ? std::optional<size_t>(ps.size()) : std::nullopt);
        if (p) ps.push_back(*p);
      }
    }
  }
  const std::vector<double> qs = stats::benjamini_hochberg(ps);
  rep.comparisons = ps.size();
  for (size_t i = 0; i < pending.size(); ++i) {
    const Pending& p = pending[i];
    SettingHistory& s = rep.settings[p.setting];
    const HistoryFigure& f = history_figures()[fig_index[p.figure]];
    const std::vector<double> a = values_of(kernel_runs[p.setting][p.from], fig_index[p.figure]);
    const std::vector<double> b =
        values_of(kernel_runs[p.setting][p.from + 1], fig_index[p.figure]);
    std::optional<stats::Adjusted> adjusted;
    if (tested[i]) adjusted = stats::Adjusted{qs[*tested[i]], ps.size()};
    RunMetric m{f.metric, f.label, f.unit, f.lower_is_better};
    KernelStep step;
    step.figure = p.figure;
    step.from = p.from;
    step.verdict =
        stats::compare_cases(kernel_name(s.kernels[p.from]), a, kernel_name(s.kernels[p.from + 1]),
                             b, stats_metric(m), adjusted);
    // Never from a single run: the rank test could not resolve it anyway, and this says so
    // whatever the test.
    const bool enough = a.size() >= 2 && b.size() >= 2;
    step.regression = enough && step.verdict.resolved && step.verdict.a_better == true;
    step.improvement = enough && step.verdict.resolved && step.verdict.a_better == false;
    rep.regressions += step.regression ? 1 : 0;
    s.steps.push_back(std::move(step));
  }
  return rep;
}

std::string history_text(const HistoryReport& r, bool by_date) {
  std::string out;
  if (r.settings.empty()) {
    return fmt::format(
        "No counted runs ({} in the history; only completed runs and imported "
        "jack_test blocks count, and the filter must match).\n",
        r.rows_total);
  }
  for (const SettingHistory& s : r.settings) {
    out += fmt::format("{} ({} run{}, {} kernel{})\n", s.text, s.runs.size(),
                       s.runs.size() == 1 ? "" : "s", s.kernels.size(),
                       s.kernels.size() == 1 ? "" : "s");
    std::vector<std::vector<std::string>> rows;
    if (by_date) {
      rows.push_back({"started (UTC)", "kernel"});
      for (const std::string& m : r.figures)
        rows[0].push_back(figure_heading(*find_history_figure(m)));
      for (const HistoryRow& run : s.runs) {
        std::vector<std::string> row = {short_utc(run.started_utc),
                                        run.kernel + (run.kernel_relabelled ? "*" : "")};
        for (const std::string& m : r.figures) {
          const auto& v = run.figures[history_figure_index(*find_history_figure(m))];
          row.push_back(v ? stats::format_number(*v) : "-");
        }
        rows.push_back(std::move(row));
      }
      out += aligned_columns(rows, 2);
    } else {
      rows.push_back({"kernel", "runs", "first run (UTC)"});
      for (const std::string& m : r.figures)
        rows[0].push_back(figure_heading(*find_history_figure(m)));
      for (const KernelRuns& k : s.kernels) {
        std::vector<std::string> row = {k.kernel + (k.relabelled ? "*" : ""),
                                        std::to_string(k.runs), short_utc(k.first_utc)};
        for (const stats::Description& d : k.figures) row.push_back(describe_cell(d));
        rows.push_back(std::move(row));
      }
      out += aligned_columns(rows, 3);
      out += "   (each figure: median [quartiles] min..max over the kernel's runs that have it)\n";
    }
    bool any_relabelled = false;
    for (const KernelRuns& k : s.kernels) any_relabelled = any_relabelled || k.relabelled;
    if (any_relabelled) out += "   *: runs added under another kernel's name (--kernel-as)\n";
    if (s.kernels.size() < 2) {
      out += "   One kernel: nothing to compare yet.\n";
    } else {
      std::vector<const KernelStep*> order;
      for (const KernelStep& st : s.steps) order.push_back(&st);
      std::stable_sort(order.begin(), order.end(), [](const KernelStep* a, const KernelStep* b) {
        return a->regression > b->regression;
      });
      for (const KernelStep* st : order) {
        std::string tag;
        if (st->regression || st->improvement) {
          tag = fmt::format("{} on {} ({}): ", st->regression ? "REGRESSION" : "improvement",
                            kernel_name(s.kernels[st->from + 1]),
                            find_history_figure(r.figures[st->figure])->label);
        }
        out += "   " + tag + st->verdict.sentence + "\n";
      }
    }
    out += "\n";
  }
  out += fmt::format(
      "{} regression{} among {} comparison{} (each kernel against the one before it, p adjusted "
      "for all of them; none from a single run).\n",
      r.regressions, r.regressions == 1 ? "" : "s", r.comparisons, r.comparisons == 1 ? "" : "s");
  return out;
}

nlohmann::json history_json(const HistoryReport& r) {
  auto opt = [](const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json();
  };
  nlohmann::json j;
  j["figures"] = r.figures;
  j["rows_total"] = r.rows_total;
  j["rows_counted"] = r.rows_counted;
  j["comparisons"] = r.comparisons;
  j["regressions"] = r.regressions;
  j["settings"] = nlohmann::json::array();
  for (const SettingHistory& s : r.settings) {
    nlohmann::json js;
    js["setting"] = s.text;
    js["runs"] = s.runs.size();
    js["kernels"] = nlohmann::json::array();
    for (const KernelRuns& k : s.kernels) {
      nlohmann::json jk = {{"kernel", k.kernel},
                           {"relabelled", k.relabelled},
                           {"first_utc", k.first_utc},
                           {"last_utc", k.last_utc},
                           {"runs", k.runs}};
      for (size_t f = 0; f < r.figures.size(); ++f) {
        const stats::Description& d = k.figures[f];
        jk["figures"][r.figures[f]] = {{"n", d.count},      {"median", opt(d.median)},
                                       {"q1", opt(d.q1)},   {"q3", opt(d.q3)},
                                       {"min", opt(d.min)}, {"max", opt(d.max)}};
      }
      js["kernels"].push_back(jk);
    }
    js["steps"] = nlohmann::json::array();
    for (const KernelStep& st : s.steps) {
      const stats::Verdict& v = st.verdict;
      nlohmann::json jst = {{"figure", r.figures[st.figure]},
                            {"from", s.kernels[st.from].kernel},
                            {"to", s.kernels[st.from + 1].kernel},
                            {"n_from", v.n_a},
                            {"n_to", v.n_b},
                            {"regression", st.regression},
                            {"improvement", st.improvement},
                            {"resolved", v.resolved},
                            {"p", v.test ? nlohmann::json(v.test->p) : nlohmann::json()},
                            {"q", opt(v.q)},
                            {"sentence", v.sentence}};
      js["steps"].push_back(jst);
    }
    j["settings"].push_back(js);
  }
  return j;
}

std::string history_plot_data(const HistoryReport& r, const SettingHistory& s) {
  std::string out;
  for (size_t ki = 0; ki < s.kernels.size(); ++ki) {
    if (ki > 0) out += "\n\n";
    out += fmt::format("# kernel {}\n", s.kernels[ki].kernel);
    for (const HistoryRow& run : s.runs) {
      if (run.kernel != s.kernels[ki].kernel) continue;
      const std::optional<int64_t> t = utc_seconds(run.started_utc);
      if (!t) continue;  // an imported block has no date: not on a time axis
      out += std::to_string(*t);
      for (const std::string& m : r.figures) {
        const auto& v = run.figures[history_figure_index(*find_history_figure(m))];
        out += v && std::isfinite(*v) ? fmt::format(" {}", *v) : std::string(" NaN");
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace xrunlab
