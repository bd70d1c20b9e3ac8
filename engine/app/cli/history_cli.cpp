// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab history`: the runs of this machine in one SQLite file, and their trends.
#include "engine/app/cli/subcommand.hpp"
#include "engine/app/history_command.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

class HistoryCli : public SubcommandCli {
 public:
  explicit HistoryCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "history",
            "The runs of this machine in SQLite, and each setting's trend across kernels. Every "
            "run adds itself; `history add` adds folders, imported records or another machine's "
            "history; a regression is flagged only where the campaigns' statistics resolve "
            "one.")) {
    app_->add_option("WORDS", words_,
                     "Nothing: the trend. `add PATH...`: add run folders, campaign folders, "
                     "results roots, imported *.records.json files or another history "
                     "(*.sqlite) to the database; a run already there (by its id) is left as it "
                     "is.")
        ->type_name("[add PATH...]");
    app_->add_option("--db", o_.db, "The history database.")
        ->default_str(kDefaultHistory)
        ->type_name("FILE");
    app_->add_option("--kernel-as", kernel_as_,
                     "add: record the runs under this kernel name instead of the one they ran "
                     "on, marked relabelled (shown with *): for demonstrations and tests of the "
                     "regression check, never for real comparisons.")
        ->type_name("NAME");
    app_->add_option("--figure", o_.figures,
                     "A figure to follow (repeatable): xruns, xrun_count, xrun_rate, "
                     "delay_max, cycle_max, dsp_load, slack_p1, wakeup_p99, client_wakeup_p99, "
                     "baseline_p99, glitches. Default: xruns xrun_count delay_max cycle_max "
                     "slack_p1 wakeup_p99.")
        ->type_name("NAME");
    app_->add_option("--by", by_,
                     "Rows per kernel (with each kernel against the one before it) "
                     "or per run in time.")
        ->check(CLI::IsMember({"kernel", "date"}))
        ->default_str("kernel");
    app_->add_option("--format", format_, "text, or json (the report's numbers and sentences).")
        ->check(CLI::IsMember({"text", "json"}))
        ->default_str("text");
    app_->add_option("--label", label_, "Only runs of this --label (case).")->type_name("NAME");
    app_->add_option("--host", host_, "Only runs of this host.")->type_name("NAME");
    app_->add_option("--kernel", kernel_, "Only runs of this kernel release.")->type_name("NAME");
    app_->add_option("--policy", policy_,
                     "Only runs whose scheduling label (run.json's, e.g. 'SCHED_FIFO 70 (server) "
                     "/ 65 (clients)') contains TEXT, e.g. 'SCHED_FIFO 70'.")
        ->type_name("TEXT");
    app_->add_option("--backend", backend_, "Only runs of this backend (vcard, dummy, alsa, ...).")
        ->type_name("NAME");
    app_->add_option("--load", loads_,
                     "Only runs with these loads (specs joined by '+'; 'none': "
                     "no load).")
        ->type_name("SPEC");
    app_->add_option("--period", period_, "Only runs of this period (frames).")->type_name("N");
    app_->add_option("--clients", clients_, "Only runs with this many clients.")->type_name("N");
    app_->add_option("--plot", o_.plot,
                     "Where history.png goes (default: beside the database): the figures of "
                     "the setting with the most runs against the date, a colour per kernel.")
        ->type_name("FILE");
    app_->add_flag("--no-plot", o_.no_plot, "Draw no picture.");
    app_->add_flag("--fail-on-regression", o_.fail_on_regression,
                   "Exit with 10 when a regression is flagged (for CI).");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab history\n"
        "  $ xrunlab history add results/campaigns/rt-kernel\n"
        "  $ xrunlab history --period 256 --figure delay_max --by date");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    cmd.kind = Command::Kind::kHistory;
    if (!words_.empty()) {
      if (words_.front() != "add") {
        throw Error(ExitCode::kUsage,
                    "history: '" + words_.front() +
                        "' is not an action (give `add PATH...`, or nothing for the trend)");
      }
      if (words_.size() < 2) throw Error(ExitCode::kUsage, "history add: give a PATH to add");
      o_.add = true;
      o_.paths.assign(words_.begin() + 1, words_.end());
    } else if (kernel_as_) {
      throw Error(ExitCode::kUsage, "--kernel-as: only with `history add`");
    }
    if (kernel_as_ && kernel_as_->empty()) throw Error(ExitCode::kUsage, "--kernel-as: empty name");
    o_.kernel_as = kernel_as_;
    o_.by_date = by_ == "date";
    o_.json = format_ == "json";
    HistoryFilter& f = o_.filter;
    f.label = label_;
    f.host = host_;
    f.kernel = kernel_;
    f.policy = policy_;
    f.backend = backend_;
    if (loads_) f.loads = *loads_ == "none" ? std::string() : *loads_;
    f.period = period_;
    f.clients = clients_;
    cmd.history = o_;
  }

 private:
  HistoryOptions o_;
  std::vector<std::string> words_;
  std::optional<std::string> kernel_as_, label_, host_, kernel_, policy_, backend_, loads_;
  std::optional<int64_t> period_, clients_;
  std::string by_ = "kernel", format_ = "text";
};

}  // namespace

std::unique_ptr<SubcommandCli> add_history_cli(CLI::App& top) {
  return std::make_unique<HistoryCli>(top);
}

}  // namespace xrunlab
