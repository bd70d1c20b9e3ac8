// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The kinds of load xrunlab-load runs (KIND ARGS... on its command line, see load_tool.hpp):
// which kinds there are, the grammar of their arguments (the one whole number most of them
// take, and its bounds) and the programs each one needs. The engine checks a --load spec with
// these before it starts a supervisor; the supervisor parses its own command line with them.
// Non-realtime.
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

// "" when KIND and ARGS are valid, else one line saying what is wrong, e.g.
// "io-write takes MIB, a whole number from 1 to 4096". For "exec", ARGS is the command line
// (a leading "--" is skipped).
std::string check_load_args(const std::string& kind, const std::vector<std::string>& args);

// "" when every program the load runs is found (PATH lookup), else one line naming each missing
// program and, where known, the Debian package to install, e.g. "load hackbench: program
// 'hackbench' not found in PATH (install the Debian package rt-tests)"; two missing programs
// are separated by "; ". Checks make and cc for "compile",
// hackbench for "hackbench", Xvfb and glxgears for "x11", top for "top", ARGS[0] for "exec";
// other kinds need no program.
std::string missing_program_for(const std::string& kind, const std::vector<std::string>& args);

// Internal to the loads library: the parts of the xrunlab-load program.
namespace load_tool {

enum class Kind {
  kCompile,
  kHackbench,
  kCpu,
  kIoWrite,
  kIoRead,
  kIoCopy,
  kNet,
  kX11,
  kTop,
  kBench,
  kExec
};

struct KindInfo {
  const char* name;
  Kind kind;
  const char* arg;  // the one numeric argument, nullptr when none
  long min, max;
};

// KIND and ARGS of the command line, parsed once: the kind, and its one number where it has one.
struct LoadArgs {
  const KindInfo* kind = nullptr;
  long value = 0;
};

// nullopt, and *error as check_load_args says it, when KIND or ARGS are not valid.
std::optional<LoadArgs> parse_load_args(const std::string& kind,
                                        const std::vector<std::string>& args, std::string* error);

// ARGS of exec without the "--" that separates it from the options.
std::vector<std::string> exec_argv(const std::vector<std::string>& args);

}  // namespace load_tool
}  // namespace xrunlab
