// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab summary`: SUMMARY and a table per group for finished runs.
#include "engine/app/cli/subcommand.hpp"

namespace xrunlab {
namespace {

class SummaryCli : public SubcommandCli {
 public:
  explicit SummaryCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "summary",
            "Walk run folders and write SUMMARY: jack_test's .SUMMARY layout (one '# label' "
            "block per metric) and a table per label.")) {
    app_->add_option("DIR", ro_.paths,
                     "Result folders, label folders, run folders, campaign folders (their "
                     "finished counted runs) or imported *.records.json files.")
        ->required()
        ->type_name("DIR");
    // Not by run: SUMMARY's blocks are groups of runs (compare shows single runs).
    app_->add_option("--by", ro_.by,
                     "Group the runs by label, or by where they ran (host, kernel, backend) or "
                     "their policy, or by label and kernel together (label-kernel: one campaign "
                     "run on two kernels); runs that do not record it (imports) are '(not "
                     "recorded)'.")
        ->transform(enum_words({GroupBy::kLabel, GroupBy::kHost, GroupBy::kKernel,
                                GroupBy::kBackend, GroupBy::kPolicy, GroupBy::kLabelKernel},
                               group_by_name, parse_group_by))
        ->default_str(group_by_name(ro_.by))
        ->type_name("TEXT");
    add_report_format_option(app_, ro_.format);
    app_->add_option("--write", ro_.write, "FILE to write (default: SUMMARY in the first DIR).")
        ->type_name("FILE");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab summary results  # writes results/SUMMARY\n"
        "  $ xrunlab summary results --by kernel --format csv");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    cmd.kind = Command::Kind::kSummary;
    cmd.report = ro_;
  }

 private:
  ReportOptions ro_;
};

}  // namespace

std::unique_ptr<SubcommandCli> add_summary_cli(CLI::App& top) {
  return std::make_unique<SummaryCli>(top);
}

}  // namespace xrunlab
