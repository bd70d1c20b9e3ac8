// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab import`: old jack_test summaries into run records.
#include "engine/app/cli/subcommand.hpp"

namespace xrunlab {
namespace {

class ImportCli : public SubcommandCli {
 public:
  explicit ImportCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "import",
            "Read old jack_test summaries into run records (*.records.json) that summary "
            "and compare show next to new runs, marked as imported.")) {
    app_->add_option("FILE", ro_.paths,
                     "jack_test summary files (blocks, multi-run blocks with one column per "
                     "run, CONSOLIDATED RESULTS blocks, .SUMMARY). A value that is not a number "
                     "a run can have is refused, naming the file, line and field.")
        ->required()
        ->type_name("FILE");
    app_->add_option("--write", ro_.write, "DIR for the records (default: results/imported).")
        ->type_name("DIR");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab import jack_test4.SUMMARY  # into results/imported/\n"
        "  $ xrunlab import old/*.txt --write results/imported-2005");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    cmd.kind = Command::Kind::kImport;
    cmd.report = ro_;
  }

 private:
  ReportOptions ro_;
};

}  // namespace

std::unique_ptr<SubcommandCli> add_import_cli(CLI::App& top) {
  return std::make_unique<ImportCli>(top);
}

}  // namespace xrunlab
