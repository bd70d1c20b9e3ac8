// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Reading and setting the scheduling of any thread (by tid) on Linux, as `chrt -p` / `schedtool`
// would show it: raw sched_getattr/sched_setattr (every class, SCHED_DEADLINE and policy 4
// included), affinity, last CPU and names from /proc. No shell, no external programs.
// Non-realtime: called by the engine before and after a run, and by clients before their first
// cycle; never from a process callback.
#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/wire/sched_target.hpp"

namespace xrunlab {

struct ThreadSched {
  pid_t pid = 0, tid = 0;
  std::string process;  // comm of the pid (/proc/PID/comm)
  std::string thread;   // comm of the tid (/proc/PID/task/TID/comm)
  int policy = 0;       // SCHED_* number (sched_getattr)
  int rt_priority = 0;  // SCHED_FIFO / SCHED_RR, else 0
  int nice = 0;         // the thread's nice value (getpriority), kept by RT threads too
  // SCHED_DEADLINE only (0 otherwise; fair threads' sched_runtime is their slice, not kept).
  uint64_t dl_runtime_ns = 0, dl_deadline_ns = 0, dl_period_ns = 0, flags = 0;
  std::vector<int> cpus;  // affinity (sched_getaffinity on the tid)
  int last_cpu = -1;      // field 39 of /proc/PID/task/TID/stat
  // The thread's page faults so far (fields 10 and 12 of the same line); -1: not read (a
  // run.json from before they were kept). Two readings give the faults between them.
  int64_t minor_faults = -1, major_faults = -1;
};

// "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH", 4 -> "SCHED_ISO", "SCHED_IDLE",
// 6 -> "SCHED_DEADLINE", else "policy N".
std::string policy_name(int policy);

// Everything above for thread `tid` of process `pid`; nullopt with the reason in *why (may be
// null) when the thread does not exist (or is not a thread of `pid`) or cannot be read.
std::optional<ThreadSched> read_thread_sched(pid_t pid, pid_t tid, std::string* why);

// The tids in /proc/PID/task, ascending; empty if the process does not exist.
std::vector<pid_t> list_threads(pid_t pid);

// The bare sched_setattr of `t` on thread `tid` (0: the calling thread): 0 or an errno value.
// For loops that must tell ESRCH apart (the iso-emu governor); people get apply_thread_sched.
int set_thread_sched(pid_t tid, const ThreadTarget& t);

// Applies `t` to thread `tid` with sched_setattr. "" on success, else ONE line naming the thread,
// the requested setting, errno's text and what to do: EPERM -> needs root/CAP_SYS_NICE or an
// rtprio/nice limit (for SCHED_DEADLINE: affinity narrower than the root domain or
// sched_rt_runtime_us 0; for RT: the cgroup's RT runtime); EBUSY for SCHED_DEADLINE -> admission
// control refused the bandwidth (runtime/period over what sched_rt_runtime_us allows);
// EINVAL for policy 4 -> this kernel has no SCHED_ISO.
// SCHED_DEADLINE: a deadline of 0 means "= period" and a period of 0 means "= deadline".
// A nice outside -20..19 or an RT priority outside 1..99 is refused here (the kernel would clamp
// the nice value silently).
std::string apply_thread_sched(pid_t tid, const ThreadTarget& t);

// Does the thread run under `t`? Class, and: FIFO/RR priority; OTHER/BATCH nice; DEADLINE
// runtime/deadline/period (normalised as in apply_thread_sched) and the reclaim flag; IDLE and
// ISO class only. "" if yes, else what differs, e.g. "SCHED_OTHER nice 0, expected SCHED_FIFO 65".
std::string check_thread_sched(const ThreadSched& s, const ThreadTarget& t);

// One line per thread, like schedtool:
// "pid 1234 tid 1240 jackd/jackd  SCHED_FIFO prio 70 nice 0 cpus 0-1";
// SCHED_DEADLINE: "... SCHED_DEADLINE runtime/deadline/period 100/1000/1000 us nice 0 cpus 0-1"
// (plus " reclaim" when SCHED_FLAG_RECLAIM is set). nice is always signed: -20, +5 or 0.
std::string format_thread_line(const ThreadSched& s);

// Ascending CPU numbers as ranges: {0, 1, 4} -> "0-1,4"; {} -> "".
std::string format_cpu_list(const std::vector<int>& cpus);

// The other way, in the cpuset list syntax of taskset -c, cgroups and
// /sys/devices/system/cpu/online: "0-2,5\n" -> {0, 1, 2, 5}, ascending without repeats.
// nullopt (and *why, which may be null: one line naming the part at fault) for an empty list,
// a part that is not N or N-M in decimal, a range that runs backwards or a CPU number of
// kMaxCpuNumber or more. For lists a person typed (--cpus).
inline constexpr int kMaxCpuNumber = 8192;  // the kernel's largest NR_CPUS
std::optional<std::vector<int>> parse_cpu_list_checked(std::string_view text, std::string* why);
// The same for lists the kernel wrote (/sys, /proc): {} when malformed.
std::vector<int> parse_cpu_list(std::string_view text);

// The CPU affinity of thread `tid` (a pid is its main thread's tid; 0 = the calling thread),
// as sched_getaffinity gives it, ascending; nullopt with errno set when it cannot be read.
std::optional<std::vector<int>> read_affinity(pid_t tid);

// Keys: pid, tid, process, thread, policy (name), policy_number, rt_priority, nice,
// dl_runtime_ns, dl_deadline_ns, dl_period_ns, flags, cpus (array), last_cpu.
nlohmann::json to_json(const ThreadSched& s);

// The thread of process `pid` that runs SCHED_FIFO/SCHED_RR at `priority` (jackd's realtime
// driver thread runs at the server priority); nullopt if none or more than one (say which in
// *why, which may be null).
std::optional<pid_t> find_rt_thread(pid_t pid, int priority, std::string* why);

}  // namespace xrunlab
