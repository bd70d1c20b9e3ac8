// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What a run's janitor knows about the run it watches, learnt line by line from the engine (the
// janitor's stdin, a pipe whose write end only the engine holds) as the engine learns it:
//
//   dir <path>       the run folder (made)
//   server <name>    the private JACK server's name (before jackd starts; launched servers only)
//   child <pid> <start time>
//                    a process the engine spawned (written by the child itself between fork and
//                    exec, engine/system/process.hpp set_child_report_fd), with its start time
//                    (/proc/PID/stat field 22), so that a process that got the pid after the
//                    child was reaped is never taken for it (0: unknown, never matched)
//   done             the engine is ending cleanly: its own exit path has run
//
// The engine's pid and its system journal come on the janitor's command line. Pure: parsing
// only; engine/janitor/janitor.hpp acts on it. Non-realtime.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

// A child as announced: its pid and start time name it for the life of the boot.
struct AnnouncedChild {
  pid_t pid = 0;
  uint64_t start_time = 0;
  bool operator==(const AnnouncedChild& o) const {
    return pid == o.pid && start_time == o.start_time;
  }
};

struct JanitorPlan {
  pid_t engine = 0;
  std::string journal;  // the engine's SysJournal file (it may never be written)
  std::string shm_dir = "/dev/shm";
  std::string run_dir;                   // "" until "dir"
  std::string server;                    // "" until "server"
  std::vector<AnnouncedChild> children;  // in the order announced, each once
  bool done = false;
};

// Applies one line (without its '\n') to `plan`. False, with *why, for a line that is not one of
// the above (the plan is unchanged); an empty line is ignored.
bool apply_janitor_line(JanitorPlan& plan, std::string_view line, std::string* why);

// Splits what was read into lines: complete lines are applied (bad ones appended to *bad), the
// unfinished rest stays in `pending` for the next read.
void apply_janitor_input(JanitorPlan& plan, std::string& pending, std::string_view chunk,
                         std::vector<std::string>* bad);

}  // namespace xrunlab
