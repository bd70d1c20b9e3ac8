// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab sweep`: the smallest period that runs without dropouts.
#include <cstdint>
#include <optional>

#include "engine/app/cli/subcommand.hpp"
#include "engine/campaign/sweep.hpp"

namespace xrunlab {
namespace {

class SweepCli : public SubcommandCli {
 public:
  explicit SweepCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "sweep",
            "Find the smallest period that runs without dropouts (xrun events or audible "
            "glitches): real runs over a list of periods (and client counts), each step up to N "
            "runs; a table, a heatmap (sweep.png) and a recommendation with its confidence. The "
            "same command continues an interrupted sweep. Options after -- go to every run.")) {
    app_->add_option("--periods", periods_text_, "The periods to search, in frames (16..8192).")
        ->capture_default_str()
        ->type_name("LIST");
    app_->add_option("--clients", clients_text_, "The client counts, one search each (1..253).")
        ->capture_default_str()
        ->type_name("LIST");
    app_->add_option("--duration", so_.spec.duration_s, "Each run's measured SECONDS.")
        ->capture_default_str()
        ->check(CLI::Range(1.0, 86400.0))
        ->type_name("SECONDS");
    app_->add_option("--repetitions", so_.spec.repetitions,
                     "Runs of a step that stays clean (a dropout ends a step after its run).")
        ->capture_default_str()
        ->check(CLI::Range(1, 100))
        ->type_name("N");
    app_->add_option("--search", so_.spec.search,
                     "bisect (binary search per client count, assuming a larger period is never "
                     "worse), descending (from the largest period down to the first dropout) or "
                     "all (every cell).")
        ->capture_default_str()
        ->check(CLI::IsMember({"bisect", "descending", "all"}));
    app_->add_option("--name", so_.spec.name,
                     "The sweep's name (default: sweep-<a hash of its settings>, so the same "
                     "command finds its folder again).")
        ->type_name("NAME");
    app_->add_option("--dir", so_.dir, "The sweep's folder (default results/sweeps/NAME).")
        ->type_name("DIR");
    app_->add_flag("--dry-run", so_.dry_run, "Print the steps it may run and the longest time.");
    app_->add_flag("--quiet,-q", so_.quiet,
                   "Print only the table and the recommendation (and a line if the sweep "
                   "stopped before its end): no plan, no step lines, no heatmap path.");
    app_->add_option("RUN_OPTIONS", so_.spec.run_args,
                     "After --: `xrunlab run` options for every run (e.g. -- --policy fifo "
                     "--dsp-load 30 --load compile); not --clients, --period or --duration.")
        ->type_name("-- RUN_OPTIONS");
    add_plot_format_option(app_, plot_format_text_,
                           "sweep.png or sweep.svg, and with it every run's plots");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab sweep --dry-run  # the steps it may run, how long\n"
        "  $ xrunlab sweep --periods 128,256,512 --clients 4,14\n"
        "  $ xrunlab sweep --clients 8 -- --policy fifo --load compile");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    const PlotFormat plot_format = plot_format_flag(plot_format_text_);  // kUsage naming the flag
    // Given or not: a sweep without --plot-format leaves each run's plots as its options say.
    if (app_->count("--plot-format") > 0) so_.plot_format = plot_format;
    cmd.kind = Command::Kind::kSweep;
    std::vector<int> clients;
    for (uint32_t c : parse_positive_list("--clients", clients_text_, 1, kMaxClients))
      clients.push_back(static_cast<int>(c));
    so_.spec.clients = clients;
    so_.spec.periods = parse_positive_list("--periods", periods_text_, 16, 8192);
    // The runs' rate, for the periods in ms and the sweep's name.
    if (const std::optional<RunOptions> run = sweep_run_options(so_.spec)) {
      so_.spec.rate = run->rate;
    }
    if (app_->count("--name") == 0) so_.spec.name = default_sweep_name(so_.spec);
    cmd.sweep = so_;
  }

 private:
  SweepOptions so_;
  std::string periods_text_ = "64,128,256,512,1024", clients_text_ = "14";
  std::string plot_format_text_ = "png";
};

}  // namespace

std::unique_ptr<SubcommandCli> add_sweep_cli(CLI::App& top) {
  return std::make_unique<SweepCli>(top);
}

}  // namespace xrunlab
