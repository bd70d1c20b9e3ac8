// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab headroom`: how much DSP load the machine carries at each period before the first
// xrun, by ramps within runs.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/app/cli/subcommand.hpp"
#include "engine/base/errors.hpp"
#include "engine/campaign/headroom_runner.hpp"
#include "engine/campaign/sweep.hpp"

namespace xrunlab {
namespace {

// "14,1": whole numbers 1..kMaxClients, distinct, in the order given (the first one answers).
std::vector<int> parse_client_counts(const std::string& text) {
  std::vector<int> out;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = text.find(',', at);
    const std::string word =
        text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos ||
        word.size() > 3 || std::stoi(word) < 1 || std::stoi(word) > kMaxClients) {
      throw Error(ExitCode::kUsage,
                  fmt::format("--clients '{}': expected client counts 1..{} separated by commas, "
                              "e.g. 14,1",
                              text, kMaxClients));
    }
    const int n = std::stoi(word);
    if (std::find(out.begin(), out.end(), n) != out.end()) {
      throw Error(ExitCode::kUsage, fmt::format("--clients '{}': {} is given twice", text, n));
    }
    out.push_back(n);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

class HeadroomCli : public SubcommandCli {
 public:
  explicit HeadroomCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "headroom",
            "How much DSP load (all clients together, % of the period, calibrated) this machine "
            "carries at each period before the first xrun: in each run the load grows in small "
            "steps until the cycle table's first xrun event; repeated and interleaved across "
            "periods and client counts. Per cell the median with its interval, min..max, the "
            "measured load against the nominal and the hop that broke; a table, headroom.json, "
            "headroom.png and one line per period. The same command continues an interrupted "
            "measurement. Options after -- go to every run.")) {
    app_->add_option("--periods", periods_text_, "The periods, in frames (16..8192).")
        ->capture_default_str()
        ->type_name("LIST");
    app_->add_option("--clients", clients_text_,
                     "The client counts, in the order given; the answers are for the first.")
        ->capture_default_str()
        ->type_name("LIST");
    app_->add_option("--ports", ho_.spec.ports, "Ports per client.")
        ->capture_default_str()
        ->check(CLI::Range(1, 256))
        ->type_name("P");
    app_->add_option("--repetitions", ho_.spec.repetitions, "Ramps per cell.")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000))
        ->type_name("N");
    app_->add_option("--step", ho_.spec.step_pct,
                     "The load each step adds, all clients together, % of the period.")
        ->capture_default_str()
        ->check(CLI::Range(0.01, 100.0))
        ->type_name("PERCENT");
    app_->add_option("--every", ho_.spec.every_cycles,
                     "Cycles per step (0: the cycles in 40 ms, at least 4).")
        ->capture_default_str()
        ->check(CLI::Range(0, 1000000))
        ->type_name("CYCLES");
    app_->add_flag("--explain", ho_.spec.explain,
                   "Each ramp with --explain: the kernel's reason for the hop that broke (root).");
    app_->add_option("--name", ho_.spec.name,
                     "The measurement's name (default: headroom-<a hash of its settings>, so the "
                     "same command finds its folder again).")
        ->type_name("NAME");
    app_->add_option("--dir", ho_.dir, "Its folder (default results/headroom/NAME).")
        ->type_name("DIR");
    app_->add_flag("--dry-run", ho_.dry_run, "Print the ramps' runs and the longest time.");
    app_->add_flag("--quiet,-q", ho_.quiet, "Print only the table and the answers.");
    app_->add_option("RUN_OPTIONS", ho_.spec.run_args,
                     "After --: `xrunlab run` options for every ramp (e.g. -- --policy fifo "
                     "--backend pipewire); not --clients, --ports, --period, --ramp, --duration.")
        ->type_name("-- RUN_OPTIONS");
    add_plot_format_option(app_, plot_format_text_, "headroom.png or headroom.svg");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab headroom --dry-run  # the ramps it runs, how long\n"
        "  $ xrunlab headroom --periods 128,256 --clients 4 --repetitions 3\n"
        "  $ xrunlab headroom --periods 1024 --clients 1 --ports 1 -- --backend pipewire");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    const PlotFormat plot_format = plot_format_flag(plot_format_text_);  // kUsage naming the flag
    if (app_->count("--plot-format") > 0) ho_.plot_format = plot_format;
    cmd.kind = Command::Kind::kHeadroom;
    ho_.spec.clients = parse_client_counts(clients_text_);
    ho_.spec.periods = parse_positive_list("--periods", periods_text_, 16, 8192);
    // The runs' rate, for the periods in ms and the ramp's cycles per step.
    try {
      ho_.spec.rate = parse_run_args(headroom_run_args(ho_.spec, ho_.spec.clients.front(),
                                                       ho_.spec.periods.front()))
                          .rate;
    } catch (const Error&) {
      // run_headroom checks every ramp's arguments and names the one refused.
    }
    if (app_->count("--name") == 0) ho_.spec.name = default_headroom_name(ho_.spec);
    cmd.headroom = ho_;
  }

 private:
  HeadroomOptions ho_;
  std::string periods_text_ = "64,128,256,512,1024", clients_text_ = "14,1";
  std::string plot_format_text_ = "png";
};

}  // namespace

std::unique_ptr<SubcommandCli> add_headroom_cli(CLI::App& top) {
  return std::make_unique<HeadroomCli>(top);
}

}  // namespace xrunlab
