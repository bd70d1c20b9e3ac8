// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/doctor/checks.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "engine/base/text.hpp"
#include "engine/sched/policy.hpp"
#include "engine/sched/preflight.hpp"
#include "engine/system/host_context.hpp"
#include "engine/wire/sched_target.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

// The RT priority jackd and the audio group need at least (the rule, as rtcqs checks).
constexpr uint64_t kMinRtprio = 75;
constexpr int64_t kMaxSwappiness = 10;
// rtkit-daemon's own defaults (rtkit-daemon.c) when its command line does not set them.
constexpr int kRtkitDefaultMaxPriority = 20;
constexpr int kRtkitDefaultRttimeUsec = 200000;

using S = CheckStatus;

CheckResult make(std::string id, std::string title, S status, std::string found, std::string why,
                 std::string fix = "") {
  return {std::move(id),    std::move(title), status,
          std::move(found), std::move(why),   std::move(fix)};
}

std::string limit_text(const std::optional<ResourceLimit>& l, const char* none = "unknown") {
  if (!l) return none;
  return l->unlimited ? "unlimited" : std::to_string(l->value);
}

bool in_audio_group(const SystemSnapshot& s) {
  return s.audio_gid && std::binary_search(s.groups.begin(), s.groups.end(), *s.audio_gid);
}

bool cmdline_has(const SystemSnapshot& s, std::string_view word) {
  for (std::string_view w : split(s.cmdline, ' ')) {
    if (w == "--") break;  // what follows is init's, not the kernel's
    if (w == word) return true;
  }
  return false;
}

// The value of "key=..." on the kernel command line; "" when absent.
std::string cmdline_value(const SystemSnapshot& s, std::string_view key) {
  std::string out;
  for (std::string_view w : split(s.cmdline, ' ')) {
    if (w == "--") break;
    if (starts_with(w, key) && w.size() > key.size() && w[key.size()] == '=') {
      out = std::string(w.substr(key.size() + 1));
    }
  }
  return out;
}

std::string kconfig(const SystemSnapshot& s, const std::string& key) {
  if (!s.kconfig) return "";
  const auto it = s.kconfig->find(key);
  return it == s.kconfig->end() ? "" : it->second;
}

constexpr char kGrubFix[] =
    "add {} to GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, run update-grub and reboot";

// ---- the user ------------------------------------------------------------------------------

CheckResult audio_group(const SystemSnapshot& s) {
  const char* why =
      "Debian gives realtime priority and unlimited locked memory to the audio group, and its "
      "members may open the sound card's device nodes.";
  const std::string id = "audio-group", title = "Audio group membership";
  if (!s.audio_gid) {
    return make(id, title, S::kFail, "no group 'audio' in /etc/group", why,
                "groupadd -r audio && usermod -aG audio " + s.user + ", then log in again");
  }
  if (in_audio_group(s)) {
    return make(id, title, S::kOk, fmt::format("{} is in audio (gid {})", s.user, *s.audio_gid),
                why);
  }
  const bool listed =
      std::find(s.audio_members.begin(), s.audio_members.end(), s.user) != s.audio_members.end();
  if (listed) {
    return make(id, title, S::kWarn,
                s.user + " is listed in audio in /etc/group but this session is not in it", why,
                "log out and in again (or reboot) so the session gets the audio group");
  }
  if (s.euid == 0) {
    return make(id, title, S::kOk,
                "root (not in audio; root needs no group: CAP_SYS_NICE, CAP_IPC_LOCK)", why);
  }
  return make(id, title, S::kFail, s.user + " is not in the audio group", why,
              "usermod -aG audio " + s.user + ", then log in again");
}

std::string limits_fix(const SystemSnapshot& s, const std::string& line) {
  const bool debian_disabled =
      std::any_of(s.audio_limits.disabled_files.begin(), s.audio_limits.disabled_files.end(),
                  [](const std::string& f) { return contains(f, "audio.conf"); });
  if (debian_disabled) {
    return "dpkg-reconfigure -p high jackd2 (answer Yes: it enables "
           "/etc/security/limits.d/audio.conf), then log in again";
  }
  return "add '" + line + "' to /etc/security/limits.d/audio.conf, then log in again";
}

CheckResult audio_limits(const SystemSnapshot& s) {
  const char* why =
      "jackd needs a high SCHED_FIFO priority and to lock its memory; PAM gives both to the "
      "audio group at login from /etc/security/limits.d.";
  const std::string id = "audio-limits", title = "Audio group limits (limits.d)";
  const AudioGroupLimits& a = s.audio_limits;
  std::string found = fmt::format("@audio rtprio {}, memlock {}", limit_text(a.rtprio, "not set"),
                                  limit_text(a.memlock, "not set"));
  if (a.rtprio) found += " (" + a.rtprio_file + ")";
  if (!a.disabled_files.empty()) {
    found += fmt::format("; not read: {}", fmt::join(a.disabled_files, ", "));
  }
  const bool rtprio_ok = a.rtprio && (a.rtprio->unlimited || a.rtprio->value >= kMinRtprio);
  const bool memlock_ok = a.memlock && a.memlock->unlimited;
  if (rtprio_ok && memlock_ok) return make(id, title, S::kOk, found, why);
  const std::string fix = limits_fix(s, "@audio - rtprio 95' and '@audio - memlock unlimited");
  if (!a.rtprio && !a.memlock) return make(id, title, S::kFail, found, why, fix);
  return make(id, title, S::kWarn, found, why, fix);
}

CheckResult rtprio(const SystemSnapshot& s) {
  const char* why =
      "jackd and its clients run SCHED_FIFO; without a realtime priority allowed they run as "
      "ordinary tasks and every busy moment of the machine becomes a dropout.";
  const std::string id = "rtprio", title = "Realtime priority limit";
  if (!s.rtprio) return make(id, title, S::kSkipped, "/proc/self/limits unreadable", why);
  const std::string v = "RLIMIT_RTPRIO " + limit_text(s.rtprio);
  if (s.cap_sys_nice) return make(id, title, S::kOk, v + "; CAP_SYS_NICE: not limited", why);
  if (s.rtprio->unlimited || s.rtprio->value >= kMinRtprio) return make(id, title, S::kOk, v, why);
  const std::string fix = limits_fix(s, "@audio - rtprio 95") +
                          (in_audio_group(s) ? "" : " (as a member of the audio group)");
  return make(id, title, s.rtprio->value == 0 ? S::kFail : S::kWarn,
              fmt::format("{} (needs >= {})", v, kMinRtprio), why, fix);
}

CheckResult memlock(const SystemSnapshot& s) {
  const char* why =
      "jackd and every client lock their memory (the graph segment is ~100 MB), so a page "
      "fault never stalls a process cycle.";
  const std::string id = "memlock", title = "Locked memory limit";
  if (!s.memlock) return make(id, title, S::kSkipped, "/proc/self/limits unreadable", why);
  const std::string v = s.memlock->unlimited
                            ? std::string("RLIMIT_MEMLOCK unlimited")
                            : fmt::format("RLIMIT_MEMLOCK {} KiB", s.memlock->value / 1024);
  if (s.cap_ipc_lock) return make(id, title, S::kOk, v + "; CAP_IPC_LOCK: not limited", why);
  if (s.memlock->unlimited) return make(id, title, S::kOk, v, why);
  return make(id, title, S::kWarn, v + " (needs unlimited)", why,
              limits_fix(s, "@audio - memlock unlimited"));
}

// Which of xrunlab's policies the preflight (engine/sched/preflight) would let this user run.
CheckResult policies(const SystemSnapshot& s, const DoctorTargets& t) {
  const char* why =
      "xrunlab run refuses a --policy this user may not use before anything starts; this is "
      "the same preflight.";
  const std::string id = "policies", title = "xrunlab policies permitted";
  SchedFacts f;
  f.euid = s.euid;
  f.cap_sys_nice = s.cap_sys_nice;
  if (s.rtprio && !s.rtprio->unlimited) f.rlimit_rtprio = s.rtprio->value;
  if (s.nice && !s.nice->unlimited) f.rlimit_nice = s.nice->value;
  if (!s.rtprio) f.rlimit_rtprio = 0;
  f.sched_rt_runtime_us = s.rt_runtime_us.value_or(950000);
  f.sched_rt_period_us = s.rt_period_us.value_or(1000000);
  f.cgroup_rt_runtime_us = s.cgroup_rt_runtime_us;
  f.iso_supported = s.iso_supported;
  f.ncpus = s.ncpus;
  f.cgroup_v1_cpu_rt = s.cgroup_v1_cpu_rt_writable;
  f.dl_reserved_cpus = fair_server_reserved_cpus(s.release, s.ncpus);
  const uint64_t period_ns = t.rate > 0 ? uint64_t{t.period} * 1000000000ULL / t.rate : 0;
  const auto dsp_ns = static_cast<uint64_t>(static_cast<double>(period_ns) * t.dsp_load_pct /
                                            100.0 / std::max(1, t.clients));
  // The default policy (fifo) is what every run needs; rr and iso-emu need the same RT
  // permission. The others need more (CAP_SYS_NICE, RLIMIT_NICE 40, a cgroup-v1 cpu group):
  // listed, but not a set-up fault.
  std::vector<std::string> ok, refused;
  std::string first_refusal;
  bool fifo_refused = false, rt_refused = false;
  const std::string fifo = fmt::format("fifo:{}", t.jackd_priority);
  for (const std::string& text :
       {fifo, std::string("rr"), std::string("other:-20"), std::string("deadline"),
        std::string("iso-emu"), std::string("rt-throttle:50"), std::string("iso")}) {
    std::string why_not;
    const auto p = parse_policy(text, &why_not);
    if (!p) continue;
    const std::string no =
        check_policy(*p, targets_for(*p, t.period, t.rate, dsp_ns), t.clients, f);
    if (no.empty()) {
      ok.push_back(text);
    } else if (p->kind == PolicyKind::kIso) {
      continue;  // the kernel's SCHED_ISO exists on -ck kernels only: not a set-up problem
    } else {
      refused.push_back(text);
      if (first_refusal.empty()) first_refusal = no;
      if (text == fifo) fifo_refused = true;
      if (p->kind == PolicyKind::kRr || p->kind == PolicyKind::kIsoEmu) rt_refused = true;
    }
  }
  // The live trial is the kernel's own answer; it outranks the facts.
  if (s.rt_trial && !s.rt_trial->empty() && !fifo_refused) {
    fifo_refused = true;
    ok.erase(std::remove(ok.begin(), ok.end(), fifo), ok.end());
    refused.insert(refused.begin(), fifo);
    first_refusal = *s.rt_trial;
  }
  std::string found =
      "permitted: " + (ok.empty() ? std::string("none") : fmt::format("{}", fmt::join(ok, ", ")));
  if (!refused.empty()) found += fmt::format("; refused: {}", fmt::join(refused, ", "));
  if (!s.rt_trial) found += " (from the limits; no SCHED_FIFO trial)";
  const S status = fifo_refused ? S::kFail : rt_refused ? S::kWarn : S::kOk;
  return make(id, title, status, found, why, first_refusal);
}

// ---- the CPU -------------------------------------------------------------------------------

CheckResult cpu_governor(const SystemSnapshot& s) {
  const char* why =
      "A governor other than performance lowers the clock when the machine looks idle, and a "
      "short audio burst then runs slow and late while the CPU ramps up.";
  const std::string id = "cpu-governor", title = "CPU frequency governor";
  if (s.governors.empty()) {
    return make(id, title, S::kSkipped,
                "no cpufreq (a VM, or the frequency is not the kernel's to set)", why);
  }
  std::map<std::string, std::vector<int>> by_gov;
  for (const auto& [cpu, gov] : s.governors) by_gov[gov].push_back(cpu);
  std::vector<std::string> parts;
  parts.reserve(by_gov.size());
  for (const auto& [gov, cpus] : by_gov) {
    parts.push_back(fmt::format("{} on {} CPU{}", gov, cpus.size(), cpus.size() == 1 ? "" : "s"));
  }
  const std::string found = fmt::format("{}", fmt::join(parts, ", "));
  if (by_gov.size() == 1 && by_gov.count("performance") == 1) {
    return make(id, title, S::kOk, found, why);
  }
  return make(id, title, S::kWarn, found, why,
              "cpupower frequency-set -g performance (Debian package linux-cpupower), or write "
              "performance to /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor");
}

CheckResult smt(const SystemSnapshot& s) {
  const char* why =
      "Two hardware threads share one core: a busy sibling slows the audio thread "
      "unpredictably.";
  const std::string id = "smt", title = "Simultaneous multithreading (SMT)";
  if (!s.smt_control) return make(id, title, S::kSkipped, "no smt/control in sysfs", why);
  const std::string& c = *s.smt_control;
  if (c == "notsupported" || c == "notimplemented") {
    return make(id, title, S::kSkipped, "SMT " + c + " on this CPU", why);
  }
  if (c == "off" || c == "forceoff") return make(id, title, S::kOk, "SMT " + c, why);
  return make(id, title, S::kWarn, "SMT " + c, why,
              "echo off > /sys/devices/system/cpu/smt/control (until reboot), or " +
                  fmt::format(kGrubFix, "nosmt"));
}

CheckResult mitigations(const SystemSnapshot& s) {
  const char* why =
      "Some CPU vulnerability mitigations (retbleed, spectre_v2 IBRS, mds buffer clearing) add "
      "to every kernel entry and context switch, and so to every period's wake-ups.";
  const std::string id = "mitigations", title = "CPU vulnerability mitigations";
  if (s.vulnerabilities.empty()) {
    return make(id, title, S::kSkipped, "no cpu/vulnerabilities in sysfs", why);
  }
  std::vector<std::string> mitigated;
  for (const auto& [name, line] : s.vulnerabilities) {
    if (starts_with(line, "Mitigation")) mitigated.push_back(name);
  }
  const std::string off = cmdline_value(s, "mitigations");
  if (mitigated.empty()) {
    return make(id, title, S::kOk,
                off == "off" ? "mitigations=off" : "no mitigation active (none needed)", why);
  }
  return make(id, title, S::kWarn,
              fmt::format("{} of {} active: {}", mitigated.size(), s.vulnerabilities.size(),
                          fmt::join(mitigated, ", ")),
              why,
              fmt::format(kGrubFix, "mitigations=off") +
                  " (a security trade-off: only on a machine kept for audio)");
}

// ---- the kernel ----------------------------------------------------------------------------

// The effective preemption of a PREEMPT_DYNAMIC kernel and where that was read.
std::pair<std::string, std::string> dynamic_preempt_mode(const SystemSnapshot& s) {
  if (s.debugfs_preempt) {
    // "none voluntary (full) lazy": the chosen one is in parentheses.
    const size_t open = s.debugfs_preempt->find('('), close = s.debugfs_preempt->find(')');
    if (open != std::string::npos && close > open) {
      return {s.debugfs_preempt->substr(open + 1, close - open - 1), "debugfs sched/preempt"};
    }
  }
  const std::string arg = cmdline_value(s, "preempt");
  if (!arg.empty()) return {arg, "preempt= on the command line"};
  if (kconfig(s, "CONFIG_PREEMPT_NONE") == "y") return {"none", "the kernel config's default"};
  if (kconfig(s, "CONFIG_PREEMPT_VOLUNTARY") == "y") {
    return {"voluntary", "the kernel config's default"};
  }
  if (kconfig(s, "CONFIG_PREEMPT_LAZY") == "y") return {"lazy", "the kernel config's default"};
  if (kconfig(s, "CONFIG_PREEMPT") == "y") return {"full", "the kernel config's default"};
  return {"", ""};
}

std::string preempt_model(const SystemSnapshot& s) {
  if (s.sys_kernel_realtime || kconfig(s, "CONFIG_PREEMPT_RT") == "y") return "PREEMPT_RT";
  return detect_preempt_model(s.version);
}

CheckResult preempt(const SystemSnapshot& s) {
  const char* why =
      "The preemption model decides how long a running kernel path can keep the audio thread "
      "from the CPU after its interrupt: PREEMPT_RT, or full preemption, keeps that short.";
  const std::string id = "preempt", title = "Kernel preemption model";
  const std::string model = preempt_model(s);
  const std::string rt_fix =
      "install a PREEMPT_RT kernel (Debian: apt-get install linux-image-rt-amd64) and boot it";
  if (model == "PREEMPT_RT") return make(id, title, S::kOk, "PREEMPT_RT", why);
  if (model == "PREEMPT") return make(id, title, S::kOk, "PREEMPT (full preemption)", why);
  if (model == "PREEMPT_DYNAMIC") {
    const auto [mode, source] = dynamic_preempt_mode(s);
    if (mode.empty()) {
      return make(id, title, s.euid == 0 ? S::kWarn : S::kNeedsRoot,
                  "PREEMPT_DYNAMIC, mode not known (debugfs sched/preempt needs root)", why,
                  fmt::format(kGrubFix, "preempt=full"));
    }
    const std::string found = fmt::format("PREEMPT_DYNAMIC, preempt={} ({})", mode, source);
    // Under lazy preemption realtime tasks still preempt at once (only fair tasks wait).
    if (mode == "full" || mode == "lazy") return make(id, title, S::kOk, found, why);
    return make(id, title, S::kWarn, found, why, fmt::format(kGrubFix, "preempt=full"));
  }
  if (s.version.empty()) {
    return make(id, title, S::kSkipped, "/proc/sys/kernel/version unreadable", why);
  }
  return make(id, title, S::kWarn, model == "none" ? "no preemption (server kernel)" : model, why,
              rt_fix);
}

CheckResult threadirqs(const SystemSnapshot& s) {
  const char* why =
      "With threaded interrupts each IRQ handler is a thread whose priority can be set, so the "
      "sound card's interrupt can run above jackd and other devices' below it.";
  const std::string id = "threadirqs", title = "Threaded interrupts";
  if (preempt_model(s) == "PREEMPT_RT") {
    return make(id, title, S::kOk, "forced by PREEMPT_RT", why);
  }
  if (cmdline_has(s, "threadirqs")) return make(id, title, S::kOk, "threadirqs", why);
  if (kconfig(s, "CONFIG_IRQ_FORCED_THREADING") == "n" ||
      (s.kconfig && kconfig(s, "CONFIG_IRQ_FORCED_THREADING").empty())) {
    return make(id, title, S::kFail, "not possible: CONFIG_IRQ_FORCED_THREADING is not set", why,
                "install a kernel built with CONFIG_IRQ_FORCED_THREADING (Debian's are)");
  }
  return make(id, title, S::kWarn, "threadirqs is not on the kernel command line", why,
              fmt::format(kGrubFix, "threadirqs"));
}

CheckResult high_res_timers(const SystemSnapshot& s) {
  const char* why =
      "Without high-resolution timers a timer fires only on the next tick (4 ms at HZ=250), "
      "far coarser than a 1.3 ms audio period.";
  const std::string id = "high-res-timers", title = "High-resolution timers";
  const std::string v = kconfig(s, "CONFIG_HIGH_RES_TIMERS");
  if (s.kconfig) {
    if (v == "y")
      return make(id, title, S::kOk, "CONFIG_HIGH_RES_TIMERS=y (" + s.kconfig_source + ")", why);
    return make(id, title, S::kFail, "CONFIG_HIGH_RES_TIMERS is not set (" + s.kconfig_source + ")",
                why, "install a kernel built with CONFIG_HIGH_RES_TIMERS=y (Debian's are)");
  }
  if (s.hres_active) {
    return make(id, title, *s.hres_active ? S::kOk : S::kFail,
                fmt::format("hres_active {} (/proc/timer_list)", *s.hres_active ? 1 : 0), why,
                *s.hres_active ? "" : "remove highres=off from the kernel command line");
  }
  if (s.euid != 0) {
    return make(id, title, S::kNeedsRoot, "no readable kernel config; /proc/timer_list needs root",
                why);
  }
  return make(id, title, S::kSkipped, "no kernel config in /boot or /proc/config.gz", why);
}

CheckResult no_hz(const SystemSnapshot& s) {
  const char* why =
      "A tickless kernel (NO_HZ) stops the periodic tick on idle CPUs, which rtcqs checks for; "
      "a periodic tick interrupts every CPU HZ times a second.";
  const std::string id = "no-hz", title = "Tickless kernel (NO_HZ)";
  if (!s.kconfig) {
    return make(id, title, S::kSkipped, "no kernel config in /boot or /proc/config.gz", why);
  }
  const std::string hz = kconfig(s, "CONFIG_HZ");
  const std::string suffix = hz.empty() ? "" : ", CONFIG_HZ=" + hz;
  if (kconfig(s, "CONFIG_NO_HZ_FULL") == "y") {
    return make(id, title, S::kOk, "CONFIG_NO_HZ_FULL=y" + suffix, why);
  }
  if (kconfig(s, "CONFIG_NO_HZ_IDLE") == "y" || kconfig(s, "CONFIG_NO_HZ") == "y") {
    return make(id, title, S::kOk, "CONFIG_NO_HZ_IDLE=y" + suffix, why);
  }
  return make(id, title, S::kWarn, "periodic tick (CONFIG_HZ_PERIODIC)" + suffix, why,
              "install a kernel built with CONFIG_NO_HZ_IDLE=y (Debian's are)");
}

// ---- memory, files, devices -----------------------------------------------------------------

CheckResult swappiness(const SystemSnapshot& s) {
  const char* why =
      "A high swappiness lets the kernel swap out memory early; a process that touches a "
      "swapped page waits for the disk.";
  const std::string id = "swappiness", title = "Swappiness";
  if (!s.swappiness) return make(id, title, S::kSkipped, "/proc/sys/vm/swappiness unreadable", why);
  const std::string found = fmt::format("vm.swappiness = {}", *s.swappiness);
  if (*s.swappiness <= kMaxSwappiness) return make(id, title, S::kOk, found, why);
  return make(id, title, S::kWarn, found + fmt::format(" (more than {})", kMaxSwappiness), why,
              "sysctl -w vm.swappiness=10, and put 'vm.swappiness = 10' in "
              "/etc/sysctl.d/99-audio.conf to keep it");
}

CheckResult atime(const SystemSnapshot& s) {
  const char* why =
      "With strict atime every read of a file is also a write to the disk, I/O that competes "
      "with audio files being streamed.";
  const std::string id = "atime", title = "Filesystems with atime";
  std::vector<std::string> strict;
  int block = 0;
  for (const MountEntry& m : s.mounts) {
    if (!starts_with(m.device, "/dev/")) continue;  // disks only (not proc, tmpfs, cgroup)
    ++block;
    bool no_strict = false;
    for (std::string_view o : split(m.options, ',')) {
      no_strict = no_strict || o == "noatime" || o == "relatime" || o == "lazytime";
    }
    if (!no_strict) strict.push_back(m.dir);
  }
  if (block == 0) return make(id, title, S::kSkipped, "no disk filesystem in /proc/mounts", why);
  if (strict.empty()) {
    return make(
        id, title, S::kOk,
        fmt::format("{} disk filesystem{}, all noatime or relatime", block, block == 1 ? "" : "s"),
        why);
  }
  return make(id, title, S::kWarn, fmt::format("strict atime on {}", fmt::join(strict, ", ")), why,
              "add noatime (or relatime) to the options of those filesystems in /etc/fstab, "
              "then mount -o remount MOUNTPOINT");
}

CheckResult cpu_dma_latency(const SystemSnapshot& s) {
  const char* why =
      "jackd writes 0 to /dev/cpu_dma_latency to keep the CPUs out of deep idle states, whose "
      "wake-up takes up to hundreds of microseconds.";
  const std::string id = "cpu-dma-latency", title = "/dev/cpu_dma_latency";
  if (!s.dma_latency_exists) return make(id, title, S::kSkipped, "no /dev/cpu_dma_latency", why);
  if (s.dma_latency_writable) {
    return make(id, title, S::kOk, "writable by " + s.user + " (" + s.dma_latency_mode + ")", why);
  }
  return make(id, title, S::kWarn, "not writable by " + s.user + " (" + s.dma_latency_mode + ")",
              why,
              "put 'DEVPATH==\"/devices/virtual/misc/cpu_dma_latency\", OWNER=\"root\", "
              "GROUP=\"audio\", MODE=\"0660\"' in /etc/udev/rules.d/99-cpu-dma-latency.rules, "
              "then udevadm control --reload && udevadm trigger");
}

// ---- RT bandwidth --------------------------------------------------------------------------

CheckResult rt_throttling(const SystemSnapshot& s) {
  const char* why =
      "The kernel lets realtime tasks use sched_rt_runtime_us of every sched_rt_period_us; "
      "jackd and its clients are stopped for the rest of the period when they reach it.";
  const std::string id = "rt-throttling", title = "RT throttling";
  if (!s.rt_runtime_us || !s.rt_period_us) {
    return make(id, title, S::kSkipped, "/proc/sys/kernel/sched_rt_* unreadable", why);
  }
  const int64_t rt = *s.rt_runtime_us, period = *s.rt_period_us;
  if (rt < 0) {
    return make(id, title, S::kOk,
                "sched_rt_runtime_us -1: no limit (a runaway RT task can hang the machine)", why);
  }
  const std::string found =
      fmt::format("sched_rt_runtime_us {} of {} ({:.0f} %)", rt, period,
                  period > 0 ? 100.0 * static_cast<double>(rt) / static_cast<double>(period) : 0.0);
  const std::string fix = "sysctl -w kernel.sched_rt_runtime_us=950000";
  if (rt == 0) return make(id, title, S::kFail, found + ": RT tasks get no time", why, fix);
  if (period > 0 && rt * 2 < period) return make(id, title, S::kWarn, found, why, fix);
  return make(id, title, S::kOk, found, why);
}

CheckResult cgroup_rt(const SystemSnapshot& s) {
  const char* why =
      "With RT group scheduling a cgroup gets its own RT budget; in a group with 0 the kernel "
      "refuses SCHED_FIFO outright.";
  const std::string id = "cgroup-rt", title = "cgroup RT budget";
  if (!s.cgroup_cpu_dir) {
    return make(id, title, S::kSkipped,
                "no cgroup-v1 cpu group (no RT budget per group on cgroup v2)", why);
  }
  if (!s.cgroup_rt_runtime_us) {
    return make(id, title, S::kSkipped,
                *s.cgroup_cpu_dir + ": no cpu.rt_runtime_us (no RT group scheduling)", why);
  }
  const std::string found =
      fmt::format("{}: cpu.rt_runtime_us {}", *s.cgroup_cpu_dir, *s.cgroup_rt_runtime_us);
  if (*s.cgroup_rt_runtime_us == 0 && s.rt_runtime_us.value_or(0) >= 0) {
    return make(id, title, S::kFail, found, why,
                "echo 950000 > " + *s.cgroup_cpu_dir +
                    "/cpu.rt_runtime_us (and its parents'), or start from the root cpu group");
  }
  return make(id, title, S::kOk, found, why);
}

CheckResult rtkit(const SystemSnapshot& s) {
  const char* why =
      "PipeWire and desktop audio programs get realtime priority from rtkit, which caps it "
      "(and their CPU time) whatever limits.d allows.";
  const std::string id = "rtkit", title = "rtkit limits";
  const ProcessEntry* daemon = nullptr;
  for (const ProcessEntry& p : s.processes) {
    if (p.comm == "rtkit-daemon") daemon = &p;
  }
  if (!daemon) return make(id, title, S::kSkipped, "rtkit-daemon is not running", why);
  int max_prio = kRtkitDefaultMaxPriority;
  int rttime = kRtkitDefaultRttimeUsec;
  for (const std::string& a : daemon->argv) {
    const auto value = [&](std::string_view key) -> std::optional<int> {
      if (!starts_with(a, key)) return std::nullopt;
      try {
        return std::stoi(a.substr(key.size()));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    };
    if (const auto v = value("--max-realtime-priority=")) max_prio = *v;
    if (const auto v = value("--rttime-usec-max=")) rttime = *v;
  }
  const std::string found = fmt::format("pid {}: max realtime priority {}, RLIMIT_RTTIME {} ms",
                                        daemon->pid, max_prio, rttime / 1000);
  if (static_cast<uint64_t>(max_prio) >= kMinRtprio) return make(id, title, S::kOk, found, why);
  return make(id, title, S::kWarn, found, why,
              "systemctl edit rtkit-daemon: ExecStart= then ExecStart=/usr/libexec/rtkit-daemon "
              "--max-realtime-priority=89 --rttime-usec-max=2000000; or give the audio group "
              "its limits (jackd does not use rtkit)");
}

// ---- sound cards ---------------------------------------------------------------------------

bool software_card(const AlsaCard& c) {
  return c.driver == "Dummy" || c.driver == "Loopback" || c.driver == "Virtual";
}

std::string card_label(const AlsaCard& c) {
  return fmt::format("card {} [{}] {}", c.index, c.id, c.name);
}

CheckResult sound_cards(const SystemSnapshot& s) {
  const char* why =
      "xrunlab's alsa backend and every musician's jackd need a sound card that ALSA sees; "
      "without one only the virtual card and JACK's dummy driver run.";
  const std::string id = "sound-cards", title = "Sound cards";
  if (!s.cards) {
    return make(id, title, S::kWarn, "no ALSA sound subsystem (/proc/asound absent)", why,
                "load the card's driver (modprobe snd-hda-intel, snd-usb-audio ...); aplay -l "
                "lists the cards");
  }
  if (s.cards->empty()) {
    return make(id, title, S::kWarn, "no sound card (" + s.cards_source + ")", why,
                "plug the interface in or load its driver (modprobe snd-usb-audio ...); aplay "
                "-l lists the cards");
  }
  std::vector<std::string> names;
  for (const AlsaCard& c : *s.cards) {
    names.push_back(fmt::format("{} [{}] {} ({})", c.index, c.id, c.name, c.driver));
  }
  std::string found = fmt::format("{} ({})", fmt::join(names, ", "), s.cards_source);
  if (!s.cards_note.empty()) {
    return make(id, title, S::kWarn, found + "; " + s.cards_note, why,
                "usermod -aG audio " + s.user + ", then log in again");
  }
  return make(id, title, S::kOk, found, why);
}

// The card's interrupt lines, and which of them it shares with other devices.
struct CardIrqs {
  const AlsaCard* card;
  std::vector<IrqLine> lines;
};
std::vector<CardIrqs> hardware_card_irqs(const SystemSnapshot& s) {
  std::vector<CardIrqs> out;
  if (!s.cards || !s.interrupts) return out;
  for (const AlsaCard& c : *s.cards) {
    if (software_card(c)) continue;
    out.push_back({&c, card_irqs(c, *s.interrupts)});
  }
  return out;
}

std::vector<std::string> other_handlers(const IrqLine& line) {
  std::vector<std::string> others;
  const auto all = split_irq_actions(line.action);
  for (size_t i = 0; i < all.size(); ++i) {
    const bool mine = line.card_actions.empty()
                          ? i == 0
                          : std::find(line.card_actions.begin(), line.card_actions.end(), all[i]) !=
                                line.card_actions.end();
    if (!mine) others.push_back(all[i]);
  }
  return others;
}

CheckResult card_irq_check(const SystemSnapshot& s) {
  const char* why =
      "An interrupt line shared with another device runs that device's handler too, and its "
      "thread cannot be given a priority of its own.";
  const std::string id = "card-irqs", title = "Sound card IRQs";
  if (!s.cards || s.cards->empty()) return make(id, title, S::kSkipped, "no sound card", why);
  if (!s.interrupts) return make(id, title, S::kSkipped, "/proc/interrupts unreadable", why);
  const auto cards = hardware_card_irqs(s);
  if (cards.empty()) return make(id, title, S::kSkipped, "only software cards (no IRQ)", why);
  std::vector<std::string> parts;
  bool shared = false, unknown = false;
  for (const CardIrqs& c : cards) {
    if (c.lines.empty()) {
      unknown = true;
      parts.push_back(card_label(*c.card) + ": no IRQ found in /proc/interrupts");
      continue;
    }
    for (const IrqLine& l : c.lines) {
      const auto others = other_handlers(l);
      const bool usb = l.card_actions.size() == 1 && contains(l.card_actions.front(), "hcd");
      std::string part = fmt::format("{}: irq {} ({}{})", card_label(*c.card), l.irq, l.action,
                                     usb ? ", its USB controller" : "");
      if (!others.empty()) {
        shared = true;
        part += fmt::format(" shared with {}", fmt::join(others, ", "));
      }
      parts.push_back(part);
    }
  }
  const std::string found = fmt::format("{}", fmt::join(parts, "; "));
  if (shared) {
    return make(id, title, S::kWarn, found, why,
                "move the card (or the USB interface) to a slot or port whose IRQ is not shared "
                "(/proc/interrupts shows who shares), or disable the other device in the BIOS");
  }
  return make(id, title, unknown ? S::kWarn : S::kOk, found, why,
              unknown ? "check /proc/interrupts for the card's driver" : "");
}

// What rtirq (Debian's rtirq-init) gives an IRQ thread with its defaults: RTIRQ_NAME_LIST
// "snd usb i8042" from RTIRQ_PRIO_HIGH 90 down by RTIRQ_PRIO_DECR 5 per name; 0 for others.
int rtirq_priority(const std::string& handler) {
  if (starts_with(handler, "snd")) return 90;
  if (contains(handler, "usb")) return 85;  // "ehci_hcd:usb1"; not "xhci_hcd"
  return 0;
}

CheckResult irq_priorities(const SystemSnapshot& s, const DoctorTargets& t) {
  const std::string why = fmt::format(
      "The sound card's IRQ thread must run above jackd (SCHED_FIFO {}, clients {}) as rtirq "
      "sets it, or jackd's own busy period delays the interrupt that starts the next.",
      t.jackd_priority, t.jackd_priority - kJackClientPriorityOffset);
  const std::string id = "irq-priorities", title = "IRQ thread priorities";
  const auto cards = hardware_card_irqs(s);
  if (cards.empty()) return make(id, title, S::kSkipped, "no hardware sound card", why);
  std::vector<IrqLine> lines;
  for (const CardIrqs& c : cards) lines.insert(lines.end(), c.lines.begin(), c.lines.end());
  std::vector<TaskComm> tasks;
  for (const IrqThread& th : s.irq_threads) tasks.push_back({th.pid, th.comm});
  const auto threads = card_irq_threads(tasks, lines);
  if (threads.empty()) {
    return make(id, title, S::kSkipped,
                "the card's IRQs have no threads (not threaded: see threadirqs)", why);
  }
  std::vector<std::string> parts;
  bool low = false;
  for (const IrqThread& th : threads) {
    const auto it = std::find_if(s.irq_threads.begin(), s.irq_threads.end(),
                                 [&](const IrqThread& x) { return x.pid == th.pid; });
    const int policy = it != s.irq_threads.end() ? it->policy : -1;
    const int prio = it != s.irq_threads.end() ? it->rt_priority : -1;
    const bool rt = policy == kSchedFifo || policy == kSchedRr;
    if (!rt || prio <= t.jackd_priority) low = true;
    std::string part = fmt::format("{} (pid {}) {} {}", th.comm, th.pid,
                                   rt ? policy_name(policy) : "not realtime", rt ? prio : 0);
    if (const int want = rtirq_priority(th.name); want > 0 && want != prio) {
      part += fmt::format(" (rtirq: {})", want);
    }
    parts.push_back(std::move(part));
  }
  const std::string found = fmt::format("{}", fmt::join(parts, ", "));
  if (!low) return make(id, title, S::kOk, found, why);
  return make(id, title, S::kWarn, found + fmt::format(" (needs > {})", t.jackd_priority), why,
              "apt-get install rtirq-init (at boot it sets IRQ threads named snd to SCHED_FIFO "
              "90 and usb to 85; for a card on xhci_hcd add xhci_hcd to RTIRQ_NAME_LIST in "
              "/etc/default/rtirq), or chrt -f -p 90 PID for each thread above");
}

bool is_server(const std::string& comm) {
  return comm == "jackd" || comm == "jackdbus" || comm == "pipewire" || comm == "pipewire-pulse" ||
         comm == "wireplumber" || comm == "pulseaudio";
}

CheckResult audio_servers(const SystemSnapshot& s) {
  const char* why =
      "A running JACK or PipeWire server holds the card: xrunlab run --backend alsa then finds "
      "it busy and must --backend attach to that server instead.";
  const std::string id = "audio-servers", title = "JACK / PipeWire servers";
  std::vector<std::string> running;
  for (const ProcessEntry& p : s.processes) {
    if (is_server(p.comm)) running.push_back(fmt::format("{} (pid {})", p.comm, p.pid));
  }
  if (running.empty()) return make(id, title, S::kOk, "none running", why);
  return make(id, title, S::kOk, fmt::format("running: {}", fmt::join(running, ", ")), why);
}

CheckResult card_holders(const SystemSnapshot& s) {
  const char* why =
      "Only one program can open a card's hw device; whoever holds it decides which backend "
      "xrunlab can use.";
  const std::string id = "card-holders", title = "Who holds the cards";
  if (!s.cards || s.cards->empty()) return make(id, title, S::kSkipped, "no sound card", why);
  std::vector<std::string> parts;
  bool foreign = false;
  for (const PcmHolder& h : s.pcm_holders) {
    parts.push_back(fmt::format("{} (pid {}) has {}", h.comm, h.pid, h.node));
    foreign = foreign || !is_server(h.comm);
  }
  if (parts.empty()) {
    if (!s.holders_complete) {
      return make(id, title, S::kNeedsRoot,
                  "no process of this user holds a card; other users' need root to see", why);
    }
    return make(id, title, S::kOk, "no process holds a PCM device: the cards are free", why);
  }
  const std::string found = fmt::format("{}", fmt::join(parts, "; "));
  if (foreign) {
    return make(id, title, S::kWarn, found, why,
                "stop that program, or use xrunlab run --backend attach under a JACK server");
  }
  return make(id, title, S::kOk, found + " (use xrunlab run --backend attach)", why);
}

}  // namespace

const char* status_key(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk:
      return "ok";
    case CheckStatus::kSkipped:
      return "skipped";
    case CheckStatus::kNeedsRoot:
      return "needs-root";
    case CheckStatus::kWarn:
      return "warn";
    case CheckStatus::kFail:
      return "fail";
  }
  return "?";
}

const char* status_label(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk:
      return "OK";
    case CheckStatus::kSkipped:
      return "SKIP";
    case CheckStatus::kNeedsRoot:
      return "ROOT";
    case CheckStatus::kWarn:
      return "WARN";
    case CheckStatus::kFail:
      return "FAIL";
  }
  return "?";
}

std::vector<CheckResult> run_checks(const SystemSnapshot& s, const DoctorTargets& t) {
  return {audio_group(s),
          audio_limits(s),
          rtprio(s),
          memlock(s),
          policies(s, t),
          cpu_governor(s),
          smt(s),
          preempt(s),
          threadirqs(s),
          high_res_timers(s),
          no_hz(s),
          mitigations(s),
          swappiness(s),
          atime(s),
          cpu_dma_latency(s),
          rt_throttling(s),
          cgroup_rt(s),
          rtkit(s),
          sound_cards(s),
          card_irq_check(s),
          irq_priorities(s, t),
          audio_servers(s),
          card_holders(s)};
}

CheckStatus worst_status(const std::vector<CheckResult>& results) {
  CheckStatus worst = CheckStatus::kOk;
  for (const CheckResult& r : results) worst = std::max(worst, r.status);
  return worst;
}

}  // namespace xrunlab
