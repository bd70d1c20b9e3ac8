// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab campaign`: a campaign file's cases x repetitions into one folder.
#include <cstdint>

#include "engine/app/cli/subcommand.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

class CampaignCli : public SubcommandCli {
 public:
  explicit CampaignCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "campaign",
            "Run a campaign file (TOML): its cases (the product of its axes) x repetitions of "
            "`xrunlab run`, interleaved, into one folder with campaign.json; the same command "
            "continues an interrupted campaign.")) {
    app_->add_option("FILE", co_.file, "The campaign file (docs/commands.md: `xrunlab campaign`).")
        ->type_name("FILE.toml");
    app_->add_option("--preset", co_.preset,
                     "Run a campaign shipped in scripts/campaigns/ instead of FILE: jack_test4, "
                     "jack_test3, iso-vs-fifo-2005, rt-kernel, rt-kernel-2007, preempt-2004, "
                     "periodic-2001 "
                     "(each file says what it reproduces; docs/classics.md).")
        ->type_name("NAME");
    app_->add_option("--scale", scale_,
                     "Multiply every run's duration (and the warm-up) by F, e.g. 0.1 for a "
                     "quick look; at least 1 s each, at most 86400 s a run and 3600 s of "
                     "warm-up (refused beyond).")
        ->type_name("F");
    app_->add_option("--duration", duration_, "Every run's measured SECONDS.")
        ->type_name("SECONDS");
    app_->add_option("--repetitions", repetitions_, "Runs per case (overrides the file).")
        ->type_name("N");
    app_->add_option("--dir", co_.dir, "The campaign's folder (default results/campaigns/NAME).")
        ->type_name("DIR");
    app_->add_flag("--dry-run", co_.dry_run,
                   "Print the plan, its order and estimated time; run nothing. With a seed "
                   "drawn for it, it names the --seed that runs that order.");
    app_->add_option("--order", order_text_,
                     "shuffled (each round of repetitions in a seeded random order; the "
                     "default) or sequential (every repetition of a case, then the next).")
        ->check(CLI::IsMember({"shuffled", "sequential"}))
        ->type_name("ORDER");
    app_->add_option("--seed", seed_, "The shuffle's seed when the file gives none.")
        ->type_name("N");
    app_->add_flag("--replan", co_.replan,
                   "Continue a folder that holds this campaign with another plan: keep its "
                   "finished runs whose case and repetition are unchanged.");
    app_->add_flag("--quiet,-q", co_.quiet,
                   "Print only the closing tables: each case's medians and the verdicts at a "
                   "glance (no plan, no progress, no sentences; errors and --fail-if still on "
                   "stderr). campaign-summary.txt has everything.");
    app_->add_option("--fail-if", fail_if_texts_,
                     fail_if_help() + " In a campaign each case is checked on its median.")
        ->type_name("COND");
    app_->add_option("--junit", junit_, "Write a JUnit XML report to FILE (one testcase per case).")
        ->type_name("FILE");
    app_->add_flag(
        "--lava", co_.lava,
        "At the end, report each figure (jack_test's xrun_count, delay_max, cycle_max; xruns, "
        "slack_p1, wakeup_p99; any --fail-if names) as a LAVA test case: with "
        "lava-test-case on PATH (inside LAVA) call it once per case, else print "
        "its command lines ('lava-test-case NAME --result pass|fail|skip "
        "--measurement V --units U') on stdout; docs/commands.md. In a "
        "campaign: per case, CASE-runs (its finished runs) and each figure as the "
        "case's median, checked as --fail-if checks it.");
    add_plot_format_option(app_, plot_format_text_,
                           "campaign.png or campaign.svg, and with it every run's plots");
    app_->add_option("--history", co_.history,
                     "The history database every counted run adds itself to (default: "
                     "history.sqlite beside the results root of --dir, e.g. "
                     "results/history.sqlite; a case's own --history or --no-history wins).")
        ->type_name("FILE");
    app_->add_flag("--no-history", co_.no_history, "The runs add themselves to no history.");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab campaign --preset jack_test4 --dry-run  # the plan\n"
        "  $ xrunlab campaign --preset iso-vs-fifo-2005 --scale 0.05\n"
        "  $ xrunlab campaign my-cases.toml --repetitions 5\n"
        "  $ xrunlab campaign --preset jack_test4 --scale 0.05 --lava");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    cmd.fail_if = parse_thresholds(fail_if_texts_);
    const PlotFormat plot_format = plot_format_flag(plot_format_text_);  // kUsage naming the flag
    // Given or not: a campaign without --plot-format leaves each run's plots as its case says.
    if (app_->count("--plot-format") > 0) co_.plot_format = plot_format;
    cmd.kind = Command::Kind::kCampaign;
    if (!order_text_.empty()) co_.order = order_text_;
    if (app_->count("--seed") > 0) co_.seed = seed_;
    if (app_->count("--scale") > 0) co_.scale = scale_;
    if (app_->count("--duration") > 0) co_.duration = duration_;
    if (app_->count("--repetitions") > 0) co_.repetitions = repetitions_;
    if (co_.file.empty() == co_.preset.empty()) {
      throw Error(ExitCode::kUsage,
                  "campaign: give either a campaign FILE or --preset NAME (see xrunlab campaign "
                  "--help)");
    }
    cmd.junit = junit_;
    cmd.campaign = co_;
  }

 private:
  CampaignOptions co_;
  std::string order_text_, junit_, plot_format_text_ = "png";
  uint64_t seed_ = 0;
  double scale_ = 0, duration_ = 0;
  int repetitions_ = 0;
  std::vector<std::string> fail_if_texts_;
};

}  // namespace

std::unique_ptr<SubcommandCli> add_campaign_cli(CLI::App& top) {
  return std::make_unique<CampaignCli>(top);
}

}  // namespace xrunlab
