// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab export`: finished runs as KCIDB, SQUAD and OpenMetrics files (engine/export/).
// Non-realtime.

#include "engine/app/cli/subcommand.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

class ExportCli : public SubcommandCli {
 public:
  explicit ExportCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "export",
            "Write finished runs as the files test farms and monitoring take: a KCIDB "
            "document (KernelCI, schema v4.4), SQUAD's submit files (Linaro) or an OpenMetrics "
            "text file (Prometheus node-exporter's textfile collector). Each figure of a run is "
            "a test or a metric; a figure the run does not have is left out, never 0. "
            "docs/exports.md describes every field.")) {
    app_->add_option("PATH", eo_.paths,
                     "Run folders, campaign folders, or folders holding them (searched "
                     "recursively for run.json).")
        ->required()
        ->type_name("PATH");
    app_->add_option("--kcidb", eo_.kcidb,
                     "Write one KCIDB JSON document (I/O schema v4.4) to FILE: the kernel as a "
                     "checkout and a build, a test per run and per figure.")
        ->type_name("FILE");
    app_->add_option("--squad", eo_.squad,
                     "Write SQUAD's tests.json, metrics.json and metadata.json into DIR (made if "
                     "needed), for POST /api/submit/GROUP/PROJECT/BUILD/ENVIRONMENT.")
        ->type_name("DIR");
    app_->add_option("--openmetrics", eo_.openmetrics,
                     "Write the latest run of each case as OpenMetrics text to FILE, atomically "
                     "(for node-exporter's textfile collector: name it *.prom).")
        ->type_name("FILE");
    app_->add_option("--fail-if", fail_if_texts_,
                     "Judge a figure, NAME OP VALUE[us|ms|s] as in `xrunlab run --fail-if` "
                     "(e.g. delay_max>2ms): PASS or FAIL in KCIDB, pass or fail in SQUAD; "
                     "repeatable. Exit code 10 once the files are written when a completed run "
                     "fails one. A figure the run does not have fails.")
        ->type_name("COND");
    app_->add_option("--origin", eo_.options.origin,
                     "KCIDB's origin, the name of the submitting system and the prefix of every "
                     "id: lower-case letters, digits and _ (default: xrunlab).")
        ->type_name("NAME");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab export results/jack_test-64 --kcidb kcidb.json\n"
        "  $ xrunlab export results --squad squad --fail-if 'xruns>0'\n"
        "  $ xrunlab export results --openmetrics /srv/prom/xrunlab.prom");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    cmd.kind = Command::Kind::kExport;
    if (eo_.kcidb.empty() && eo_.squad.empty() && eo_.openmetrics.empty()) {
      throw Error(ExitCode::kUsage,
                  "export: give at least one of --kcidb FILE, --squad DIR, --openmetrics FILE");
    }
    eo_.options.fail_if = parse_thresholds(fail_if_texts_);
    check_kcidb_origin(eo_.options.origin);
    cmd.exports = eo_;
  }

 private:
  ExportCommandOptions eo_;
  std::vector<std::string> fail_if_texts_;
};

}  // namespace

std::unique_ptr<SubcommandCli> add_export_cli(CLI::App& top) {
  return std::make_unique<ExportCli>(top);
}

}  // namespace xrunlab
