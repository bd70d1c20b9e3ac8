// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A campaign's plan: its cases (the product of the axes, in the file's order, the last axis
// varying fastest), each case's `xrunlab run` arguments, and the order of every run.
//
// Order "shuffled" (the default) is blocked: each round of repetitions runs every case once, in
// an order drawn from the seed (Fisher-Yates on mt19937_64, which the C++ standard specifies
// bit for bit, so a seed gives the same order everywhere), so slow drift and warm-up of the
// machine spread over all cases instead of biasing the first. "sequential" runs every
// repetition of case 1, then of case 2, ... (what a shell loop does).
//
// Every case's arguments are checked before anything runs, each axis value on its own first
// (so the error names the file's line and value), then each whole case. Non-realtime.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/campaign/campaign_spec.hpp"

namespace xrunlab {

struct CampaignCase {
  int index = 0;      // 1-based, in product order
  std::string name;   // for people: the axis values, "fifo, compile" ("default" without axes)
  std::string label;  // the runs' --label, folder-safe: "01-fifo-compile"
  std::vector<std::pair<std::string, std::string>> axes;  // axis key -> value
  std::vector<std::string> run_args;  // `xrunlab run` arguments, without --label/--output/-q
};

struct PlannedRun {
  int index = 0;  // 1-based position in the order
  int case_index = 0;
  int rep = 0;          // 1-based; 0 for the warm-up
  bool warmup = false;  // uncounted: a first run of case 1 that warms the machine up
};

struct CampaignPlan {
  std::string name;
  std::vector<CampaignCase> cases;
  std::vector<PlannedRun> runs;  // in the order they run (the warm-up first)
  int repetitions = 1;
  std::string order;  // shuffled | sequential
  uint64_t seed = 0;
  double warmup_s = 0;
  std::vector<std::string> sections;     // the report's extra sections (campaign_spec.hpp)
  double duration_s = 0;                 // each counted run's measured time
  std::vector<std::string> warmup_args;  // the warm-up's arguments (case 1, warmup_s long)
};

// Checks one `xrunlab run` argument list (what `run` would parse); throws Error(kUsage) with
// the reason. The command line's parser, given by the caller (the campaign is below it).
using RunArgsCheck = std::function<void(const std::vector<std::string>& run_args)>;

// Plans `spec`. `seed` is used when the file gives none (the caller draws or recalls one);
// `order` overrides the file's. Throws Error(kUsage) naming the file's line for a value `check`
// refuses.
CampaignPlan plan_campaign(const CampaignSpec& spec, uint64_t seed,
                           const std::optional<std::string>& order, const RunArgsCheck& check);

// `xrunlab run ... --repeat N`: one case (`run_args`, checked) run `repetitions` times, named
// `name` (the run's label).
CampaignPlan plan_single_case(const std::string& name, const std::vector<std::string>& run_args,
                              int repetitions, const RunArgsCheck& check);

// What identifies a plan: two plans that give the same JSON run the same runs.
nlohmann::json plan_json(const CampaignPlan& plan);

// The blocked shuffle: `rounds` permutations of 0..n-1 drawn from `seed`, concatenated.
std::vector<int> blocked_order(int n, int rounds, uint64_t seed);

// Starting and stopping jackd and the clients and writing the files, per run (seconds): what a
// plan's time estimate adds to each run's measured time before any run has shown its own.
inline constexpr double kRunOverheadEstimateS = 3.0;

// Whether the run argument `arg` is one of `flags` ("--flag" or "--flag=VALUE"), or -q/--quiet
// when `quiet` is set: the options a campaign, sweep or headroom sets itself per run.
bool is_owned_run_option(const std::string& arg, const std::vector<std::string>& flags,
                         bool quiet = true);

// A run's measured seconds (the warm-up's or a counted run's). A run's wall time adds the
// overhead of starting and stopping jackd and the clients and of writing the files.
double measured_seconds(const CampaignPlan& plan, const PlannedRun& run);

}  // namespace xrunlab
