// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The janitor's kill: every process a dead engine's run started, found and stopped before any
// is killed, so that none escapes by being re-parented or by forking meanwhile.
//
// A round reads /proc once and takes, besides what earlier rounds took: each root still alive
// (the children the engine announced, held by pidfd so that a reused pid is never hit), every
// member of a live root's process group (each child of the engine leads its own), every
// descendant of a process taken (a load supervisor's workers and their compilers; a process
// that double-forked stays below the supervisor, a child subreaper) and every task of the run's
// cgroups (rt-throttle). Each new one gets SIGSTOP, which it cannot ignore: stopped, it cannot
// fork. Rounds repeat until one finds nothing new; then all get SIGKILL, and the sweep waits for
// them to be gone (or zombies: they hold nothing, and their new parent reaps them).
// Non-realtime.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace xrunlab {

// One process as /proc shows it, for run_members.
struct ProcRow {
  pid_t pid = 0, ppid = 0, pgrp = 0;
  char state = '?';
  uint64_t start_time = 0;  // /proc/PID/stat field 22: with the pid, names the process
};

// Pure: the living (not zombie) processes of `table` that belong to the run: `roots` alive in
// it, members of their process groups, `cgroup_tasks`, and every descendant of any of these or
// of `taken` (processes taken earlier, perhaps re-parented since). Never `self` nor pid 1.
std::set<pid_t> run_members(const std::vector<ProcRow>& table, const std::set<pid_t>& roots,
                            const std::set<pid_t>& taken, const std::set<pid_t>& cgroup_tasks,
                            pid_t self);

// Every process of /proc now (zombies included, with their state).
std::vector<ProcRow> read_proc_table();

struct RootProcess {
  pid_t pid = 0;
  int pidfd = -1;  // pidfd_open of the announced child (-1: it was gone already)
};

struct SweepReport {
  std::vector<pid_t> killed;  // every process that got SIGKILL
  std::vector<pid_t> left;    // those still alive (and not zombies) when the wait ended
  int rounds = 0;
};

// Stops and kills as above; waits up to `wait` for the killed to be gone. `cgroups`: folders
// whose cgroup.procs lists tasks of the run. A process found in /proc is signalled only through
// a pidfd opened with open_pidfd_of (the pid and start time /proc showed), never by a pid that
// may have been reused since; a root only through its pidfd. Never throws.
SweepReport sweep_run_processes(const std::vector<RootProcess>& roots,
                                const std::vector<std::string>& cgroups,
                                std::chrono::milliseconds wait);

// pidfd_open(2), or -1.
int open_pidfd(pid_t pid);

// A pidfd of `pid` only when it is the process that started at `start_time` (clock ticks after
// boot, /proc/PID/stat field 22; pid and start time name one process for the life of the boot):
// the pidfd is opened first, the start time read after, and the pidfd's process checked to be
// still there (not reaped, so its pid was not given to another) after the read. -1 otherwise
// (start_time 0 is never a match), with *error the errno of pidfd_open, or ESRCH (gone or
// another process), or 0 on success.
int open_pidfd_of(pid_t pid, uint64_t start_time, int* error = nullptr);

// pidfd_send_signal(2): true when sent.
bool pidfd_signal(int pidfd, int sig);

// Waits up to `before_kill` for the process of `pidfd` to exit, then sends it SIGKILL (*killed
// says whether it was sent) and waits for the rest of `wait`. True once it has exited (a zombie
// counts: it holds nothing); true at once for pidfd -1 (nothing to wait for).
bool wait_process_end(int pidfd, std::chrono::milliseconds before_kill,
                      std::chrono::milliseconds wait, bool* killed = nullptr);

}  // namespace xrunlab
