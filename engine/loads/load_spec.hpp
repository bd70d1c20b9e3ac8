// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `--load SPEC`: the background loads a run is measured under (repeatable). The grammar (the
// reference; load_help() below is its one short form, for --help):
//
//   compile[:JOBS]      a real compile loop (make clean; make -jJOBS over a generated C tree);
//                       JOBS defaults to the number of CPUs. The classic jack_test "+compile".
//   compile:J/cpu       the same with J jobs a CPU (make -j128 on 4 CPUs was compile:32/cpu),
//                       at most kCompileJobsMax in all.
//   hackbench[:GROUPS]  rt-tests' hackbench -g GROUPS in a loop (default 4 groups).
//   cpu:N               N busy-loop processes: a run queue of N CPU hogs.
//   io-write[:MIB]      streaming writes of a MIB-MiB file with fsync, in a loop (default 256).
//   io-read[:MIB]       streaming reads of a MIB-MiB file, page cache dropped each pass.
//   io-copy[:MIB]       copying a MIB-MiB file with fsync, in a loop.
//   net                 loopback TCP traffic between two processes (127.0.0.1 only).
//   x11[:N]             N glxgears (default 1) drawing without pause on a private, headless
//                       X server (Xvfb on a display it chose itself; Mesa draws in software).
//   top                 top -b -d 0: refreshes as fast as it can, its output counted, not kept.
//   bench[:N]           N workers (default 1) each running one fixed CPU benchmark job back to
//                       back, every job's wall and CPU time measured (docs/loads.md).
//   stress-ng:"ARGS"    stress-ng with ARGS (split into argv like a shell would split words,
//                       with '...' / "..." quoting and \ escapes; never run by a shell).
//   cmd:"ARGV"          any command as a load (same splitting, no shell).
// Every spec may end in @nice=N (N -20..19, a signed number) to run the load at that nice
// value; default nice 0, SCHED_OTHER. Each load runs under its own xrunlab-load supervisor in
// its own process group, with a scratch folder under the run folder.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

// The most jobs a compile load runs: the generated tree's files (main.c and 299 units,
// engine/loads/compile_tree.hpp); make could not run more compilers at once.
inline constexpr int kCompileJobsMax = 300;

struct LoadSpec {
  std::string text;                    // as given
  std::string kind;                    // compile, hackbench, cpu, io-write, ..., bench, cmd
  std::vector<std::string> tool_args;  // xrunlab-load KIND ARGS..., e.g. {"compile", "2"}
  int nice = 0;
};

// The --load help text: the grammar above in one sentence.
const char* load_help();

// nullopt (and *why, one line naming the part at fault) when malformed. `ncpus` gives the
// compile default.
std::optional<LoadSpec> parse_load(std::string_view text, int ncpus, std::string* why);

// Splits like a POSIX shell splits words, without any expansion: whitespace separates,
// '...' is literal, "..." allows \" and \\, a backslash escapes the next character.
std::optional<std::vector<std::string>> split_words(std::string_view text, std::string* why);

}  // namespace xrunlab
