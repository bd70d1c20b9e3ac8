// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/headroom_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "engine/base/errors.hpp"
#include "engine/base/json_read.hpp"
#include "engine/base/text.hpp"
#include "engine/campaign/campaign_progress.hpp"
#include "engine/campaign/campaign_runner.hpp"
#include "engine/campaign/campaign_store.hpp"
#include "engine/campaign/sweep.hpp"
#include "engine/report/plots.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/run/run_options.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/file_owner.hpp"

namespace xrunlab {
namespace {

std::string cell_label(int clients, uint32_t period) {
  return fmt::format("c{:02d}-p{}", clients, period);
}

// The seed of the interleaved order: the settings' hash, so the same command plans the same
// order and finds its runs again.
uint64_t order_seed(const HeadroomSpec& spec) {
  return fnv1a_64(headroom_settings_json(spec).dump());
}

CampaignPlan headroom_plan(const HeadroomSpec& spec, const RunArgsCheck& check) {
  CampaignPlan plan;
  plan.name = "headroom " + spec.name;
  plan.repetitions = spec.repetitions;
  plan.order = "shuffled";
  plan.seed = order_seed(spec);
  for (int c : spec.clients) {
    for (uint32_t p : spec.periods) {
      CampaignCase k;
      k.index = static_cast<int>(plan.cases.size()) + 1;
      k.name = fmt::format("{} client(s), {} frames", c, p);
      k.label = fmt::format("{:02d}-", k.index) + cell_label(c, p);
      k.axes = {{"clients", std::to_string(c)}, {"period", std::to_string(p)}};
      k.run_args = headroom_run_args(spec, c, p);
      check(k.run_args);
      plan.duration_s = std::max(plan.duration_s, ramp_longest_s(spec, p));
      plan.cases.push_back(std::move(k));
    }
  }
  const std::vector<int> order =
      blocked_order(static_cast<int>(plan.cases.size()), spec.repetitions, plan.seed);
  std::vector<int> reps(plan.cases.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    const auto k = static_cast<size_t>(order[i]);
    plan.runs.push_back({static_cast<int>(i) + 1, order[i] + 1, ++reps[k], false});
  }
  return plan;
}

// Every finished ramp of the folder, as its run.json says; the unusable ones are said.
std::vector<RampOutcome> read_ramps(const std::string& dir, const CampaignPlan& plan,
                                    std::vector<std::string>* unusable) {
  std::vector<RampOutcome> out;
  const std::optional<CampaignState> st = load_campaign_state(dir);
  if (!st) return out;
  for (const CampaignRunRecord& r : st->runs) {
    if (r.status != "completed" || r.warmup || r.case_index < 1 ||
        static_cast<size_t>(r.case_index) > plan.cases.size()) {
      continue;
    }
    std::string why;
    const std::optional<nlohmann::json> j =
        read_json_file(dir + "/" + r.run_dir + "/run.json", &why);
    std::optional<RampOutcome> o = j ? ramp_outcome_from_run_json(*j, &why) : std::nullopt;
    if (!o) {
      unusable->push_back(fmt::format("{}: {}", r.run_dir, why));
      continue;
    }
    o->rep = r.rep;
    o->run_dir = r.run_dir;
    out.push_back(std::move(*o));
  }
  return out;
}

}  // namespace

std::vector<std::string> headroom_run_args(const HeadroomSpec& spec, int clients, uint32_t period) {
  std::vector<std::string> a = spec.run_args;
  const std::string ramp = spec.every_cycles > 0
                               ? fmt::format("{:g}:{}", spec.step_pct, spec.every_cycles)
                               : fmt::format("{:g}", spec.step_pct);
  for (const std::string& w :
       {std::string("--clients"), std::to_string(clients), std::string("--ports"),
        std::to_string(spec.ports), std::string("--period"), std::to_string(period),
        std::string("--ramp"), ramp, std::string("--no-plots")}) {
    a.push_back(w);
  }
  if (spec.explain) a.emplace_back("--explain");
  return a;
}

bool is_headroom_owned_option(const std::string& a) {
  return is_owned_run_option(
      a, {"--clients", "--ports", "--period", "--ramp", "--duration", "--label", "--output",
          "--repeat", "--fail-if", "--junit", "--explain"});
}

HeadroomOutcome run_headroom(const HeadroomOptions& o, const RunArgsCheck& check,
                             const std::atomic<bool>& stop) {
  const HeadroomSpec& spec = o.spec;
  check_headroom_spec(spec);
  for (const std::string& a : spec.run_args) {
    if (is_headroom_owned_option(a)) {
      throw Error(ExitCode::kUsage,
                  fmt::format("headroom: '{}' is set by headroom itself; give its own --clients, "
                              "--ports, --periods, --step, --every, --explain before -- (see "
                              "xrunlab headroom --help)",
                              a));
    }
  }
  const CampaignPlan plan = headroom_plan(spec, check);  // every cell's arguments checked
  HeadroomOutcome out;
  out.dir = o.dir.empty() ? "results/headroom/" + spec.name : o.dir;
  double longest = 0;
  for (uint32_t p : spec.periods) {
    longest += static_cast<double>(spec.clients.size()) * spec.repetitions *
               (ramp_longest_s(spec, p) + kRampLeadS + kRunOverheadEstimateS);
  }
  std::string ramp_words;
  for (uint32_t p : spec.periods) {
    ramp_words += fmt::format("{}{} frames: every {} cycles", ramp_words.empty() ? "" : ", ", p,
                              every_cycles_at(spec, p));
  }
  const std::string head = fmt::format(
      "headroom {}: {} client count(s) x {} period(s) x {} ramp(s), +{:g} % of the period a step "
      "({}); at most about {} (an estimate: a ramp ends at its first xrun); in {}",
      spec.name, spec.clients.size(), spec.periods.size(), spec.repetitions, spec.step_pct,
      ramp_words, duration_text(longest), out.dir);
  if (o.dry_run) {
    std::printf("%s\n", head.c_str());
    for (const CampaignCase& k : plan.cases) {
      std::string line = "  xrunlab run";
      for (const std::string& a : k.run_args) line += " " + a;
      std::printf("%s\n", line.c_str());
    }
    return out;
  }
  if (!o.quiet) std::fprintf(stderr, "xrunlab: %s\n", head.c_str());
  const nlohmann::json old = read_json_file(out.dir + "/headroom.json").value_or(nlohmann::json());
  if (old.is_object() && old.contains("settings") &&
      old["settings"] != headroom_settings_json(spec)) {
    throw Error(ExitCode::kUsage,
                fmt::format("headroom: {} holds a headroom measurement with other settings; give "
                            "the same options to continue it, or another --dir",
                            out.dir));
  }
  make_dirs(out.dir);
  CampaignOptions co;
  co.dir = out.dir;
  co.quiet = o.quiet;
  co.self_exe = o.self_exe;
  co.file = "(xrunlab headroom " + spec.name + ")";
  co.as_step = true;
  // A ramp ends in its xrun by design: not a measurement of the setting's figures.
  co.no_history = true;
  co.plot_format = o.plot_format;
  out.exit_code = run_campaign_plan(co, plan, "xrunlab headroom " + spec.name, stop);

  std::vector<std::string> unusable;
  const std::vector<RampOutcome> ramps = read_ramps(out.dir, plan, &unusable);
  out.cells = summarise_cells(spec, ramps);
  nlohmann::json j = headroom_json(spec, out.cells, ramps);
  j["settings"] = headroom_settings_json(spec);
  j["unusable_ramps"] = unusable;
  write_output_file(out.dir + "/headroom.json", j.dump(2) + "\n");
  std::string text = headroom_table(spec, out.cells) + "\n" +
                     fmt::format("With {} client(s):\n", spec.clients.front()) +
                     headroom_answers(spec, out.cells);
  for (const std::string& u : unusable) text += "Not counted: " + u + "\n";
  if (out.exit_code != 0) {
    text += fmt::format(
        "The measurement stopped before its end (exit code {}): the figures above are what the "
        "ramps so far support; the same command continues.\n",
        out.exit_code);
  }
  write_output_file(out.dir + "/headroom-summary.txt", text);
  std::fputs(text.c_str(), stdout);
  // The picture.
  const PlotFormat fmt_ = o.plot_format.value_or(PlotFormat::kPng);
  const std::string picture = out.dir + "/" + plot_file("headroom", fmt_);
  std::string plot_error;
  if (ramps.empty()) {
    plot_error = "no ramp was measured";
  } else if (const std::string script_dir = find_script_dir(o.self_exe); script_dir.empty()) {
    plot_error = "the plot scripts (headroom.gp) were not found";
  } else {
    write_output_file(out.dir + "/headroom-plot.dat", headroom_plot_data(spec, out.cells));
    std::string periods, clients;
    for (uint32_t p : spec.periods) periods += (periods.empty() ? "" : " ") + std::to_string(p);
    for (int c : spec.clients) clients += (clients.empty() ? "" : " ") + std::to_string(c);
    hand_over_file(picture);  // gnuplot writes it (under sudo: as root)
    plot_error = run_gnuplot(
        gnuplot_argv("gnuplot", script_dir + "/headroom.gp", fmt_,
                     {out.dir + "/headroom-plot.dat", picture,
                      fmt::format("xrunlab headroom {}: DSP load at the first xrun, % of the "
                                  "period (median, interval, min..max)",
                                  spec.name),
                      periods, clients}),
        std::chrono::seconds(60));
  }
  if (!plot_error.empty()) {
    std::fprintf(stderr, "xrunlab: warning: no %s: %s\n", picture.c_str(), plot_error.c_str());
  } else if (!o.quiet) {
    std::printf("Picture: %s\n", picture.c_str());
  }
  std::fflush(stdout);
  return out;
}

}  // namespace xrunlab
