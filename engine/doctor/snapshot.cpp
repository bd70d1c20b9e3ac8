// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/doctor/snapshot.hpp"

#include <alsa/asoundlib.h>
#include <dirent.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <set>

#include "engine/backend/proc_numbers.hpp"
#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/base/text.hpp"
#include "engine/sched/preflight.hpp"

namespace xrunlab {
namespace {

constexpr int kCapIpcLockBit = 14;

std::optional<uint64_t> to_u64(std::string_view s) {
  s = trim(s);
  uint64_t v = 0;
  if (s.empty()) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// The blank-separated words of a line.
std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.emplace_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string> dir_names(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") out.push_back(name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// "0-1,4,6-7" -> 5; 0 when unreadable.
int count_cpu_list(std::string_view list) {
  int n = 0;
  for (std::string_view part : split(trim(list), ',')) {
    const size_t dash = part.find('-');
    const auto lo = to_u64(part.substr(0, dash));
    const auto hi = dash == std::string_view::npos ? lo : to_u64(part.substr(dash + 1));
    if (lo && hi && *hi >= *lo) n += static_cast<int>(*hi - *lo + 1);
  }
  return n;
}

// name -> id of ETC/passwd or ETC/group ("root:x:0:0:..." -> {"root", 0}), and the other way.
struct IdNames {
  std::map<uint32_t, std::string> by_id;
  std::map<std::string, std::vector<std::string>> members;  // group: its member list
  std::map<std::string, uint32_t> by_name;
};
IdNames read_id_file(const std::string& path) {
  IdNames out;
  const auto text = read_file(path);
  if (!text) return out;
  for (std::string_view line : lines(*text)) {
    const auto f = split(line, ':');
    if (f.size() < 3) continue;
    const auto id = to_u64(f[2]);
    if (!id) continue;
    const std::string name(f[0]);
    out.by_id.emplace(static_cast<uint32_t>(*id), name);
    out.by_name.emplace(name, static_cast<uint32_t>(*id));
    if (f.size() >= 4) {
      for (std::string_view m : split(f[3], ',')) {
        if (!trim(m).empty()) out.members[name].emplace_back(trim(m));
      }
    }
  }
  return out;
}

std::string name_of(const IdNames& names, uint32_t id) {
  const auto it = names.by_id.find(id);
  return it != names.by_id.end() ? it->second : std::to_string(id);
}

// The whole of a gzip file; nullopt when it cannot be opened or read.
std::optional<std::string> read_gzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return std::nullopt;
  std::string out;
  char buf[65536];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  const bool ok = n == 0;
  gzclose(f);
  if (!ok) return std::nullopt;
  return out;
}

// The cards alsa-lib finds (snd_card_next, snd_ctl_card_info), and how many it could not open.
std::vector<AlsaCard> alsa_lib_cards(int* unopened) {
  std::vector<AlsaCard> out;
  *unopened = 0;
  int card = -1;
  snd_ctl_card_info_t* info = nullptr;
  if (snd_ctl_card_info_malloc(&info) < 0) return out;
  while (snd_card_next(&card) == 0 && card >= 0) {
    snd_ctl_t* ctl = nullptr;
    if (snd_ctl_open(&ctl, fmt::format("hw:{}", card).c_str(), 0) < 0) {
      ++*unopened;
      continue;
    }
    if (snd_ctl_card_info(ctl, info) == 0) {
      AlsaCard c;
      c.index = card;
      c.id = snd_ctl_card_info_get_id(info);
      c.driver = snd_ctl_card_info_get_driver(info);
      c.name = snd_ctl_card_info_get_name(info);
      c.long_name = snd_ctl_card_info_get_longname(info);
      out.push_back(std::move(c));
    } else {
      ++*unopened;
    }
    snd_ctl_close(ctl);
  }
  snd_ctl_card_info_free(info);
  return out;
}

void read_identity(const DoctorRoots& roots, SystemSnapshot& s) {
  const std::string status = read_file(roots.proc + "/self/status").value_or("");
  if (const auto uid = key_value(status, "Uid")) {
    const auto w = words(*uid);
    if (w.size() >= 2) s.euid = static_cast<uid_t>(to_u64(w[1]).value_or(0));
  } else {
    s.euid = ::geteuid();
  }
  if (const auto groups = key_value(status, "Groups")) {
    for (const std::string& g : words(*groups)) {
      if (const auto v = to_u64(g)) s.groups.push_back(static_cast<gid_t>(*v));
    }
  }
  if (const auto gid = key_value(status, "Gid")) {
    const auto w = words(*gid);
    if (w.size() >= 2) {
      if (const auto v = to_u64(w[1])) s.groups.push_back(static_cast<gid_t>(*v));
    }
  }
  std::sort(s.groups.begin(), s.groups.end());
  s.groups.erase(std::unique(s.groups.begin(), s.groups.end()), s.groups.end());
  s.cap_sys_nice = parse_cap_sys_nice(status).value_or(s.euid == 0);
  if (const auto cap = key_value(status, "CapEff")) {
    uint64_t bits = 0;
    const auto [ptr, ec] = std::from_chars(cap->data(), cap->data() + cap->size(), bits, 16);
    s.cap_ipc_lock = ec == std::errc() && ((bits >> kCapIpcLockBit) & 1U) != 0;
  } else {
    s.cap_ipc_lock = s.euid == 0;
  }
  const std::string limits = read_file(roots.proc + "/self/limits").value_or("");
  s.rtprio = parse_limits_line(limits, "Max realtime priority");
  s.memlock = parse_limits_line(limits, "Max locked memory");
  s.nice = parse_limits_line(limits, "Max nice priority");
}

void read_etc(const DoctorRoots& roots, SystemSnapshot& s, const IdNames& users,
              const IdNames& groups) {
  s.user = name_of(users, s.euid);
  if (const auto it = groups.by_name.find("audio"); it != groups.by_name.end()) {
    s.audio_gid = it->second;
    if (const auto m = groups.members.find("audio"); m != groups.members.end()) {
      s.audio_members = m->second;
    }
  }
  const std::string sec = roots.etc + "/security";
  if (const auto text = read_file(sec + "/limits.conf")) {
    apply_limits_conf(*text, "/etc/security/limits.conf", s.audio_limits);
  }
  // pam_limits reads limits.d/*.conf in lexical order; other names are not read.
  for (const std::string& name : dir_names(sec + "/limits.d")) {
    if (!ends_with(name, ".conf")) {
      s.audio_limits.disabled_files.push_back("/etc/security/limits.d/" + name);
      continue;
    }
    if (const auto text = read_file(sec + "/limits.d/" + name)) {
      apply_limits_conf(*text, "/etc/security/limits.d/" + name, s.audio_limits);
    }
  }
}

void read_kernel(const DoctorRoots& roots, SystemSnapshot& s) {
  s.release = std::string(trim(read_file(roots.proc + "/sys/kernel/osrelease").value_or("")));
  s.version = std::string(trim(read_file(roots.proc + "/sys/kernel/version").value_or("")));
  s.cmdline = std::string(trim(read_file(roots.proc + "/cmdline").value_or("")));
  s.sys_kernel_realtime = trim(read_file(roots.sys + "/kernel/realtime").value_or("")) == "1";
  if (const auto p = read_file(roots.sys + "/kernel/debug/sched/preempt")) {
    s.debugfs_preempt = std::string(trim(*p));
  }
  const std::string boot_config = roots.boot + "/config-" + s.release;
  const std::string proc_config = roots.proc + "/config.gz";
  if (!s.release.empty() && exists(boot_config)) {
    if (const auto text = read_file(boot_config)) {
      s.kconfig = parse_kernel_config(*text);
      s.kconfig_source = "/boot/config-" + s.release;
    } else {
      s.kconfig_unreadable = true;
    }
  }
  if (!s.kconfig && exists(proc_config)) {
    if (const auto text = read_gzip(proc_config)) {
      s.kconfig = parse_kernel_config(*text);
      s.kconfig_source = "/proc/config.gz";
      s.kconfig_unreadable = false;
    } else {
      s.kconfig_unreadable = true;
    }
  }
  if (const auto timers = read_file(roots.proc + "/timer_list")) {
    for (std::string_view line : lines(*timers)) {
      if (starts_with(trim(line), "hres_active")) {
        s.hres_active = ends_with(trim(line), "1");
        break;
      }
    }
  }
}

void read_cpus(const DoctorRoots& roots, SystemSnapshot& s) {
  const std::string cpu = roots.sys + "/devices/system/cpu";
  const int online = count_cpu_list(read_file(cpu + "/online").value_or(""));
  s.ncpus = online > 0 ? online : std::max(1, static_cast<int>(::sysconf(_SC_NPROCESSORS_ONLN)));
  for (const std::string& name : dir_names(cpu)) {
    if (name.size() < 4 || !starts_with(name, "cpu")) continue;
    const auto n = to_u64(std::string_view(name).substr(3));
    if (!n) continue;
    if (const auto gov = read_first_line(cpu + "/" + name + "/cpufreq/scaling_governor")) {
      s.governors.emplace(static_cast<int>(*n), std::string(trim(*gov)));
    }
  }
  if (const auto smt = read_first_line(cpu + "/smt/control"))
    s.smt_control = std::string(trim(*smt));
  for (const std::string& name : dir_names(cpu + "/vulnerabilities")) {
    if (const auto line = read_first_line(cpu + "/vulnerabilities/" + name)) {
      s.vulnerabilities.emplace(name, std::string(trim(*line)));
    }
  }
}

void read_memory_and_mounts(const DoctorRoots& roots, SystemSnapshot& s) {
  s.swappiness = read_number(roots.proc + "/sys/vm/swappiness");
  const std::string mounts = read_file(roots.proc + "/mounts").value_or("");
  for (std::string_view line : lines(mounts)) {
    const auto w = words(line);
    if (w.size() >= 4) s.mounts.push_back({w[0], w[1], w[2], w[3]});
  }
}

void read_dma_latency(const DoctorRoots& roots, SystemSnapshot& s, const IdNames& users,
                      const IdNames& groups) {
  struct stat st {};
  if (::stat((roots.dev + "/cpu_dma_latency").c_str(), &st) != 0) return;
  s.dma_latency_exists = true;
  const bool in_group = std::binary_search(s.groups.begin(), s.groups.end(), st.st_gid);
  s.dma_latency_writable = s.euid == 0 || (st.st_uid == s.euid && (st.st_mode & S_IWUSR)) ||
                           (in_group && (st.st_mode & S_IWGRP)) || (st.st_mode & S_IWOTH);
  s.dma_latency_mode = fmt::format("mode {:04o}, owner {}, group {}", st.st_mode & 07777,
                                   name_of(users, st.st_uid), name_of(groups, st.st_gid));
}

void read_rt_bandwidth(const DoctorRoots& roots, SystemSnapshot& s) {
  s.rt_runtime_us = read_number(roots.proc + "/sys/kernel/sched_rt_runtime_us");
  s.rt_period_us = read_number(roots.proc + "/sys/kernel/sched_rt_period_us");
  const auto cgroup = read_file(roots.proc + "/self/cgroup");
  const auto mountinfo = read_file(roots.proc + "/self/mountinfo");
  if (cgroup && mountinfo) s.cgroup_cpu_dir = cgroup_v1_cpu_dir(*cgroup, *mountinfo);
  if (s.cgroup_cpu_dir) {
    // The system's path, read under the sys root ("/sys/fs/cgroup/cpu" -> SYS/fs/cgroup/cpu).
    std::string dir = *s.cgroup_cpu_dir;
    if (starts_with(dir, "/sys/") || dir == "/sys") dir = roots.sys + dir.substr(4);
    s.cgroup_rt_runtime_us = read_number(dir + "/cpu.rt_runtime_us");
  }
  const std::string v1 = roots.sys + "/fs/cgroup/cpu/cpu.rt_runtime_us";
  s.cgroup_v1_cpu_rt_writable =
      exists(v1) && (roots.live() ? ::access(v1.c_str(), W_OK) == 0 : s.euid == 0);
}

void read_processes(const DoctorRoots& roots, SystemSnapshot& s) {
  s.holders_complete = true;
  for (pid_t pid : numeric_entries(roots.proc)) {
    const std::string dir = fmt::format("{}/{}", roots.proc, pid);
    ProcessEntry p;
    p.pid = pid;
    const auto comm = read_first_line(dir + "/comm");
    if (!comm) continue;  // gone meanwhile
    p.comm = *comm;
    const std::string status = read_file(dir + "/status").value_or("");
    if (const auto uid = key_value(status, "Uid")) {
      const auto w = words(*uid);
      if (!w.empty()) {
        if (const auto v = to_u64(w[0])) p.uid = static_cast<uid_t>(*v);
      }
    }
    if (const auto cmdline = read_file(dir + "/cmdline")) {
      for (std::string_view a : split(*cmdline, '\0')) {
        if (!a.empty()) p.argv.emplace_back(a);
      }
    }
    if (const auto st = read_file(dir + "/stat")) {
      if (const auto parsed = parse_proc_pid_stat(*st)) {
        if (auto t = parse_irq_thread_comm(pid, parsed->comm)) {
          t->policy = parsed->policy;
          t->rt_priority = parsed->rt_priority;
          s.irq_threads.push_back(*t);
        }
      }
    }
    DIR* fd = opendir((dir + "/fd").c_str());
    if (fd != nullptr) {
      closedir(fd);
    } else if (errno == EACCES) {
      s.holders_complete = false;
    }
    s.processes.push_back(std::move(p));
  }
  s.pcm_holders = find_pcm_holders(-1, -1, roots.proc);
}

void read_cards(const DoctorRoots& roots, SystemSnapshot& s) {
  const auto proc_cards = read_asound_cards(roots.proc);
  if (roots.live()) {
    int unopened = 0;
    std::vector<AlsaCard> cards = alsa_lib_cards(&unopened);
    s.cards_source = "alsa-lib";
    if (unopened > 0 && proc_cards && proc_cards->size() > cards.size()) {
      // alsa-lib opens /dev/snd/controlC*: a user outside the audio group may not.
      s.cards_note = fmt::format(
          "alsa-lib could not open {} of the cards /proc/asound/cards lists (permission on "
          "/dev/snd?); they are taken from /proc",
          unopened);
      cards = *proc_cards;
    }
    if (!cards.empty() || proc_cards) s.cards = std::move(cards);
  } else {
    s.cards = proc_cards;
    s.cards_source = "/proc/asound/cards";
  }
  s.interrupts = read_interrupts(roots.proc);
}

}  // namespace

std::optional<ResourceLimit> parse_limits_line(const std::string& proc_self_limits,
                                               const std::string& name) {
  for (std::string_view line : lines(proc_self_limits)) {
    if (!starts_with(line, name)) continue;
    const auto w = words(line.substr(name.size()));
    if (w.empty()) return std::nullopt;
    if (w[0] == "unlimited") return ResourceLimit{true, 0};
    if (const auto v = to_u64(w[0])) return ResourceLimit{false, *v};
    return std::nullopt;
  }
  return std::nullopt;
}

void apply_limits_conf(const std::string& text, const std::string& file, AudioGroupLimits& out) {
  for (std::string_view raw : lines(text)) {
    std::string_view line = raw.substr(0, raw.find('#'));
    const auto w = words(line);
    if (w.size() < 4 || w[0] != "@audio" || w[1] == "hard") continue;
    ResourceLimit value;
    if (w[3] == "unlimited" || w[3] == "infinity" || w[3] == "-1") {
      value.unlimited = true;
    } else if (const auto v = to_u64(w[3])) {
      value.value = *v;
    } else {
      continue;
    }
    if (w[2] == "rtprio") {
      out.rtprio = value;
      out.rtprio_file = file;
    } else if (w[2] == "memlock") {
      out.memlock = value;
      out.memlock_file = file;
    }
  }
}

std::map<std::string, std::string> parse_kernel_config(const std::string& text) {
  std::map<std::string, std::string> out;
  for (std::string_view line : lines(text)) {
    if (!starts_with(line, "CONFIG_")) continue;
    const size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view value = line.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    out.emplace(std::string(line.substr(0, eq)), std::string(value));
  }
  return out;
}

SystemSnapshot collect_snapshot(const DoctorRoots& roots, int jackd_priority) {
  SystemSnapshot s;
  read_identity(roots, s);
  const IdNames users = read_id_file(roots.etc + "/passwd");
  const IdNames groups = read_id_file(roots.etc + "/group");
  read_etc(roots, s, users, groups);
  read_kernel(roots, s);
  read_cpus(roots, s);
  read_memory_and_mounts(roots, s);
  read_dma_latency(roots, s, users, groups);
  read_rt_bandwidth(roots, s);
  read_processes(roots, s);
  read_cards(roots, s);
  if (roots.live()) {
    s.rt_trial = check_realtime_permission(jackd_priority);
    s.iso_supported = probe_sched_iso();
  }
  return s;
}

}  // namespace xrunlab
