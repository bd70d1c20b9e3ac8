#pragma once
// The command line: which command, with its typed options (parsed once, here).
#include <string>
#include <vector>

#include "engine/run/run_options.hpp"

namespace xrunlab {

// What the command line asked for.
// Options of the commands that read finished runs: plot, summary, compare, import.
struct ReportOptions {
  std::vector<std::string> paths;  // run folders, label folders, result roots or files
  std::string format = "text";     // text | json | csv
  std::string by = "label";        // summary, compare: group by (parse_group_by's words)
  std::string write;               // where to write SUMMARY / compare.png / imported records
};

struct Command {
  enum class Kind { kRun, kPlot, kSummary, kCompare, kImport, kNone } kind = Kind::kNone;
  RunOptions run;
  ReportOptions report;
};

// Parses argv. Prints help/version itself (returns kNone with *exit_code 0); on bad usage throws
// xrunlab::Error(kUsage) with a one-line message naming the flag.
Command parse_command_line(int argc, char** argv, int* exit_code);

}  // namespace xrunlab
