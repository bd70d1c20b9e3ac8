// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/preflight.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

PolicySpec spec(const std::string& text) {
  std::string why;
  const auto p = parse_policy(text, &why);
  EXPECT_TRUE(p.has_value()) << text << ": " << why;
  return p.value_or(PolicySpec{});
}

// An ordinary user in group audio with the usual limits.d entries, on a 2-CPU machine with
// default RT bandwidth and no RT group scheduling.
SchedFacts audio_user() {
  SchedFacts f;
  f.euid = 1000;
  f.cap_sys_nice = false;
  f.rlimit_rtprio = 95;
  f.rlimit_nice = 40;
  f.ncpus = 2;
  return f;
}

SchedFacts root() {
  SchedFacts f = audio_user();
  f.euid = 0;
  f.cap_sys_nice = true;
  f.rlimit_rtprio = 0;
  f.rlimit_nice = 0;
  return f;
}

// check_policy for `text` at 256 frames / 48 kHz, 100 us of DSP per client.
std::string check(const std::string& text, const SchedFacts& f, int clients = 4) {
  const PolicySpec p = spec(text);
  return check_policy(p, targets_for(p, 256, 48000, 100'000), clients, f);
}

void expect_one_line(const std::string& s) {
  EXPECT_FALSE(s.empty());
  EXPECT_EQ(s.find('\n'), std::string::npos) << s;
}

// ---- realtime classes ----------------------------------------------------------------------

TEST(CheckPolicyRt, AllowedByRtprioCapOrUnlimited) {
  SchedFacts f = audio_user();
  EXPECT_EQ(check("fifo", f), "");
  EXPECT_EQ(check("rr:95", f), "");
  f.rlimit_rtprio = 70;  // exactly the server priority
  EXPECT_EQ(check("fifo", f), "");
  f.rlimit_rtprio = std::nullopt;  // unlimited
  EXPECT_EQ(check("fifo:95", f), "");
  EXPECT_EQ(check("fifo:95", root()), "");
}

TEST(CheckPolicyRt, TooLowRtprioSaysWhatToChange) {
  SchedFacts f = audio_user();
  f.rlimit_rtprio = 0;
  EXPECT_EQ(check("fifo", f),
            "SCHED_FIFO 70 needs RLIMIT_RTPRIO >= 70 (it is 0): add '@audio - rtprio 95' to "
            "/etc/security/limits.d/audio.conf and log in again, or run as root");
  f.rlimit_rtprio = 69;  // enough for the clients (65), not for the server
  const std::string e = check("rr", f);
  expect_one_line(e);
  EXPECT_HAS(e, "SCHED_RR 70 needs RLIMIT_RTPRIO >= 70 (it is 69)");
}

TEST(CheckPolicyRt, RootWithoutCapSysNiceIsNotPrivileged) {
  SchedFacts f = root();
  f.cap_sys_nice = false;
  const std::string e = check("fifo", f);
  expect_one_line(e);
  EXPECT_HAS(e, "RLIMIT_RTPRIO >= 70 (it is 0)");
  EXPECT_HAS(e, "runs as root but without CAP_SYS_NICE");
}

TEST(CheckPolicyRt, IsoEmuNeedsOnlyItsLowPriorities) {
  SchedFacts f = audio_user();
  f.rlimit_rtprio = 2;
  EXPECT_EQ(check("iso-emu", f), "");
  f.rlimit_rtprio = 1;
  const std::string e = check("iso-emu", f);
  expect_one_line(e);
  EXPECT_HAS(e, "iso-emu (SCHED_FIFO 2 while promoted) needs RLIMIT_RTPRIO >= 2 (it is 1)");
}

TEST(CheckPolicyRt, ZeroRtRuntimeIsImpossibleEvenForRoot) {
  SchedFacts f = root();
  f.sched_rt_runtime_us = 0;
  for (const char* p : {"fifo", "rr", "iso-emu", "rt-throttle:50"}) {
    const std::string e = check(p, f);
    expect_one_line(e);
    EXPECT_HAS(e, "/proc/sys/kernel/sched_rt_runtime_us is 0");
    EXPECT_HAS(e, "kernel.sched_rt_runtime_us=950000");
  }
  f.cgroup_v1_cpu_rt = true;
  EXPECT_HAS(check("rt-throttle:50", f), "sched_rt_runtime_us is 0");
}

TEST(CheckPolicyRt, CgroupWithoutRtRuntime) {
  SchedFacts f = root();
  f.cgroup_rt_runtime_us = 0;
  const std::string e = check("fifo", f);
  expect_one_line(e);
  EXPECT_HAS(e, "SCHED_FIFO 70 is refused in this process's cpu cgroup");
  EXPECT_HAS(e, "cpu.rt_runtime_us is 0");
  EXPECT_HAS(e, "write a runtime such as 950000");

  f.cgroup_rt_runtime_us = 950000;
  EXPECT_EQ(check("fifo", f), "");
  f.cgroup_rt_runtime_us = -1;
  EXPECT_EQ(check("fifo", f), "");
  // RT bandwidth control off (sched_rt_runtime_us -1): the kernel does not check the group.
  f.cgroup_rt_runtime_us = 0;
  f.sched_rt_runtime_us = -1;
  EXPECT_EQ(check("fifo", f), "");
  // rt-throttle runs its threads in a group of its own.
  f.sched_rt_runtime_us = 950000;
  f.cgroup_v1_cpu_rt = true;
  EXPECT_EQ(check("rt-throttle:50", f), "");
}

TEST(CheckPolicyRt, FairPoliciesNeedNoRtLimits) {
  SchedFacts f = audio_user();
  f.rlimit_rtprio = 0;
  f.sched_rt_runtime_us = 0;
  f.cgroup_rt_runtime_us = 0;
  EXPECT_EQ(check("other:-20", f), "");
  EXPECT_EQ(check("batch", f), "");
  EXPECT_EQ(check("idle", f), "");
}

// ---- nice ----------------------------------------------------------------------------------

TEST(CheckPolicyNice, RlimitNiceIsTwentyMinusNice) {
  SchedFacts f = audio_user();
  f.rlimit_nice = 40;
  EXPECT_EQ(check("other:-20", f), "");
  f.rlimit_nice = 39;
  EXPECT_EQ(check("other:-20", f),
            "SCHED_OTHER nice -20 needs RLIMIT_NICE >= 40 (it is 39, which allows nice -19 at the "
            "lowest): add '@audio - nice -20' to /etc/security/limits.d/audio.conf and log in "
            "again, or run as root");
  EXPECT_EQ(check("other:-19", f), "");
  f.rlimit_nice = 21;
  EXPECT_EQ(check("other:-1", f), "");
  f.rlimit_nice = 20;
  EXPECT_HAS(check("other:-1", f), "needs RLIMIT_NICE >= 21 (it is 20, which allows no negative");
  f.rlimit_nice = 0;
  EXPECT_HAS(check("batch:-5", f),
             "SCHED_BATCH nice -5 needs RLIMIT_NICE >= 25 (it is 0, which allows no negative "
             "nice value): add '@audio - nice -5'");
}

TEST(CheckPolicyNice, NonNegativeNiceCapOrUnlimitedNeedNothing) {
  SchedFacts f = audio_user();
  f.rlimit_nice = 0;
  EXPECT_EQ(check("other", f), "");
  EXPECT_EQ(check("other:19", f), "");
  EXPECT_EQ(check("batch:+3", f), "");
  f.rlimit_nice = std::nullopt;
  EXPECT_EQ(check("other:-20", f), "");
  EXPECT_EQ(check("other:-20", root()), "");
}

TEST(CheckPolicyNice, RootWithoutCapSaysSo) {
  SchedFacts f = root();
  f.cap_sys_nice = false;
  EXPECT_HAS(check("other:-20", f), "without CAP_SYS_NICE");
}

// ---- iso -----------------------------------------------------------------------------------

TEST(CheckPolicyIso, NoSchedIsoPointsToIsoEmu) {
  SchedFacts f = root();
  f.iso_supported = false;
  EXPECT_EQ(check("iso", f),
            "this kernel has no SCHED_ISO (policy 4 is rejected with EINVAL; it exists only in "
            "-ck/BFS/MuQSS kernels); use --policy iso-emu[:ISO_CPU] for an emulation");
  f.iso_supported = true;
  EXPECT_EQ(check("iso", f), "");
  SchedFacts user = audio_user();  // on -ck kernels SCHED_ISO needs no privilege
  user.rlimit_rtprio = 0;
  user.iso_supported = true;
  EXPECT_EQ(check("iso:50", user), "");
}

// ---- deadline ------------------------------------------------------------------------------

TEST(CheckPolicyDeadline, NeedsCapSysNice) {
  SchedFacts f = audio_user();
  f.rlimit_rtprio = std::nullopt;
  const std::string e = check("deadline", f);
  expect_one_line(e);
  EXPECT_HAS(e, "SCHED_DEADLINE needs CAP_SYS_NICE");
  EXPECT_HAS(e, "run as root");
  EXPECT_EQ(check("deadline", root()), "");
}

TEST(CheckPolicyDeadline, AdmissionReportsTheNumbers) {
  SchedFacts f = root();  // 2 CPUs x 0.95 = 1.90 CPUs of deadline bandwidth
  // 0.5 per thread: server + 2 clients = 1.5, fits; server + 3 clients = 2.0, does not.
  EXPECT_EQ(check("deadline:500,1000", f, 2), "");
  const std::string e = check("deadline:500,1000", f, 3);
  EXPECT_EQ(e,
            "SCHED_DEADLINE admission control would refuse this: server 500/1000 us + 3 clients "
            "x 500/1000 us (runtime/period) = 2.000 CPUs, but only 1.900 are available (0.95 x 2 "
            "CPUs from sched_rt_runtime_us 950000 / sched_rt_period_us 1000000; other deadline "
            "tasks count too); use fewer clients, a longer period or a smaller runtime");
}

TEST(CheckPolicyDeadline, FairServerReservationCounts) {
  SchedFacts f = root();
  // 4 x 0.475 = 1.90: exactly the limit without fair servers, too much with them.
  EXPECT_EQ(check("deadline:475,1000", f, 3), "");
  f.dl_reserved_cpus = 0.1;
  const std::string e = check("deadline:475,1000", f, 3);
  expect_one_line(e);
  EXPECT_HAS(e, "= 1.900 CPUs, but only 1.800 are available");
  EXPECT_HAS(e, "less 0.100 held by the kernel's fair servers");
  EXPECT_EQ(check("deadline:425,1000", f, 3), "");
}

TEST(CheckPolicyDeadline, NoLimitOrNoBandwidth) {
  SchedFacts f = root();
  f.sched_rt_runtime_us = -1;
  EXPECT_EQ(check("deadline:900,1000", f, 100), "");
  f.sched_rt_runtime_us = 0;
  const std::string e = check("deadline", f);
  expect_one_line(e);
  EXPECT_HAS(e, "sched_rt_runtime_us is 0");
  EXPECT_HAS(e, "950000");
}

TEST(CheckPolicyDeadline, DefaultsFitForTypicalRuns) {
  // 256 frames: client 250 us, server 533 us per 5333 us -> 0.1 + 8 x 0.047 = 0.475 CPUs.
  EXPECT_EQ(check("deadline", root(), 8), "");
  EXPECT_EQ(check("deadline:reclaim", root(), 8), "");
}

TEST(CheckPolicyDeadline, ImpossibleParameters) {
  const SchedFacts f = root();
  PolicySpec p = spec("deadline");
  PolicyTargets t = targets_for(p, 256, 48000, 100'000);
  t.client.dl_runtime_ns = t.client.dl_period_ns + 1;
  EXPECT_HAS(check_policy(p, t, 1, f),
             "SCHED_DEADLINE client runtime 5333.334 us is more than "
             "its period 5333.333 us: impossible");
  t = targets_for(p, 256, 48000, 100'000);
  t.server.dl_runtime_ns = 1000;
  EXPECT_HAS(check_policy(p, t, 1, f), "server runtime 1 us is below the kernel's minimum");
  t = targets_for(p, 256, 48000, 100'000);
  t.server.dl_deadline_ns = t.server.dl_period_ns + 1;
  EXPECT_HAS(check_policy(p, t, 1, f), "server needs runtime <= deadline <= period");
  t = targets_for(p, 256, 0, 100'000);  // no period at all
  EXPECT_HAS(check_policy(p, t, 1, f), "period is 0");
}

TEST(CheckPolicyDeadline, NegativeClientCountCountsAsNone) {
  EXPECT_EQ(check("deadline:900,1000", root(), -3), "");
}

// ---- rt-throttle ---------------------------------------------------------------------------

TEST(CheckPolicyRtThrottle, NeedsCgroupV1RtGroups) {
  SchedFacts f = root();
  f.cgroup_v1_cpu_rt = false;
  const std::string e = check("rt-throttle:50", f);
  expect_one_line(e);
  EXPECT_HAS(e, "/sys/fs/cgroup/cpu/cpu.rt_runtime_us does not exist or is not writable");
  EXPECT_HAS(e, "CONFIG_RT_GROUP_SCHED");
  EXPECT_HAS(e, "cgroup v2 has no RT bandwidth per group");
  f.cgroup_v1_cpu_rt = true;
  EXPECT_EQ(check("rt-throttle:50", f), "");
}

TEST(CheckPolicyRtThrottle, PercentWithinTheSystemShare) {
  SchedFacts f = root();
  f.cgroup_v1_cpu_rt = true;
  EXPECT_EQ(check("rt-throttle:95", f), "");
  const std::string e = check("rt-throttle:96", f);
  expect_one_line(e);
  EXPECT_HAS(e,
             "rt-throttle PCT 96 is more RT bandwidth than the whole system has (95% = "
             "sched_rt_runtime_us 950000 / sched_rt_period_us 1000000); use PCT <= 95");
  f.sched_rt_runtime_us = -1;
  EXPECT_EQ(check("rt-throttle:100", f), "");
}

TEST(CheckPolicyRtThrottle, AlsoNeedsRtPermission) {
  SchedFacts f = audio_user();
  f.cgroup_v1_cpu_rt = true;
  f.rlimit_rtprio = 10;
  EXPECT_HAS(check("rt-throttle:50", f), "SCHED_FIFO 70 needs RLIMIT_RTPRIO >= 70 (it is 10)");
}

// ---- building blocks -----------------------------------------------------------------------

TEST(ParseCapSysNice, Bit23OfCapEff) {
  EXPECT_EQ(parse_cap_sys_nice("Name:\tx\nCapInh:\t0000000000000000\nCapPrm:\t000001fffeffffff\n"
                               "CapEff:\t000001fffeffffff\nCapBnd:\t000001fffeffffff\n"),
            true);
  EXPECT_EQ(parse_cap_sys_nice("CapEff:\t0000000000800000\n"), true);
  EXPECT_EQ(parse_cap_sys_nice("CapEff:\t00000000007fffff\n"), false);
  EXPECT_EQ(parse_cap_sys_nice("CapPrm:\t0000000000800000\nCapEff:\t0000000000000000\n"), false);
  EXPECT_EQ(parse_cap_sys_nice("Name:\tx\n"), std::nullopt);
  EXPECT_EQ(parse_cap_sys_nice("CapEff:\tzz\n"), std::nullopt);
}

constexpr char kMountinfoSplit[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

TEST(CgroupV1CpuDir, SeparateCpuHierarchy) {
  EXPECT_EQ(cgroup_v1_cpu_dir("3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n0::/\n", kMountinfoSplit),
            "/sys/fs/cgroup/cpu");
  EXPECT_EQ(cgroup_v1_cpu_dir("2:cpuacct:/x\n1:cpu:/audio/rt\n0::/\n", kMountinfoSplit),
            "/sys/fs/cgroup/cpu/audio/rt");
}

TEST(CgroupV1CpuDir, SystemdCpuCpuacct) {
  const char mountinfo[] =
      "25 24 0:22 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct\n";
  EXPECT_EQ(cgroup_v1_cpu_dir("4:cpu,cpuacct:/user.slice\n", mountinfo),
            "/sys/fs/cgroup/cpu,cpuacct/user.slice");
}

TEST(CgroupV1CpuDir, ContainerMountRoot) {
  const char mountinfo[] =
      "25 24 0:22 /docker/abc /sys/fs/cgroup/cpu ro,nosuid 9:1 - cgroup cgroup rw,cpu,cpuacct\n";
  EXPECT_EQ(cgroup_v1_cpu_dir("4:cpu,cpuacct:/docker/abc\n", mountinfo), "/sys/fs/cgroup/cpu");
  EXPECT_EQ(cgroup_v1_cpu_dir("4:cpu,cpuacct:/docker/abc/sub\n", mountinfo),
            "/sys/fs/cgroup/cpu/sub");
  EXPECT_EQ(cgroup_v1_cpu_dir("4:cpu,cpuacct:/docker/abcd\n", mountinfo), std::nullopt);
  EXPECT_EQ(cgroup_v1_cpu_dir("4:cpu,cpuacct:/other\n", mountinfo), std::nullopt);
}

TEST(CgroupV1CpuDir, EscapedMountPoint) {
  const char mountinfo[] = "25 24 0:22 / /mnt/my\\040cgroups/cpu rw - cgroup cgroup rw,cpu\n";
  EXPECT_EQ(cgroup_v1_cpu_dir("1:cpu:/g\n", mountinfo), "/mnt/my cgroups/cpu/g");
}

TEST(CgroupV1CpuDir, NoneOnCgroupV2OrWithoutCpuMount) {
  EXPECT_EQ(cgroup_v1_cpu_dir("0::/user.slice/session-1.scope\n",
                              "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"),
            std::nullopt);
  // The cpu controller is listed but its hierarchy is not mounted.
  EXPECT_EQ(cgroup_v1_cpu_dir(
                "1:cpu:/\n", "33 31 0:30 / /sys/fs/cgroup/cpuacct rw - cgroup cgroup rw,cpuacct\n"),
            std::nullopt);
  // "cpuset" and "cpuacct" are not "cpu".
  EXPECT_EQ(cgroup_v1_cpu_dir("3:cpuset:/\n2:cpuacct:/\n", kMountinfoSplit), std::nullopt);
  EXPECT_EQ(cgroup_v1_cpu_dir("", ""), std::nullopt);
}

TEST(FairServerReservedCpus, FromTheKernelRelease) {
  EXPECT_DOUBLE_EQ(fair_server_reserved_cpus("6.18.44-fc-v657", 2), 0.1);
  EXPECT_DOUBLE_EQ(fair_server_reserved_cpus("6.12.0", 4), 0.2);
  EXPECT_DOUBLE_EQ(fair_server_reserved_cpus("7.0.1", 1), 0.05);
  EXPECT_DOUBLE_EQ(fair_server_reserved_cpus("6.11.9", 2), 0);
  EXPECT_DOUBLE_EQ(fair_server_reserved_cpus("6.1.0-18-amd64", 2), 0);
  EXPECT_DOUBLE_EQ(fair_server_reserved_cpus("5.15.0-rt", 2), 0);
  EXPECT_DOUBLE_EQ(fair_server_reserved_cpus("garbage", 2), 0);
}

// ---- the real system -----------------------------------------------------------------------

TEST(ProbeSchedIso, MainlineKernelHasNone) {
  if (access("/proc/sys/kernel/iso_cpu", F_OK) == 0) {
    GTEST_SKIP() << "this kernel has /proc/sys/kernel/iso_cpu (a -ck kernel)";
  }
  const int before = sched_getscheduler(0);
  EXPECT_FALSE(probe_sched_iso());
  EXPECT_EQ(sched_getscheduler(0), before);  // the probe ran on its own thread
}

// A fixture root: the /proc and /sys files collect_sched_facts reads, written by the test.
// An RT-group-scheduling machine with 2 CPUs: this process in the cgroup-v1 cpu group /audio,
// which has no RT runtime, and the fair servers holding 0.25 + 0.5 CPUs.
void write_rt_group_machine(const TempDir& root) {
  root.write("proc/self/status", "Name:\txrunlab\nCapEff:\t0000000000800000\n");
  root.write("proc/sys/kernel/sched_rt_runtime_us", "900000\n");
  root.write("proc/sys/kernel/sched_rt_period_us", "1000000\n");
  root.write("proc/sys/kernel/osrelease", "5.10.0-test\n");
  root.write("proc/self/cgroup", "5:cpuset:/\n4:cpu,cpuacct:/audio\n0::/\n");
  root.write("proc/self/mountinfo",
             "24 18 0:20 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n"
             "30 24 0:26 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu,cpuacct\n");
  root.write("sys/fs/cgroup/cpu/cpu.rt_runtime_us", "950000\n");
  root.write("sys/fs/cgroup/cpu/audio/cpu.rt_runtime_us", "0\n");
  root.write("sys/devices/system/cpu/online", "0-1\n");
  root.write("sys/kernel/debug/sched/fair_server/cpu0/runtime", "250\n");
  root.write("sys/kernel/debug/sched/fair_server/cpu0/period", "1000\n");
  root.write("sys/kernel/debug/sched/fair_server/cpu1/runtime", "500\n");
  root.write("sys/kernel/debug/sched/fair_server/cpu1/period", "1000\n");
}

TEST(CollectSchedFacts, ReadsEveryFileFromTheRoot) {
  TempDir root("preflight");
  write_rt_group_machine(root);
  const SchedFacts f = collect_sched_facts(root.str());
  EXPECT_TRUE(f.cap_sys_nice);  // CapEff bit 23
  EXPECT_EQ(f.sched_rt_runtime_us, 900000);
  EXPECT_EQ(f.sched_rt_period_us, 1000000);
  EXPECT_EQ(f.cgroup_rt_runtime_us, std::optional<int64_t>(0));
  EXPECT_EQ(f.ncpus, 2);
  EXPECT_TRUE(f.cgroup_v1_cpu_rt);
  EXPECT_EQ(f.dl_reserved_cpus, 0.75);  // the debugfs values win over the kernel release
  // And the decision over them: RT is refused in the group without RT runtime.
  EXPECT_HAS(check("fifo", f), "cpu.rt_runtime_us is 0");
}

TEST(CollectSchedFacts, WithoutDebugfsTheKernelReleaseGivesTheFairServers) {
  TempDir root("preflight");
  write_rt_group_machine(root);
  std::filesystem::remove_all(root.file("sys/kernel/debug"));
  root.write("proc/sys/kernel/osrelease", "6.12.9-test\n");
  root.write("sys/devices/system/cpu/online", "0-3,6\n");
  const SchedFacts f = collect_sched_facts(root.str());
  EXPECT_EQ(f.ncpus, 5);
  EXPECT_EQ(f.dl_reserved_cpus, fair_server_reserved_cpus("6.12.9-test", 5));
  EXPECT_GT(f.dl_reserved_cpus, 0.0);
  root.write("proc/sys/kernel/osrelease", "6.11.0\n");
  EXPECT_EQ(collect_sched_facts(root.str()).dl_reserved_cpus, 0.0);
}

TEST(CollectSchedFacts, MissingFilesKeepTheDefaults) {
  TempDir root("preflight");
  root.write("proc/self/status", "Name:\txrunlab\nCapEff:\t0000000000000000\n");
  root.write("sys/devices/system/cpu/online", "0\n");
  root.write("proc/sys/kernel/osrelease", "5.10.0\n");
  const SchedFacts f = collect_sched_facts(root.str());
  const SchedFacts defaults;
  EXPECT_FALSE(f.cap_sys_nice);
  EXPECT_EQ(f.sched_rt_runtime_us, defaults.sched_rt_runtime_us);
  EXPECT_EQ(f.sched_rt_period_us, defaults.sched_rt_period_us);
  EXPECT_EQ(f.cgroup_rt_runtime_us, std::nullopt);
  EXPECT_FALSE(f.cgroup_v1_cpu_rt);
  EXPECT_EQ(f.ncpus, 1);
  EXPECT_EQ(f.dl_reserved_cpus, 0.0);
}

TEST(CollectSchedFacts, NoCapEffLineMeansRootOnly) {
  TempDir root("preflight");
  root.write("proc/self/status", "Name:\txrunlab\n");
  EXPECT_EQ(collect_sched_facts(root.str()).cap_sys_nice, ::geteuid() == 0);
}

TEST(CollectSchedFacts, UnparsableValuesKeepTheDefaults) {
  TempDir root("preflight");
  write_rt_group_machine(root);
  root.write("proc/sys/kernel/sched_rt_runtime_us", "lots\n");
  root.write("sys/fs/cgroup/cpu/audio/cpu.rt_runtime_us", "\n");
  root.write("sys/kernel/debug/sched/fair_server/cpu1/period", "0\n");  // no division by 0
  const SchedFacts f = collect_sched_facts(root.str());
  EXPECT_EQ(f.sched_rt_runtime_us, SchedFacts{}.sched_rt_runtime_us);
  EXPECT_EQ(f.cgroup_rt_runtime_us, std::nullopt);
  EXPECT_EQ(f.dl_reserved_cpus, 0.0);  // the 5.10 release: no fair servers
}

// The process's own facts come from the process, whatever the root: the limits set here.
TEST(CollectSchedFacts, TheProcessLimitsAsSet) {
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_RTPRIO, &saved), 0);
  rlimit lowered = saved;
  lowered.rlim_cur = saved.rlim_max == RLIM_INFINITY ? 7 : std::min<rlim_t>(saved.rlim_max, 7);
  ASSERT_EQ(setrlimit(RLIMIT_RTPRIO, &lowered), 0);
  TempDir root("preflight");
  const SchedFacts f = collect_sched_facts(root.str());
  ASSERT_EQ(setrlimit(RLIMIT_RTPRIO, &saved), 0);
  EXPECT_EQ(f.rlimit_rtprio, std::optional<uint64_t>(lowered.rlim_cur));
  EXPECT_EQ(f.euid, geteuid());
}

// ---- the realtime permission, tried for real -----------------------------------------------

TEST(CheckRealtimePermission, AnInvalidPriorityIsRefusedWithOneLineSayingWhatToDo) {
  rlimit rl{};
  ASSERT_EQ(getrlimit(RLIMIT_RTPRIO, &rl), 0);
  const std::string limit =
      rl.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(rl.rlim_cur);
  for (int priority : {0, 100}) {
    EXPECT_EQ(check_realtime_permission(priority),
              "SCHED_FIFO priority " + std::to_string(priority) +
                  " is not permitted (Invalid argument; RLIMIT_RTPRIO is " + limit +
                  "): add your user to the 'audio' group with '@audio - rtprio 95' in "
                  "/etc/security/limits.d/, log in again, or run with --priority 0 (no realtime)");
  }
}

TEST(CheckRealtimePermission, PermittedExactlyWhenTheCapabilityOrTheLimitAllowsIt) {
  const SchedFacts f = collect_sched_facts();
  for (int priority : {1, 70, 99}) {
    const bool allowed =
        f.cap_sys_nice || !f.rlimit_rtprio || *f.rlimit_rtprio >= static_cast<uint64_t>(priority);
    const std::string got = check_realtime_permission(priority);
    if (allowed) {
      EXPECT_EQ(got, "") << priority;
    } else {
      EXPECT_HAS(got, "is not permitted (Operation not permitted; RLIMIT_RTPRIO is ");
      EXPECT_EQ(got.find('\n'), std::string::npos);
    }
  }
  EXPECT_EQ(sched_getscheduler(0), SCHED_OTHER) << "the probe ran on a thread of its own";
}

TEST(CollectSchedFacts, RealFactsGiveOneLineOrNothing) {
  const SchedFacts f = collect_sched_facts();
  EXPECT_EQ(check("idle", f), "");
  EXPECT_EQ(check("other:19", f), "");
  const std::string iso = check("iso", f);
  if (!f.iso_supported) {
    EXPECT_HAS(iso, "this kernel has no SCHED_ISO");
  }
  for (const char* p : {"fifo", "other:-20", "deadline", "iso-emu", "rt-throttle:50"}) {
    EXPECT_EQ(check(p, f).find('\n'), std::string::npos) << p;
  }
}

}  // namespace
}  // namespace xrunlab
