// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// Preflight: is the requested --policy possible on this machine? Decided before any process
// starts, so that an impossible policy costs one line of explanation instead of a failed run.
// check_policy() is a pure decision over facts; collect_sched_facts() gathers the real facts.
// Non-realtime: called once by the engine before the run.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/sched/policy.hpp"

namespace xrunlab {

struct SchedFacts {
  uid_t euid = 0;
  bool cap_sys_nice = false;              // CapEff bit 23 in /proc/self/status
  std::optional<uint64_t> rlimit_rtprio;  // nullopt = unlimited
  std::optional<uint64_t> rlimit_nice;    // raw RLIMIT_NICE value (nice limit = 20 - value),
                                          // nullopt = unlimited
  int64_t sched_rt_runtime_us = 950000;   // /proc/sys/kernel/sched_rt_runtime_us (-1 = no limit)
  int64_t sched_rt_period_us = 1000000;
  // cpu.rt_runtime_us of THIS process's cgroup-v1 cpu group, if that exists (RT group
  // scheduling)
  std::optional<int64_t> cgroup_rt_runtime_us;
  bool iso_supported = false;  // result of the policy-4 probe
  int ncpus = 1;
  bool cgroup_v1_cpu_rt = false;  // /sys/fs/cgroup/cpu/cpu.rt_runtime_us exists and is writable
                                  // (for rt-throttle)
  // SCHED_DEADLINE bandwidth, in CPUs, that the kernel's own deadline servers already hold in
  // admission control: since Linux 6.12 the fair server reserves 50 ms per 1 s on every CPU
  // (measured on 6.18 with 2 CPUs: a second deadline task was admitted up to 0.85, not 0.95).
  double dl_reserved_cpus = 0;
};

// Reads the system: /proc/self/status, /proc/sys/kernel/sched_rt_*, /proc/self/cgroup +
// /proc/self/mountinfo (to find this process's cgroup-v1 cpu group) and that group's
// cpu.rt_runtime_us, the online CPUs (/sys/devices/system/cpu/online, else sysconf),
// /sys/fs/cgroup/cpu/cpu.rt_runtime_us (writable for the effective uid), and the fair-server
// reservation (debugfs sched/fair_server if readable, else from the kernel release in
// /proc/sys/kernel/osrelease, else uname). Every one of these paths is read under `root`
// ("" = the real /proc and /sys; tests pass a folder of fixture files). The process's own
// facts come from the process whatever `root` is: geteuid, getrlimit and probe_sched_iso().
// Unreadable sources keep the defaults above; a missing CapEff line counts as CAP_SYS_NICE
// exactly when euid is 0. Never throws.
SchedFacts collect_sched_facts(const std::string& root = "");

// Is SCHED_FIFO at `priority` permitted to this process? Tried for real, with
// pthread_setschedparam on a short-lived thread (what jackd -R -P and the iso-emu governor will
// need). "" when permitted, else ONE line: what was refused and why (errno's text), the
// RLIMIT_RTPRIO, and what to do ('@audio - rtprio 95' in /etc/security/limits.d/, the audio
// group, log in again, or --priority 0).
std::string check_realtime_permission(int priority);

// On a short-lived thread: sched_setscheduler(0, 4, prio 0) -> true only if it succeeds;
// restore nothing (thread ends). Mainline kernels reject policy 4 with EINVAL.
bool probe_sched_iso();

// "" when possible; otherwise ONE line: why not and what to change (e.g. "SCHED_FIFO 70 needs
// RLIMIT_RTPRIO >= 70 (it is 0): add '@audio - rtprio 95' to /etc/security/limits.d/audio.conf
// and log in again, or run as root"). `clients` = number of client threads under t.client.
//
// Rules (the first that fails is reported):
//  * RT classes (any target SCHED_FIFO/SCHED_RR: fifo, rr, rt-throttle, iso-emu; jackd -R is
//    always used): sched_rt_runtime_us 0 is impossible; a cgroup cpu.rt_runtime_us of 0 is
//    refused by the kernel while RT bandwidth is enabled (sched_rt_runtime_us >= 0) - except for
//    rt-throttle, whose threads move to a group of their own; then CAP_SYS_NICE or
//    RLIMIT_RTPRIO >= the highest RT priority used.
//  * nice < 0 (other/batch): CAP_SYS_NICE or RLIMIT_NICE >= 20 - nice (so nice -20 needs 40).
//  * iso: the policy-4 probe must have succeeded.
//  * deadline: CAP_SYS_NICE; 1024 ns <= runtime <= deadline <= period for server and client;
//    sched_rt_runtime_us 0 leaves no bandwidth; admission control: server runtime/period +
//    clients x client runtime/period + dl_reserved_cpus must not exceed
//    (sched_rt_runtime_us / sched_rt_period_us) x ncpus (no limit when sched_rt_runtime_us < 0).
//  * rt-throttle: cgroup_v1_cpu_rt, and PCT within the system's RT share
//    (sched_rt_runtime_us / sched_rt_period_us), besides the RT rules above.
// Privilege is CAP_SYS_NICE, as the kernel checks it: euid 0 alone does not count (root in a
// container without CAP_SYS_NICE is refused too); the message then says so.
std::string check_policy(const PolicySpec& p, const PolicyTargets& t, int clients,
                         const SchedFacts& f);

// ---- building blocks of collect_sched_facts (pure; exposed for tests) ----------------------

// CAP_SYS_NICE (bit 23) from the "CapEff:" line of /proc/self/status text; nullopt if the line
// is missing or malformed.
std::optional<bool> parse_cap_sys_nice(std::string_view proc_self_status);

// The directory of this process's cgroup-v1 cpu group, from /proc/self/cgroup text (the line
// whose controllers include "cpu") and /proc/self/mountinfo text (the "cgroup" mount whose
// super options include "cpu" and whose root contains the group), e.g. "/sys/fs/cgroup/cpu" for
// "1:cpu:/" or "/sys/fs/cgroup/cpu,cpuacct/user.slice" for "4:cpu,cpuacct:/user.slice".
// nullopt without a cgroup-v1 cpu hierarchy (cgroup v2 only) or when the group is not visible.
std::optional<std::string> cgroup_v1_cpu_dir(std::string_view proc_self_cgroup,
                                             std::string_view mountinfo);

// The fair servers' default reservation for a kernel release ("6.18.44-fc"): 0.05 x ncpus from
// 6.12 on, else 0.
double fair_server_reserved_cpus(std::string_view kernel_release, int ncpus);

}  // namespace xrunlab
