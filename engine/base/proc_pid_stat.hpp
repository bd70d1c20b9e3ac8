// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// /proc/PID/stat and /proc/PID/task/TID/stat (proc(5)), the one parser. The line is
// "PID (COMM) STATE PPID ...": COMM is the program's name as the kernel keeps it (up to 15
// bytes) and may hold anything, spaces, parentheses and newlines included, so the fields are
// read after the LAST ')'. Non-realtime.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xrunlab {

struct ProcPidStat {
  pid_t pid = 0;           // field 1
  std::string comm;        // field 2, without its parentheses
  char state = '?';        // field 3: R, S, D, Z (zombie), T, t, X (dead), I, ...
  pid_t ppid = 0;          // field 4
  pid_t pgrp = 0;          // field 5
  uint64_t minflt = 0;     // field 10: minor page faults (no disk read)
  uint64_t majflt = 0;     // field 12: major page faults (a page read from disk)
  uint64_t utime = 0;      // field 14: user CPU time, clock ticks (sysconf(_SC_CLK_TCK))
  uint64_t stime = 0;      // field 15: system CPU time, clock ticks
  int64_t nice = 0;        // field 19
  uint64_t starttime = 0;  // field 22: clock ticks after boot; with pid, names a process
  int processor = -1;      // field 39: the CPU it last ran on (-1 on a line that ends before)
  int rt_priority = -1;    // field 40: the RT priority, 0 outside SCHED_FIFO/RR (-1: absent)
  int policy = -1;         // field 41: the SCHED_* number (-1 on a line that ends before)
};

// The fields of one stat line. nullopt when there is no "(...)" or fields 3 to 22 are missing or
// not numbers. Pure.
std::optional<ProcPidStat> parse_proc_pid_stat(std::string_view text);

// Reads and parses /proc/PID/stat, or /proc/PID/task/TID/stat when tid > 0. nullopt when the
// process (or thread) is gone or the line is not understood.
std::optional<ProcPidStat> read_proc_pid_stat(pid_t pid, pid_t tid = 0);

}  // namespace xrunlab
