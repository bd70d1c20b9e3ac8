// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/sweep_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "engine/base/errors.hpp"
#include "engine/base/json_read.hpp"
#include "engine/campaign/campaign_runner.hpp"
#include "engine/campaign/campaign_store.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/result/run_json.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/file_owner.hpp"

namespace xrunlab {
namespace {

std::string step_label(int clients, uint32_t period) {
  return fmt::format("c{:02d}-p{}", clients, period);
}

}  // namespace

std::vector<std::string> sweep_step_args(const SweepSpec& spec, int clients, uint32_t period) {
  std::vector<std::string> a = spec.run_args;
  for (const std::string& w :
       {std::string("--clients"), std::to_string(clients), std::string("--period"),
        std::to_string(period), std::string("--duration"), fmt::format("{:g}", spec.duration_s)}) {
    a.push_back(w);
  }
  return a;
}

namespace {

// A step's finished runs, read from its campaign folder.
SweepStep read_step(const std::string& step_dir, int clients, uint32_t period) {
  SweepStep s;
  s.clients = clients;
  s.period = period;
  const std::optional<CampaignState> st = load_campaign_state(step_dir);
  if (!st) return s;
  for (const CampaignRunRecord& r : st->runs) {
    if (r.status != "completed" || r.warmup) continue;
    const std::optional<RunResult> run = read_run_json(step_dir + "/" + r.run_dir + "/run.json");
    if (!run) continue;
    ++s.runs;
    s.seconds += run->seconds_ran;
    const auto x = static_cast<uint64_t>(run_metric(*run, "xruns").value_or(0));
    s.xruns += x;
    uint64_t g = 0;
    if (const std::optional<double> gl = run_metric(*run, "glitches")) {
      g = static_cast<uint64_t>(*gl);
      s.glitches = s.glitches.value_or(0) + g;
    }
    s.dropouts += std::max(x, g);
  }
  return s;
}

class SweepRunner {
 public:
  SweepRunner(const SweepOptions& o, std::string dir, const RunArgsCheck& check,
              const std::atomic<bool>& stop)
      : o_(o), dir_(std::move(dir)), check_(check), stop_(stop) {}

  SweepOutcome run() {
    make_dirs(dir_ + "/steps");
    save({});
    SweepOutcome out;
    out.dir = dir_;
    out.grid = search_sweep(o_.spec, [&](int c, uint32_t p) { return measure(c, p); });
    out.exit_code = out.grid.exit_code;
    save(out.grid);
    finish(out.grid);
    return out;
  }

 private:
  StepOutcome measure(int clients, uint32_t period) {
    const std::string label = step_label(clients, period);
    const std::string step_dir = dir_ + "/steps/" + label;
    const std::vector<std::string> args = sweep_step_args(o_.spec, clients, period);
    ++step_no_;
    if (!o_.quiet) {
      std::fprintf(stderr, "xrunlab: sweep step %d: %d client(s), %s, up to %d x %g s\n", step_no_,
                   clients, period_text(period, o_.spec.rate).c_str(), o_.spec.repetitions,
                   o_.spec.duration_s);
    }
    CampaignOptions co;
    co.dir = step_dir;
    co.quiet = o_.quiet;
    co.self_exe = o_.self_exe;
    co.file = "(xrunlab sweep " + o_.spec.name + ")";
    co.as_step = true;
    co.plot_format = o_.plot_format;
    const std::string text = "xrunlab sweep step " + label;
    const std::string name = "sweep " + label;
    const std::optional<CampaignState> old = load_campaign_state(step_dir);
    const size_t planned = old ? old->runs.size() : 0;
    size_t done_before = 0;
    if (old) {
      for (const CampaignRunRecord& r : old->runs) done_before += r.status == "completed" ? 1 : 0;
    }
    kept_ = false;
    StepOutcome out;
    if (planned < static_cast<size_t>(o_.spec.repetitions)) {
      // One run first: a dirty one ends the step.
      const int code = run_campaign_plan(co, plan_single_case(name, args, 1, check_), text, stop_);
      if (code != 0) {
        out.exit_code = code;
        return out;
      }
      const SweepStep first = read_step(step_dir, clients, period);
      kept_ = done_before >= static_cast<size_t>(first.runs);
      if (!first.clean() || o_.spec.repetitions == 1) {
        note(first);
        out.step = first;
        grid_so_far_.steps.push_back(first);
        save(grid_so_far_);
        return out;
      }
      co.replan = true;  // the same case with more repetitions: keeps the first run
    }
    const int code = run_campaign_plan(
        co, plan_single_case(name, args, o_.spec.repetitions, check_), text, stop_);
    if (code != 0) {
      out.exit_code = code;
      return out;
    }
    out.step = read_step(step_dir, clients, period);
    kept_ = done_before >= static_cast<size_t>(out.step->runs);
    note(*out.step);
    grid_so_far_.steps.push_back(*out.step);
    save(grid_so_far_);
    return out;
  }

  void note(const SweepStep& s) {
    if (o_.quiet) return;
    std::fprintf(
        stderr, "xrunlab: sweep step %d: %s: %s%s\n", step_no_,
        step_label(s.clients, s.period).c_str(), kept_ ? "(measured before, kept) " : "",
        s.clean() ? fmt::format("clean, 0 dropouts in {}", runs_text(s, o_.spec.duration_s)).c_str()
                  : fmt::format("drops out, {} in {} ({:.1f} per minute)", s.dropouts,
                                runs_text(s, o_.spec.duration_s), s.rate_per_min())
                        .c_str());
  }

  void save(const SweepGrid& g) {
    nlohmann::json j = sweep_json(o_.spec, g);
    j["settings"] = sweep_settings_json(o_.spec);
    j["schema_version"] = 1;
    write_output_file(dir_ + "/sweep.json", j.dump(2) + "\n");
  }

  void finish(const SweepGrid& g) {
    const std::string table = sweep_table(o_.spec, g);
    const std::string rec = sweep_recommendation(o_.spec, g);
    const std::string head = fmt::format("Sweep {}: {} step(s), search {}, in {}\n\n", o_.spec.name,
                                         g.steps.size(), o_.spec.search, dir_);
    std::string answer = table + "\n" + rec;
    if (g.exit_code != 0) {
      answer += fmt::format(
          "The sweep stopped before its end (exit code {}): the answer above is what the "
          "steps so far support; the same command continues.\n",
          g.exit_code);
    }
    write_output_file(dir_ + "/sweep-summary.txt", head + answer);
    const std::string plot_error = draw(g);
    // -q: the table and the recommendation alone.
    std::fputs(((o_.quiet ? "" : head) + answer).c_str(), stdout);
    if (!plot_error.empty()) {
      std::fprintf(stderr, "xrunlab: warning: no %s: %s\n", heatmap_name().c_str(),
                   plot_error.c_str());
    } else if (!g.steps.empty() && !o_.quiet) {
      std::printf("Heatmap: %s/%s\n", dir_.c_str(), heatmap_name().c_str());
    }
    std::fflush(stdout);
  }

  // sweep.png, or sweep.svg with --plot-format svg.
  std::string heatmap_name() const {
    return plot_file("sweep", o_.plot_format.value_or(PlotFormat::kPng));
  }

  std::string draw(const SweepGrid& g) {
    if (g.steps.empty()) return "no step was measured";
    const std::string script_dir = find_script_dir(o_.self_exe);
    if (script_dir.empty()) return "the plot scripts (sweep.gp) were not found";
    write_output_file(dir_ + "/sweep-heatmap.dat", sweep_heatmap_data(o_.spec, g));
    std::string periods, clients;
    for (uint32_t p : o_.spec.periods) periods += (periods.empty() ? "" : " ") + std::to_string(p);
    for (int c : o_.spec.clients) clients += (clients.empty() ? "" : " ") + std::to_string(c);
    double max_rate = 0;
    for (const SweepStep& s : g.steps) max_rate = std::max(max_rate, s.rate_per_min());
    const std::string out = dir_ + "/" + heatmap_name();
    hand_over_file(out);  // gnuplot writes it (under sudo: as root)
    return run_gnuplot(
        gnuplot_argv("gnuplot", script_dir + "/sweep.gp", o_.plot_format.value_or(PlotFormat::kPng),
                     {dir_ + "/sweep-heatmap.dat", out,
                      fmt::format("xrunlab sweep {}: dropouts per minute; blank: not measured "
                                  "({} search)",
                                  o_.spec.name, o_.spec.search),
                      periods, clients, fmt::format("{}", max_rate)}),
        std::chrono::seconds(60));
  }

  const SweepOptions& o_;
  std::string dir_;
  const RunArgsCheck& check_;
  const std::atomic<bool>& stop_;
  SweepGrid grid_so_far_;
  int step_no_ = 0;
  bool kept_ = false;  // the step's runs were all finished before this command
};

// The most steps the search can take, and so its longest time.
size_t max_steps(const SweepSpec& s) {
  const size_t k = s.periods.size();
  if (s.search == "bisect") {
    size_t per = 0;
    while ((size_t{1} << per) < k + 1) ++per;
    return per * s.clients.size();
  }
  return k * s.clients.size();
}

}  // namespace

bool is_sweep_owned_option(const std::string& a) {
  return is_owned_run_option(a, {"--clients", "--period", "--duration", "--label", "--output",
                                 "--repeat", "--fail-if", "--junit"});
}

void check_sweep_args(const SweepSpec& spec, const RunArgsCheck& check) {
  for (const std::string& a : spec.run_args) {
    if (is_sweep_owned_option(a)) {
      throw Error(ExitCode::kUsage,
                  fmt::format("sweep: '{}' is set by the sweep itself; give the sweep's own "
                              "--clients, --periods, --duration before -- (see xrunlab sweep "
                              "--help)",
                              a));
    }
  }
  // Every step's arguments are checked before anything runs.
  for (int c : spec.clients) {
    for (uint32_t p : spec.periods) check(sweep_step_args(spec, c, p));
  }
}

SweepOutcome run_sweep(const SweepOptions& o, const RunArgsCheck& check,
                       const std::atomic<bool>& stop) {
  const SweepSpec& spec = o.spec;
  check_sweep_args(spec, check);
  const std::string dir = o.dir.empty() ? "results/sweeps/" + spec.name : o.dir;
  const nlohmann::json old = read_json_file(dir + "/sweep.json").value_or(nlohmann::json());
  if (old.is_object() && old.contains("settings") && old["settings"] != sweep_settings_json(spec)) {
    throw Error(ExitCode::kUsage,
                fmt::format("sweep: {} holds a sweep with other settings ({}); give the same "
                            "options to continue it, or another --dir",
                            dir, old["settings"].dump()));
  }
  const size_t steps = max_steps(spec);
  const double longest =
      static_cast<double>(steps) * spec.repetitions * (spec.duration_s + kRunOverheadEstimateS);
  const std::string plan = fmt::format(
      "xrunlab: sweep {}: {} client count(s) x {} period(s), {} search: at most {} step(s) of up "
      "to {} x {:g} s, at most about {} (an estimate); in {}",
      spec.name, spec.clients.size(), spec.periods.size(), spec.search, steps, spec.repetitions,
      spec.duration_s,
      longest < 90 ? fmt::format("{:.0f} s", longest) : fmt::format("{:.0f} min", longest / 60.0),
      dir);
  SweepOutcome out;
  out.dir = dir;
  if (o.dry_run) {
    std::printf("%s\n", plan.substr(std::string("xrunlab: ").size()).c_str());
    for (int c : spec.clients) {
      for (uint32_t p : spec.periods) {
        std::string line = "  xrunlab run";
        for (const std::string& a : sweep_step_args(spec, c, p)) line += " " + a;
        std::printf("%s\n", line.c_str());
      }
    }
    return out;
  }
  if (!o.quiet) std::fprintf(stderr, "%s\n", plan.c_str());
  SweepRunner runner(o, dir, check, stop);
  return runner.run();
}

}  // namespace xrunlab
