// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab plot`: draw run folders' plots again.
#include "engine/app/cli/subcommand.hpp"

namespace xrunlab {
namespace {

class PlotCli : public SubcommandCli {
 public:
  explicit PlotCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "plot", "Draw a run folder's plots again (plots/timeline.png, plots/latency.png).")) {
    app_->add_option("RUN_DIR", ro_.paths, "Run folders.")->required()->type_name("RUN_DIR");
    add_plot_format_option(app_, plot_format_text_, "the plots drawn (plots/*.png or plots/*.svg)");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab plot results/demo/*  # every run of the label demo");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    ro_.plot_format = plot_format_flag(plot_format_text_);  // kUsage naming the flag
    cmd.kind = Command::Kind::kPlot;
    cmd.report = ro_;
  }

 private:
  ReportOptions ro_;
  std::string plot_format_text_ = "png";
};

}  // namespace

std::unique_ptr<SubcommandCli> add_plot_cli(CLI::App& top) {
  return std::make_unique<PlotCli>(top);
}

}  // namespace xrunlab
