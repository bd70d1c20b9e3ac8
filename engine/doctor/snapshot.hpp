// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab doctor`'s view of the system: every fact its checks need, read once from the roots
// (/proc, /sys, /etc, /dev, /boot; tests pass fixture trees) into one struct, so the checks
// (checks.hpp) are pure functions of it.
// Non-realtime: read once by `xrunlab doctor`.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/card_irqs.hpp"
#include "engine/backend/pcm_holders.hpp"

namespace xrunlab {

// Where the system's files are. The defaults are the real ones; live() is true only then, and
// only then are the facts that have no file read from the process itself (alsa-lib's card list,
// a trial of SCHED_FIFO, the SCHED_ISO probe).
struct DoctorRoots {
  std::string proc = "/proc";
  std::string sys = "/sys";
  std::string etc = "/etc";
  std::string dev = "/dev";
  std::string boot = "/boot";
  bool live() const {
    return proc == "/proc" && sys == "/sys" && etc == "/etc" && dev == "/dev" && boot == "/boot";
  }
};

// One line of PROC/self/limits; unlimited or a value. nullopt in the snapshot: not readable.
struct ResourceLimit {
  bool unlimited = false;
  uint64_t value = 0;  // the soft limit
};

// What limits.conf and limits.d/*.conf give the audio group ("@audio - rtprio 95").
struct AudioGroupLimits {
  std::optional<ResourceLimit> rtprio, memlock;
  std::string rtprio_file, memlock_file;    // where each was set (the last one wins, as in PAM)
  std::vector<std::string> disabled_files;  // limits.d files not read by PAM: *.disabled, ...
};

struct MountEntry {
  std::string device, dir, type, options;
};

// A process of PROC: its pid, comm, real uid and argv.
struct ProcessEntry {
  pid_t pid = 0;
  std::string comm;
  std::optional<uid_t> uid;
  std::vector<std::string> argv;
};

struct SystemSnapshot {
  // Who runs doctor: PROC/self/status (Uid, Gid, Groups, CapEff) and ETC/passwd.
  uid_t euid = 0;
  std::vector<gid_t> groups;  // the supplementary groups of this process
  bool cap_sys_nice = false;  // CapEff bit 23
  bool cap_ipc_lock = false;  // CapEff bit 14
  std::string user;           // name of euid in ETC/passwd, else the number
  // PROC/self/limits
  std::optional<ResourceLimit> rtprio, memlock, nice;
  // ETC/group, ETC/security/limits.conf and limits.d/
  std::optional<gid_t> audio_gid;
  std::vector<std::string> audio_members;
  AudioGroupLimits audio_limits;
  // The kernel: PROC/sys/kernel/{osrelease,version}, PROC/cmdline, SYS/kernel/realtime,
  // SYS/kernel/debug/sched/preempt (root, debugfs mounted), its config.
  std::string release, version, cmdline;
  bool sys_kernel_realtime = false;
  std::optional<std::string> debugfs_preempt;
  std::optional<std::map<std::string, std::string>> kconfig;  // CONFIG_X -> "y", "m", "250"
  std::string kconfig_source;                                 // the file it came from
  bool kconfig_unreadable = false;  // a config file exists but could not be read
  std::optional<bool> hres_active;  // PROC/timer_list "hres_active : 1" (root only)
  // CPUs: SYS/devices/system/cpu
  int ncpus = 1;
  std::map<int, std::string> governors;  // cpu number -> scaling_governor
  std::optional<std::string> smt_control;
  std::map<std::string, std::string> vulnerabilities;  // file name -> its line
  // Memory and filesystems
  std::optional<int64_t> swappiness;
  std::vector<MountEntry> mounts;  // PROC/mounts
  // DEV/cpu_dma_latency
  bool dma_latency_exists = false;
  bool dma_latency_writable = false;  // by this user, from its mode, owner and group
  std::string dma_latency_mode;       // "crw------- root:root"
  // RT bandwidth: PROC/sys/kernel/sched_rt_*, this process's cgroup-v1 cpu group
  std::optional<int64_t> rt_runtime_us, rt_period_us;
  std::optional<std::string> cgroup_cpu_dir;  // as the system names it ("/sys/fs/cgroup/cpu")
  std::optional<int64_t> cgroup_rt_runtime_us;
  bool cgroup_v1_cpu_rt_writable = false;  // SYS/fs/cgroup/cpu/cpu.rt_runtime_us (rt-throttle)
  // Processes (PROC/[0-9]*)
  std::vector<ProcessEntry> processes;
  // Sound cards: alsa-lib (live) or PROC/asound/cards; their IRQ lines and threads; holders.
  std::optional<std::vector<AlsaCard>> cards;  // nullopt: no ALSA at all
  std::string cards_source;                    // "alsa-lib" or "PROC/asound/cards"
  std::string cards_note;                      // e.g. why alsa-lib saw fewer than /proc
  std::optional<std::vector<IrqLine>> interrupts;
  std::vector<IrqThread> irq_threads;  // every irq/N-name thread, with policy and priority
  std::vector<PcmHolder> pcm_holders;
  bool holders_complete = false;  // every process's fd folder could be read
  // Live only (DoctorRoots::live()): what the kernel says when asked for real.
  std::optional<std::string> rt_trial;  // check_realtime_permission(jackd priority): "" = ok
  bool iso_supported = false;
};

// Reads everything under `roots`. `jackd_priority` is what the live SCHED_FIFO trial asks for.
// Unreadable sources stay empty/nullopt; never throws.
SystemSnapshot collect_snapshot(const DoctorRoots& roots, int jackd_priority);

// ---- building blocks (pure; exposed for tests) --------------------------------------------

// "Max realtime priority     0     0" -> {value 0}; "unlimited" -> {unlimited}. nullopt when the
// line is missing.
std::optional<ResourceLimit> parse_limits_line(const std::string& proc_self_limits,
                                               const std::string& name);

// Applies the lines of one limits.conf text to `out` for the audio group: "@audio - rtprio 95",
// "@audio soft memlock unlimited" (soft, hard or '-'; the last line wins). `file` is recorded.
void apply_limits_conf(const std::string& text, const std::string& file, AudioGroupLimits& out);

// The CONFIG_ lines of a kernel config text: "CONFIG_HZ=250" -> {"CONFIG_HZ", "250"}.
std::map<std::string, std::string> parse_kernel_config(const std::string& text);

}  // namespace xrunlab
