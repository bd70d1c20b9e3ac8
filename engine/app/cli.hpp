// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The command line: which command, with its typed options (parsed once, here).
#include <string>
#include <vector>

#include "engine/app/check_command.hpp"
#include "engine/campaign/campaign_runner.hpp"
#include "engine/campaign/sweep_runner.hpp"
#include "engine/doctor/snapshot.hpp"
#include "engine/report/plot_format.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/run/run_options.hpp"

namespace xrunlab {

// What the command line asked for.
// Options of the commands that read finished runs: plot, summary, compare, import.
struct ReportOptions {
  std::vector<std::string> paths;  // run folders, label folders, result roots or files
  std::string format = "text";     // text | json | csv
  std::string by = "label";        // summary, compare: group by (parse_group_by's words)
  std::string write;               // where to write SUMMARY / compare.png / imported records
  PlotFormat plot_format = PlotFormat::kPng;  // plot, compare: --plot-format
};

// Options of `xrunlab doctor`.
struct DoctorOptions {
  bool json = false;  // --json: the checks as JSON on stdout instead of the table
  DoctorRoots roots;  // --root DIR, --root-proc DIR, ...: a fixture tree instead of the system
  int priority = 70;  // --priority N: the jackd priority the checks measure against
};

struct Command {
  enum class Kind {
    kRun,
    kPlot,
    kSummary,
    kCompare,
    kImport,
    kCampaign,
    kSweep,
    kDoctor,
    kCheck,
    kNone
  };
  Kind kind = Kind::kNone;
  RunOptions run;
  ReportOptions report;
  CampaignOptions campaign;  // self_exe is filled in by main()
  SweepOptions sweep;        // self_exe is filled in by main()
  DoctorOptions doctor;
  CheckOptions check;  // self_exe is filled in by main()
  // run and campaign: --fail-if thresholds (checked when parsed) and --junit FILE.
  std::vector<Threshold> fail_if;
  std::string junit;
};

// Checks `xrunlab run` arguments (without "xrunlab run") as the command line would parse them;
// throws Error(kUsage) with the reason. What a campaign checks every case with before it runs.
void check_run_args(const std::vector<std::string>& run_args);

// Parses argv. Prints help/version itself (returns kNone with *exit_code 0); on bad usage throws
// xrunlab::Error(kUsage) with a one-line message naming the flag.
Command parse_command_line(int argc, char** argv, int* exit_code);

}  // namespace xrunlab
