// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab campaign FILE.toml`: plans the campaign (campaign_plan.hpp), resumes what its folder
// holds (campaign_store.hpp), and runs each remaining run as its own `xrunlab run` process (an
// argv vector, never a shell), one at a time, into DIR/runs/<case label>-rNN/. Ctrl-C or
// SIGTERM stops the running `xrunlab run` the way it stops itself (its results so far are
// written, marked interrupted), records it as not finished, and exits 130: the same command
// continues. A run that fails stops the campaign (its log named); the same command redoes it.
//
// On a terminal (and without -q) one live line shows the case, run i of n, elapsed, ETA and the
// xrun events so far. At the end (and when the same command finds every run finished) the
// report (campaign_report.hpp) is written in full as campaign-summary.txt/.json and its short
// block printed (format_campaign_brief: with -q its two tables alone).
// Non-realtime.
#include <atomic>
#include <optional>
#include <string>

#include "engine/campaign/campaign_plan.hpp"
#include "engine/report/plot_format.hpp"
#include "engine/report/run_metrics.hpp"

namespace xrunlab {

struct CampaignOptions {
  std::string file;      // the campaign file ("" with a preset, until main finds it)
  std::string preset;    // a campaign of scripts/campaigns/ (main turns it into file)
  std::string dir;       // "" = results/campaigns/<name>
  bool dry_run = false;  // print the plan and its estimated time, run nothing
  bool replan = false;   // resume a folder that holds another plan
  bool quiet = false;
  std::optional<std::string> order;  // overrides the file's
  std::optional<uint64_t> seed;      // used when the file gives none
  std::optional<double> scale;       // every run's duration (and the warm-up's) times this
  std::optional<double> duration;    // every counted run's duration, in seconds
  std::optional<int> repetitions;    // overrides the file's
  std::string self_exe;              // this xrunlab, run as `xrunlab run ...` for each run
  std::vector<Threshold> fail_if;    // checked on each case's median at the end (exit code 10)
  std::string junit;                 // JUnit XML, one testcase per case ("" = none)
  bool lava = false;                 // --lava: each case's figures as LAVA test cases (lava.hpp)
  // --plot-format: campaign.svg instead of campaign.png, and every run gets --plot-format too
  // (after its own arguments, so it wins over the file's); none: campaign.png, the runs as the
  // file says.
  std::optional<PlotFormat> plot_format;
  // A step of a larger search (`xrunlab sweep`): no plan, no "run i of n" lines and no closing
  // report on the terminal (campaign-summary.txt/.json are still written); the caller says
  // what runs. The live line and the interrupted/failed messages stay.
  bool as_step = false;
  // The history database every run adds itself to (`xrunlab run --history`), unless the run's
  // own arguments name one or --no-history: "" = history_beside(dir); no_history: none.
  std::string history;
  bool no_history = false;
};

// Where the runs of a campaign (sweep, headroom, check) folder DIR add themselves by default:
// beside the results root the folder is in, so that every campaign of one root shares its
// history. The root is the parent of the nearest of DIR and its next three ancestors named
// campaigns, sweeps, headroom or checks (results/campaigns/NAME -> results/history.sqlite,
// results/sweeps/NAME/steps/S -> results/history.sqlite); without one, DIR/history.sqlite.
std::string history_beside(const std::string& dir);

// Runs (or, with dry_run, prints) the campaign; returns the exit code. Throws Error for bad
// input (kUsage: the file, a value, a folder with another plan) before anything runs.
int run_campaign(const CampaignOptions& o, const RunArgsCheck& check,
                 const std::atomic<bool>& stop);

// Runs a plan made elsewhere (`xrunlab run --repeat N`: plan_single_case) in `o.dir`, resuming
// what it holds, as run_campaign does. `text` is what campaign.json keeps as the file's text.
int run_campaign_plan(const CampaignOptions& o, CampaignPlan plan, const std::string& text,
                      const std::atomic<bool>& stop);

}  // namespace xrunlab
