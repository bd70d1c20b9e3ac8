// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// /proc/stat snapshots and the per-interval system sample derived from two of them.
// Non-realtime: used by the engine's once-a-second sampler.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xrunlab {

// Jiffies from the aggregate "cpu " line. guest/guest_nice are already included in user/nice.
struct CpuTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t total() const;
};

struct ProcStatSnapshot {
  CpuTimes cpu;
  uint64_t intr = 0;
  uint64_t ctxt = 0;
  int64_t taken_us = 0;  // CLOCK_MONOTONIC_RAW µs
};

// Reads the aggregate "cpu " line (at least user nice system idle; missing later fields are 0),
// the first number of "intr N ..." and "ctxt N". Any of the three missing or malformed -> nullopt.
// taken_us is left at 0.
std::optional<ProcStatSnapshot> parse_proc_stat(std::string_view text);

// Reads and parses `path`, setting taken_us (CLOCK_MONOTONIC_RAW, just before the read).
std::optional<ProcStatSnapshot> read_proc_stat(const std::string& path = "/proc/stat");

struct SystemSample {
  double t_s = 0;
  double user_pct = 0, nice_pct = 0, system_pct = 0, iowait_pct = 0, irq_pct = 0, softirq_pct = 0;
  double intr_per_s = 0, ctxt_per_s = 0;
};

// Percentages of total jiffies between the two snapshots (all CPUs together, like jack_test);
// rates per wall second from taken_us. A counter that went backwards counts as 0. Zero
// elapsed jiffies or time -> the matching fields are 0. `t_s` is copied into the sample.
SystemSample diff_proc_stat(const ProcStatSnapshot& a, const ProcStatSnapshot& b, double t_s);

// A process's CPU time (utime + stime from /proc/PID/stat) in clock ticks; nullopt if gone.
std::optional<uint64_t> process_cpu_ticks(pid_t pid);

}  // namespace xrunlab
