// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab compare`: finished runs side by side, and compare.png.
#include "engine/app/cli/subcommand.hpp"

namespace xrunlab {
namespace {

class CompareCli : public SubcommandCli {
 public:
  explicit CompareCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "compare", "Side-by-side columns in jack_test's field names, and compare.png.")) {
    app_->add_option("RUN_OR_LABEL", ro_.paths,
                     "Run folders, label folders, campaign folders (their finished counted runs) "
                     "or imported files.")
        ->required()
        ->type_name("PATH");
    app_->add_option("--by", ro_.by,
                     "One column per label, per run, or per host, kernel, backend or policy, or "
                     "per label and kernel (label-kernel); runs that do not record it (imports) "
                     "are '(not recorded)'.")
        ->transform(enum_words({GroupBy::kLabel, GroupBy::kRun, GroupBy::kHost, GroupBy::kKernel,
                                GroupBy::kBackend, GroupBy::kPolicy, GroupBy::kLabelKernel},
                               group_by_name, parse_group_by))
        ->default_str(group_by_name(ro_.by))
        ->type_name("TEXT");
    add_report_format_option(app_, ro_.format);
    app_->add_option("--write", ro_.write, "FILE for the plot (default: compare.png here).")
        ->type_name("FILE");
    add_plot_format_option(app_, plot_format_text_, "compare.png or compare.svg");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab compare results/fifo results/rr  # a column per label\n"
        "  $ xrunlab compare results/campaigns/jack_test4 --by run");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    ro_.plot_format = plot_format_flag(plot_format_text_);  // kUsage naming the flag
    cmd.kind = Command::Kind::kCompare;
    cmd.report = ro_;
  }

 private:
  ReportOptions ro_;
  std::string plot_format_text_ = "png";
};

}  // namespace

std::unique_ptr<SubcommandCli> add_compare_cli(CLI::App& top) {
  return std::make_unique<CompareCli>(top);
}

}  // namespace xrunlab
