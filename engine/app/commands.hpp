#pragma once
// The commands that read finished runs: plot, summary, compare, import.
#include <string>

#include "engine/app/cli.hpp"

namespace xrunlab {

// Returns the exit code; throws xrunlab::Error for bad input (one line, documented code).
int run_report_command(const Command& cmd, const std::string& self_exe);

}  // namespace xrunlab
