// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The command line: which command, with its typed options (parsed once, here).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/app/check_command.hpp"
#include "engine/app/history_command.hpp"
#include "engine/campaign/campaign_runner.hpp"
#include "engine/campaign/headroom_runner.hpp"
#include "engine/campaign/sweep_runner.hpp"
#include "engine/doctor/snapshot.hpp"
#include "engine/export/exports.hpp"
#include "engine/report/multirun.hpp"
#include "engine/report/plot_format.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/run/run_options.hpp"

namespace xrunlab {

// summary's and compare's --format: what they print.
enum class ReportFormat { kText, kJson, kCsv };

// "text" | "json" | "csv", the words --format takes.
const char* report_format_name(ReportFormat f);
std::optional<ReportFormat> parse_report_format(std::string_view word);

// What the command line asked for.
// Options of the commands that read finished runs: plot, summary, compare, import.
struct ReportOptions {
  std::vector<std::string> paths;             // run folders, label folders, result roots or files
  ReportFormat format = ReportFormat::kText;  // summary, compare: --format
  GroupBy by = GroupBy::kLabel;               // summary, compare: --by
  std::string write;  // where to write SUMMARY / compare.png / imported records
  PlotFormat plot_format = PlotFormat::kPng;  // plot, compare: --plot-format
};

// Options of `xrunlab doctor`.
struct DoctorOptions {
  bool json = false;  // --json: the checks as JSON on stdout instead of the table
  DoctorRoots roots;  // --root DIR, --root-proc DIR, ...: a fixture tree instead of the system
  int priority = 70;  // --priority N: the jackd priority the checks measure against
};

// Options of `xrunlab export` (engine/export/exports.hpp): where each format goes ("" for a
// format not asked for) and the options its documents take.
struct ExportCommandOptions {
  std::vector<std::string> paths;  // run folders, campaign folders or folders holding them
  std::string kcidb;               // --kcidb FILE
  std::string squad;               // --squad DIR
  std::string openmetrics;         // --openmetrics FILE
  ExportOptions options;           // --origin, --fail-if
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
    kHeadroom,
    kDoctor,
    kCheck,
    kExport,
    kHistory,
    kNone
  };
  Kind kind = Kind::kNone;
  RunOptions run;
  ReportOptions report;
  CampaignOptions campaign;  // self_exe is filled in by main()
  SweepOptions sweep;        // self_exe is filled in by main()
  HeadroomOptions headroom;  // self_exe is filled in by main()
  DoctorOptions doctor;
  CheckOptions check;  // self_exe is filled in by main()
  ExportCommandOptions exports;
  HistoryOptions history;
  // run and campaign: --fail-if thresholds (checked when parsed) and --junit FILE.
  std::vector<Threshold> fail_if;
  std::string junit;
  // run and campaign: --lava, the figures as LAVA test cases at the end (engine/report/lava.hpp).
  bool lava = false;
  // run --repeat N: the arguments each of the N runs gets, as they were written, less those the
  // campaign sets per run (--label, --output), checks itself at the end (--fail-if, --junit,
  // --lava),
  // --repeat and --quiet.
  std::vector<std::string> repeat_run_args;
};

// Parses `xrunlab run` arguments (without "xrunlab run") as the command line does, into the
// typed options; throws Error(kUsage) with the reason (--help and --version, which would print,
// are refused too). What the sweep and the check read their runs' --rate and --priority from.
RunOptions parse_run_args(const std::vector<std::string>& run_args);

// The typed options of a sweep's first step (sweep_step_args: its run_args with the first
// client count, period and duration), where the sweep and the check read their runs' --rate and
// --priority; nullopt when `run` refuses them, which check_sweep_args then reports with the
// reason before anything runs.
std::optional<RunOptions> sweep_run_options(const SweepSpec& spec);

// parse_run_args, for a RunArgsCheck: what a campaign checks every case with before it runs.
void check_run_args(const std::vector<std::string>& run_args);

// Parses argv. Prints help/version itself (returns kNone with *exit_code 0); on bad usage throws
// xrunlab::Error(kUsage) with a one-line message naming the flag.
Command parse_command_line(int argc, char** argv, int* exit_code);

}  // namespace xrunlab
