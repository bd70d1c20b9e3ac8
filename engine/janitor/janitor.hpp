// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// xrunlab-janitor: the small process a run starts first (engine/janitor/janitor_link.hpp) that
// outlives the engine. It lives in its own process group and has no death signal, ignores
// SIGINT and SIGHUP (a terminal's Ctrl-C and hang-up are for the engine, which then stops the
// run itself), and reads what the engine tells it (janitor_plan.hpp) until its stdin ends:
//   * after "done" (the engine's own exit path ran): it exits at once, touching nothing;
//   * without it (the engine died: SIGKILL, a crash): it waits for the engine to end (SIGKILL
//     after 2 s, at most 10 s in all: its settings can only be restored once it is dead; if it
//     still lives, it says what stays changed), stops and kills every process the run
//     started (process_sweep.hpp) and everything in the run's cgroup, restores the engine's
//     system journal (sysctls, cgroups, trace instances) exactly as the engine's exit path does,
//     removes this run's /dev/shm files and JACK registry entries (never another run's, never
//     another user's file), the loads' scratch folders and a PipeWire runtime folder (only a
//     folder of this user: its name is predictable), marks the run folder killed
//     (run_status.hpp), says what it did on stderr and in <run>/janitor.log, and exits.
// SIGTERM ends the janitor at once without cleaning up (the engine stays responsible); once
// it is cleaning up, SIGTERM waits for the end. Non-realtime.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/janitor/janitor_plan.hpp"
#include "engine/sched/sys_journal.hpp"

namespace xrunlab {

// The command line: --engine PID --journal FILE [--shm-dir DIR] [--tmp-dir DIR]. nullopt with
// *why for anything else.
struct JanitorArgs {
  JanitorPlan plan;
  std::string tmp_dir = "/tmp";  // where --backend pipewire makes its runtime folder
};
std::optional<JanitorArgs> parse_janitor_args(const std::vector<std::string>& args,
                                              std::string* why);

// What the janitor says when the engine outlives its wait (`waited`, SIGKILL sent) after its pipe
// closed: its settings cannot be restored while it lives. Names what stays changed (the
// `entries` of its `journal`, the first few) and who restores it: the next xrunlab start.
std::string engine_outlived_line(pid_t engine, std::chrono::milliseconds waited,
                                 const std::vector<JournalEntry>& entries,
                                 const std::string& journal);

// The program: watches, then exits 0 (clean end, or cleaned up with nothing left), 1 when
// something could not be cleaned (said on stderr), 2 for a bad command line.
int janitor_main(int argc, char** argv);

}  // namespace xrunlab
