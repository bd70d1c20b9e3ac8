// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The rt-throttle policy's cgroup: a cgroup-v1 "cpu" group with its own RT bandwidth
// (cpu.rt_runtime_us of every cpu.rt_period_us), so that the SCHED_FIFO audio threads inside it
// may use at most PCT % of each CPU. Needs a kernel with RT group scheduling
// (CONFIG_RT_GROUP_SCHED) and the cpu controller mounted as cgroup v1; cgroup v2 has no RT
// bandwidth per group.
//
// Every change goes through a SysJournal: the group is a journalled "mkdir" and its two knobs
// are journalled writes, so SysJournal::restore_all() (or the next start's recover_stale(),
// after a crash) moves the tasks back to the parent group and removes the group.
// Not for realtime code: set up before the run.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/sched/sys_journal.hpp"

namespace xrunlab {

struct RtThrottleSupport {
  bool available = false;
  std::string why;            // when not available: one line saying why and what to change
  std::string cpu_root;       // where the v1 cpu controller is mounted: "/sys/fs/cgroup/cpu"
  std::string current_group;  // this process's group under cpu_root ("/" = the root group)
};

// Available when a cgroup v1 "cpu" controller is mounted, this process's group in it is visible,
// its cpu.rt_runtime_us exists, is writable (as is the group folder) and is above 0 (a child
// group's RT time comes out of its parent's). Reads the two files; never throws.
RtThrottleSupport detect_rt_throttle(const std::string& proc_self_cgroup = "/proc/self/cgroup",
                                     const std::string& mounts = "/proc/self/mounts");

// Is the process whose /proc/PID/cgroup text is `proc_pid_cgroup` in the cgroup-v1 cpu group
// at `group_path` (a folder under `cpu_root`, where the cpu controller is mounted, as
// RtThrottleGroup::path() and RtThrottleSupport::cpu_root give them)? Pure.
bool cgroup_in_group(std::string_view proc_pid_cgroup, const std::string& cpu_root,
                     const std::string& group_path);

// The same for process `pid`, with the cpu controller's mount point from /proc/self/mounts:
// is it in the rt-throttle group at `group_path`? false when either file cannot be read.
bool in_cgroup(pid_t pid, const std::string& group_path);

class RtThrottleGroup {
 public:
  // Creates <cpu_root>/<current_group>/xrunlab-<pid> through the journal, then sets
  // cpu.rt_period_us = period_us and cpu.rt_runtime_us = pct % of it (in this order: the kernel
  // checks the runtime against the period). pct in (0, 100], period_us in [1000, 1000000000].
  // Returns one line saying what was set. Throws Error(kUsage) for bad values,
  // Error(kRunFailed) when rt-throttle is unavailable or the kernel refuses (one line explaining
  // EINVAL / EBUSY: a group's RT share must fit in what its parent has left). A group already
  // made stays journalled and is removed by restore_all().
  std::string create(SysJournal& journal, const RtThrottleSupport& s, double pct,
                     uint64_t period_us);
  // Moves a whole process (all its threads) into the group by writing its pid to
  // cgroup.procs. Not journalled: removing the group moves its tasks back to the parent.
  // A process with RT threads can only join a group whose rt_runtime_us > 0 (EINVAL otherwise).
  // Returns one line saying what was done; throws Error(kRunFailed) naming the pid on failure.
  std::string add_process(pid_t pid);
  // The group's folder ("" before create). Its cgroup.procs is what SpawnSpec::cgroup_procs
  // takes to start a child inside the group.
  std::string path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace xrunlab
