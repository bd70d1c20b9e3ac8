// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab check`: the doctor's checks and a short sweep, ending in one verdict.
#include "engine/app/cli/subcommand.hpp"

namespace xrunlab {
namespace {

class CheckCli : public SubcommandCli {
 public:
  explicit CheckCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "check",
            "Can this machine play without dropouts, and at which buffer size? The doctor's "
            "checks, then a short sweep of the periods for your client count and DSP load, "
            "ending in one verdict: the smallest period that ran clean (with its confidence), "
            "the next smaller one's rate, and what to fix first. Exit code 0 (a period ran "
            "clean), 22 (none did), 130 (interrupted; the same command continues).")) {
    app_->add_option("--clients", ko_.clients, "Your number of plug-ins or tracks: DSP clients.")
        ->capture_default_str()
        ->check(CLI::Range(1, kMaxClients))
        ->type_name("N");
    app_->add_option("--dsp-load", ko_.dsp_load_pct, "Their DSP load, percent of the period.")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 95.0))
        ->type_name("PCT");
    app_->add_option("--periods", ko_.periods, "The periods to try, frames.")
        ->capture_default_str()
        ->type_name("LIST");
    app_->add_option("--duration", ko_.duration_s, "Each run's measured SECONDS.")
        ->capture_default_str()
        ->check(CLI::Range(1.0, 86400.0))
        ->type_name("SECONDS");
    app_->add_option("--repetitions", ko_.repetitions, "Runs of a period that stays clean.")
        ->capture_default_str()
        ->check(CLI::Range(1, 100))
        ->type_name("N");
    app_->add_option("--headroom-ramps", ko_.headroom_ramps,
                     "DSP ramps at the recommended period (`xrunlab headroom`): how much DSP load "
                     "it carries before the first xrun (0: none).")
        ->capture_default_str()
        ->check(CLI::Range(0, 100))
        ->type_name("N");
    app_->add_option("--dir", ko_.dir,
                     "The check's folder (default results/checks/check-<hash of the settings>).")
        ->type_name("DIR");
    app_->add_flag("--quiet,-q", ko_.quiet, "No live line and no step lines.");
    app_->add_option("RUN_OPTIONS", ko_.run_args,
                     "After --: `xrunlab run` options for every run, e.g. -- --rate 44100 "
                     "--load compile --backend alsa:hw:1 (not --clients, --period, --duration, "
                     "--dsp-load).")
        ->type_name("-- RUN_OPTIONS");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab check  # 14 clients at 30 % DSP load\n"
        "  $ xrunlab check --clients 8 --dsp-load 50 -- --rate 44100");
  }

  // The sweep's settings and the runs' --rate and --priority come together in
  // check_sweep_options (engine/app/check_command.hpp), when the check runs.
  void finish(Command& cmd, const std::vector<std::string>&) override {
    cmd.kind = Command::Kind::kCheck;
    cmd.check = ko_;
  }

 private:
  CheckOptions ko_;
};

}  // namespace

std::unique_ptr<SubcommandCli> add_check_cli(CLI::App& top) {
  return std::make_unique<CheckCli>(top);
}

}  // namespace xrunlab
