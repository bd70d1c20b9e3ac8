// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/periodic_2001.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include "engine/report/plots.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/file_owner.hpp"

namespace xrunlab {
namespace {

constexpr const char* kDefinition =
    "the 2001 scheduler-latency test: a periodic SCHED_FIFO task (cyclictest beside the run, "
    "absolute clock_nanosleep, one wake-up per JACK period) against the run-queue length set by N "
    "cpu hogs; per N the medians over the runs of cyclictest's p50, p99 and max (the worst max "
    "in brackets), their excess over 0 hogs (the scheduler's share), and the audio graph's "
    "interrupt -> jackd wake-up p99, Delay Maximum and slack p1 (medians)";

std::string number(const std::optional<double>& v) {
  return v ? stats::format_number(*v) : std::string("-");
}

std::string signed_number(const std::optional<double>& v) {
  if (!v) return "-";
  return (*v > 0 ? "+" : "") + stats::format_number(*v);
}

std::optional<double> minus(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return std::nullopt;
  return *a - *b;
}

bool has_load(const std::vector<std::string>& args, const std::string& kind) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != "--load") continue;
    const std::string& v = args[i + 1];
    if (v == kind || v.rfind(kind + ":", 0) == 0) return true;
  }
  return false;
}

bool has_periodic_task(const std::vector<std::string>& args) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == "--baseline") return args[i + 1] == "cyclictest";
  }
  return false;
}

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

nlohmann::json description_json(const stats::Description& d) {
  return {{"median", opt(d.median)}, {"min", opt(d.min)}, {"max", opt(d.max)}};
}

}  // namespace

std::optional<int> hogs_of(const std::vector<std::string>& run_args) {
  int hogs = 0;
  for (size_t i = 0; i + 1 < run_args.size(); ++i) {
    if (run_args[i] != "--load") continue;
    const std::string& v = run_args[i + 1];
    if (v == "cpu") {
      hogs += 1;
    } else if (v.rfind("cpu:", 0) == 0 && v.size() > 4 &&
               v.find_first_not_of("0123456789", 4) == std::string::npos && v.size() <= 8) {
      hogs += std::atoi(v.c_str() + 4);
    } else {
      return std::nullopt;
    }
  }
  return hogs;
}

Periodic2001 periodic_2001(const CampaignReport& r) {
  Periodic2001 p;
  const CaseFigures* alone = nullptr;
  const CaseFigures* with = nullptr;
  for (const CaseFigures& f : r.cases) {
    const std::vector<std::string>& args = f.c->run_args;
    if (has_load(args, "bench")) {
      (has_periodic_task(args) ? with : alone) = &f;
      continue;
    }
    const std::optional<int> hogs = hogs_of(args);
    if (!hogs || !has_periodic_task(args)) continue;
    Periodic2001Row row;
    row.case_label = f.c->label;
    row.hogs = *hogs;
    row.runs = f.runs;
    row.p50 = f.of("baseline_p50");
    row.p99 = f.of("baseline_p99");
    row.max = f.of("baseline_max");
    row.p50_d = stats::describe(row.p50);
    row.p99_d = stats::describe(row.p99);
    row.max_d = stats::describe(row.max);
    row.wakeup_p99_runs = f.of("wakeup_p99");
    row.delay_max_runs = f.of("delay_max");
    row.wakeup_p99 = stats::describe(row.wakeup_p99_runs).median;
    row.delay_max = stats::describe(row.delay_max_runs).median;
    row.slack_p1 = stats::describe(f.of("slack_p1")).median;
    p.rows.push_back(std::move(row));
  }
  std::stable_sort(
      p.rows.begin(), p.rows.end(),
      [](const Periodic2001Row& a, const Periodic2001Row& b) { return a.hogs < b.hogs; });
  const Periodic2001Row* unloaded = nullptr;
  for (const Periodic2001Row& row : p.rows) {
    if (row.hogs == 0 && unloaded == nullptr) unloaded = &row;
  }
  if (unloaded != nullptr) {
    const std::optional<double> p99_0 = unloaded->p99_d.median;
    const std::optional<double> max_0 = unloaded->max_d.median;
    for (Periodic2001Row& row : p.rows) {
      row.p99_over_unloaded = minus(row.p99_d.median, p99_0);
      row.max_over_unloaded = minus(row.max_d.median, max_0);
    }
  }
  if (alone != nullptr && with != nullptr) {
    Periodic2001Bench b;
    b.alone_label = alone->c->label;
    b.with_label = with->c->label;
    b.alone_ms = alone->of("bench_job_ms");
    b.with_ms = with->of("bench_job_ms");
    b.alone_median_ms = stats::describe(b.alone_ms).median;
    b.with_median_ms = stats::describe(b.with_ms).median;
    if (b.alone_median_ms && b.with_median_ms && *b.alone_median_ms > 0) {
      b.slowdown_pct = (*b.with_median_ms / *b.alone_median_ms - 1.0) * 100.0;
    }
    b.verdict = stats::compare_cases("with the periodic task", b.with_ms, "without it", b.alone_ms,
                                     {"benchmark job time", "ms", true, "shorter", "longer"});
    p.bench = std::move(b);
  }
  return p;
}

std::string format_periodic_2001(const Periodic2001& p) {
  if (p.rows.empty() && !p.bench) return "";
  std::string out = fmt::format("\n The 2001 table: {}\n", kDefinition);
  if (!p.rows.empty()) {
    out += fmt::format("   {:>4} {:>4}  {:>22}  {:>14}  {:>22}  {:>9}  {:>9}\n", "hogs", "runs",
                       "cyclictest p50/p99/max", "over 0 hogs", "audio: jackd wake-up p99",
                       "Delay Max", "slack p1");
    out += fmt::format("   {:>4} {:>4}  {:>22}  {:>14}  {:>22}  {:>9}  {:>9}\n", "", "",
                       "us [worst max]", "p99/max, us", "us", "us", "us");
    for (const Periodic2001Row& row : p.rows) {
      const std::string cyclic =
          row.p99_d.median || row.max_d.median
              ? fmt::format("{}/{}/{} [{}]", number(row.p50_d.median), number(row.p99_d.median),
                            number(row.max_d.median), number(row.max_d.max))
              : std::string("-");
      const std::string over = row.hogs == 0
                                   ? std::string("(reference)")
                                   : fmt::format("{}/{}", signed_number(row.p99_over_unloaded),
                                                 signed_number(row.max_over_unloaded));
      out += fmt::format("   {:>4} {:>4}  {:>22}  {:>14}  {:>22}  {:>9}  {:>9}\n", row.hogs,
                         row.runs, cyclic, over, number(row.wakeup_p99), number(row.delay_max),
                         number(row.slack_p1));
    }
  }
  if (p.bench) {
    const Periodic2001Bench& b = *p.bench;
    out += fmt::format(
        "   Timed benchmark (a fixed CPU job, --load bench; mean job time, median over runs): "
        "{} ms without the periodic task ({}), {} ms with it ({})",
        number(b.alone_median_ms), b.alone_label, number(b.with_median_ms), b.with_label);
    if (b.slowdown_pct) out += fmt::format(": slowdown {:+.2f} %", *b.slowdown_pct);
    out += "\n   " + b.verdict.sentence + "\n";
  }
  return out;
}

nlohmann::json periodic_2001_json(const Periodic2001& p) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Periodic2001Row& row : p.rows) {
    rows.push_back({{"case", row.case_label},
                    {"hogs", row.hogs},
                    {"runs", row.runs},
                    {"cyclictest_p50_us", description_json(row.p50_d)},
                    {"cyclictest_p99_us", description_json(row.p99_d)},
                    {"cyclictest_max_us", description_json(row.max_d)},
                    {"p99_over_unloaded_us", opt(row.p99_over_unloaded)},
                    {"max_over_unloaded_us", opt(row.max_over_unloaded)},
                    {"wakeup_p99_us_median", opt(row.wakeup_p99)},
                    {"delay_max_us_median", opt(row.delay_max)},
                    {"slack_p1_us_median", opt(row.slack_p1)}});
  }
  nlohmann::json out = {{"definition", kDefinition}, {"rows", rows}};
  if (p.bench) {
    const Periodic2001Bench& b = *p.bench;
    out["benchmark"] = {{"without_case", b.alone_label},
                        {"with_case", b.with_label},
                        {"job_ms_without", b.alone_ms},
                        {"job_ms_with", b.with_ms},
                        {"job_ms_without_median", opt(b.alone_median_ms)},
                        {"job_ms_with_median", opt(b.with_median_ms)},
                        {"slowdown_pct", opt(b.slowdown_pct)},
                        {"resolved", b.verdict.resolved},
                        {"sentence", b.verdict.sentence}};
  }
  return out;
}

std::string draw_periodic_2001_plot(const Periodic2001& p, const std::string& campaign,
                                    const std::string& script_dir, const std::string& dir,
                                    PlotFormat format) {
  if (script_dir.empty()) return "the plot scripts (runqueue.gp) were not found";
  bool any = false;
  for (const Periodic2001Row& row : p.rows) any = any || !row.max.empty() || !row.p99.empty();
  if (!any) return "no finished run has cyclictest's figures";
  // Two blocks (gnuplot's index 0 and 1): one row per run (x: the hog count's position, runs
  // spread sideways), then per position the medians, which the script joins.
  std::string runs = "# pos,hogs,x,p50,p99,max,wakeup_p99,delay_max (one row per run)\n";
  std::string medians = "# pos,hogs,x,p50,p99,max,wakeup_p99,delay_max (medians)\n";
  auto cell = [](const std::vector<double>& v, size_t i) {
    return i < v.size() ? fmt::format("{}", v[i]) : std::string();
  };
  auto med = [](const std::optional<double>& v) {
    return v ? fmt::format("{}", *v) : std::string();
  };
  for (size_t c = 0; c < p.rows.size(); ++c) {
    const Periodic2001Row& row = p.rows[c];
    const size_t n = std::max({row.p50.size(), row.p99.size(), row.max.size(),
                               row.wakeup_p99_runs.size(), row.delay_max_runs.size()});
    for (size_t i = 0; i < n; ++i) {
      const double x =
          static_cast<double>(c + 1) +
          (n > 1 ? -0.15 + 0.3 * static_cast<double>(i) / static_cast<double>(n - 1) : 0.0);
      runs += fmt::format("{},{},{},{},{},{},{},{}\n", c + 1, row.hogs, x, cell(row.p50, i),
                          cell(row.p99, i), cell(row.max, i), cell(row.wakeup_p99_runs, i),
                          cell(row.delay_max_runs, i));
    }
    medians += fmt::format("{},{},{},{},{},{},{},{}\n", c + 1, row.hogs, c + 1,
                           med(row.p50_d.median), med(row.p99_d.median), med(row.max_d.median),
                           med(row.wakeup_p99), med(row.delay_max));
  }
  const std::string csv = runs + "\n\n" + medians;
  const std::string data = dir + "/latency-vs-runqueue.csv";
  try {
    write_output_file(data, csv);
  } catch (const std::exception& e) {
    return e.what();
  }
  const std::string out = dir + "/" + plot_file("latency-vs-runqueue", format);
  hand_over_file(out);  // gnuplot writes it (under sudo: as root)
  return run_gnuplot(
      gnuplot_argv("gnuplot", script_dir + "/runqueue.gp", format,
                   {data, out,
                    fmt::format("xrunlab campaign {}: latency against the run-queue length (N cpu "
                                "hogs); every run (point), the medians joined",
                                campaign),
                    std::to_string(p.rows.size())}),
      std::chrono::seconds(60));
}

}  // namespace xrunlab
