// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/preflight.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <system_error>
#include <thread>
#include <vector>

#include "engine/base/errno_text.hpp"
#include "engine/base/file.hpp"
#include "engine/base/proc_cgroup.hpp"
#include "engine/base/text.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

constexpr int kCapSysNiceBit = 23;
constexpr uint64_t kDlMinRuntimeNs = 1024;  // the kernel's 1 << DL_SCALE
constexpr char kRtRuntimeFile[] = "/proc/sys/kernel/sched_rt_runtime_us";
constexpr char kRtPeriodFile[] = "/proc/sys/kernel/sched_rt_period_us";
constexpr char kCgroupV1CpuRt[] = "/sys/fs/cgroup/cpu/cpu.rt_runtime_us";
constexpr char kOnlineCpus[] = "/sys/devices/system/cpu/online";
constexpr char kOsRelease[] = "/proc/sys/kernel/osrelease";

// ---- reading ------------------------------------------------------------------------------

template <typename T>
std::optional<T> parse_number(std::string_view s, int base = 10) {
  s = trim(s);
  T v{};
  if (s.empty()) return std::nullopt;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

bool has_token(std::string_view list, std::string_view token) {
  for (std::string_view t : split(list, ',')) {
    if (t == token) return true;
  }
  return false;
}

// mountinfo escapes blanks, newlines and backslashes in paths as \ooo (octal).
std::string unescape_octal(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      const std::string_view oct = s.substr(i + 1, 3);
      if (std::all_of(oct.begin(), oct.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out.push_back(static_cast<char>((oct[0] - '0') * 64 + (oct[1] - '0') * 8 + (oct[2] - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(s[i]);
  }
  return out;
}

std::optional<uint64_t> rlimit_value(int resource) {
  rlimit rl{};
  if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return static_cast<uint64_t>(rl.rlim_cur);
}

// Sum of runtime/period of the fair servers as debugfs shows them; nullopt if unreadable.
std::optional<double> read_fair_servers(const std::string& root, int ncpus) {
  double sum = 0;
  for (int cpu = 0; cpu < ncpus; ++cpu) {
    const std::string dir = fmt::format("{}/sys/kernel/debug/sched/fair_server/cpu{}/", root, cpu);
    const auto runtime = read_number(dir + "runtime");
    const auto period = read_number(dir + "period");
    if (!runtime || !period || *runtime < 0 || *period <= 0) return std::nullopt;
    sum += static_cast<double>(*runtime) / static_cast<double>(*period);
  }
  return sum;
}

// ---- deciding -----------------------------------------------------------------------------

bool is_rt(const ThreadTarget& t) {
  return t.policy == kSchedFifo || t.policy == kSchedRr;
}
bool is_fair(const ThreadTarget& t) {
  return t.policy == kSchedOther || t.policy == kSchedBatch;
}

std::string signed_nice(int nice) {
  return nice > 0 ? fmt::format("+{}", nice) : fmt::format("{}", nice);
}

std::string us(uint64_t ns) {
  return fmt::format("{}", static_cast<double>(ns) / 1000.0);
}

// Added to every "run as root" advice when we are root but lack the capability.
std::string root_without_cap(const SchedFacts& f) {
  return f.euid == 0 ? " (this process runs as root but without CAP_SYS_NICE, e.g. in a "
                       "container: grant it, e.g. docker run --cap-add=SYS_NICE)"
                     : "";
}

std::string check_rt(const PolicySpec& p, const PolicyTargets& t, const SchedFacts& f) {
  int top = 0;
  int top_policy = kSchedFifo;
  for (const ThreadTarget* x : {&t.server, &t.client}) {
    if (is_rt(*x) && x->rt_priority >= top) {
      top = x->rt_priority;
      top_policy = x->policy;
    }
  }
  const std::string what = p.kind == PolicyKind::kIsoEmu
                               ? fmt::format("iso-emu (SCHED_FIFO {} while promoted)", top)
                               : fmt::format("{} {}", policy_name(top_policy), top);

  if (f.sched_rt_runtime_us == 0) {
    return what +
           " is impossible: /proc/sys/kernel/sched_rt_runtime_us is 0, so realtime tasks "
           "get no CPU time; set it back to 950000 (sysctl -w "
           "kernel.sched_rt_runtime_us=950000)";
  }
  // The kernel refuses SCHED_FIFO/RR with EPERM in a group without RT runtime, but only while
  // RT bandwidth control is on. rt-throttle moves its threads into a group of its own.
  if (p.kind != PolicyKind::kRtThrottle && f.sched_rt_runtime_us >= 0 && f.cgroup_rt_runtime_us &&
      *f.cgroup_rt_runtime_us == 0) {
    return what +
           " is refused in this process's cpu cgroup: its cpu.rt_runtime_us is 0 (RT "
           "group scheduling gives the group no RT time); write a runtime such as 950000 "
           "to cpu.rt_runtime_us of that group and of its parents (the cpu line of "
           "/proc/self/cgroup names it), or start xrunlab from the root cpu group";
  }
  if (!f.cap_sys_nice && f.rlimit_rtprio && *f.rlimit_rtprio < static_cast<uint64_t>(top)) {
    return fmt::format(
        "{} needs RLIMIT_RTPRIO >= {} (it is {}): add '@audio - rtprio {}' to "
        "/etc/security/limits.d/audio.conf and log in again, or run as root{}",
        what, top, *f.rlimit_rtprio, std::max(95, top), root_without_cap(f));
  }
  return "";
}

std::string check_nice(const PolicyTargets& t, const SchedFacts& f) {
  const ThreadTarget* lowest = nullptr;
  for (const ThreadTarget* x : {&t.server, &t.client}) {
    if (is_fair(*x) && (!lowest || x->nice < lowest->nice)) lowest = x;
  }
  if (!lowest || lowest->nice >= 0 || f.cap_sys_nice || !f.rlimit_nice) return "";
  // The kernel allows nice n when 20 - n <= RLIMIT_NICE (can_nice / is_nice_reduction).
  const uint64_t needed = static_cast<uint64_t>(20 - lowest->nice);
  const uint64_t have = *f.rlimit_nice;
  if (have >= needed) return "";
  const std::string allows = have > 20
                                 ? fmt::format("nice {} at the lowest", 20 - static_cast<int>(have))
                                 : std::string("no negative nice value");
  return fmt::format(
      "{} nice {} needs RLIMIT_NICE >= {} (it is {}, which allows {}): add '@audio - nice {}' "
      "to /etc/security/limits.d/audio.conf and log in again, or run as root{}",
      policy_name(lowest->policy), signed_nice(lowest->nice), needed, have, allows, lowest->nice,
      root_without_cap(f));
}

std::string check_deadline(const PolicyTargets& t, int clients, const SchedFacts& f) {
  if (!f.cap_sys_nice) {
    return "SCHED_DEADLINE needs CAP_SYS_NICE (the kernel refuses it to unprivileged users "
           "whatever their limits): run as root" +
           root_without_cap(f);
  }
  const std::pair<const char*, const ThreadTarget*> threads[] = {{"server", &t.server},
                                                                 {"client", &t.client}};
  for (const auto& [who, x] : threads) {
    const uint64_t deadline = x->dl_deadline_ns ? x->dl_deadline_ns : x->dl_period_ns;
    const uint64_t period = x->dl_period_ns ? x->dl_period_ns : deadline;
    if (period == 0) return fmt::format("SCHED_DEADLINE {} period is 0: impossible", who);
    if (x->dl_runtime_ns < kDlMinRuntimeNs) {
      return fmt::format(
          "SCHED_DEADLINE {} runtime {} us is below the kernel's minimum of 1.024 us", who,
          us(x->dl_runtime_ns));
    }
    if (x->dl_runtime_ns > period) {
      return fmt::format(
          "SCHED_DEADLINE {} runtime {} us is more than its period {} us: "
          "impossible",
          who, us(x->dl_runtime_ns), us(period));
    }
    if (x->dl_runtime_ns > deadline || deadline > period) {
      return fmt::format(
          "SCHED_DEADLINE {} needs runtime <= deadline <= period (it is {} / {} / "
          "{} us)",
          who, us(x->dl_runtime_ns), us(deadline), us(period));
    }
  }
  if (f.sched_rt_runtime_us == 0) {
    return "SCHED_DEADLINE is impossible: /proc/sys/kernel/sched_rt_runtime_us is 0, which "
           "leaves deadline tasks no bandwidth; set it back to 950000 (sysctl -w "
           "kernel.sched_rt_runtime_us=950000)";
  }
  if (f.sched_rt_runtime_us < 0 || f.sched_rt_period_us <= 0) return "";  // no admission limit

  const auto bw = [](const ThreadTarget& x) {
    const uint64_t period = x.dl_period_ns ? x.dl_period_ns : x.dl_deadline_ns;
    return static_cast<double>(x.dl_runtime_ns) / static_cast<double>(period);
  };
  const int n = std::max(clients, 0);
  const double wanted = bw(t.server) + n * bw(t.client);
  const double share =
      static_cast<double>(f.sched_rt_runtime_us) / static_cast<double>(f.sched_rt_period_us);
  const int ncpus = std::max(f.ncpus, 1);
  const double limit = share * ncpus;
  const double available = limit - f.dl_reserved_cpus;
  if (wanted <= available + 1e-9) return "";
  const std::string reserved =
      f.dl_reserved_cpus > 0
          ? fmt::format(", less {:.3f} held by the kernel's fair servers", f.dl_reserved_cpus)
          : std::string();
  return fmt::format(
      "SCHED_DEADLINE admission control would refuse this: server {}/{} us + {} clients x {}/{} "
      "us (runtime/period) = {:.3f} CPUs, but only {:.3f} are available ({} x {} CPUs from "
      "sched_rt_runtime_us {} / sched_rt_period_us {}{}; other deadline tasks count too); use "
      "fewer clients, a longer period or a smaller runtime",
      us(t.server.dl_runtime_ns), us(t.server.dl_period_ns), n, us(t.client.dl_runtime_ns),
      us(t.client.dl_period_ns), wanted, available, share, ncpus, f.sched_rt_runtime_us,
      f.sched_rt_period_us, reserved);
}

std::string check_rt_throttle(const PolicySpec& p, const SchedFacts& f) {
  if (!f.cgroup_v1_cpu_rt) {
    return "rt-throttle needs RT group scheduling on cgroup v1, but "
           "/sys/fs/cgroup/cpu/cpu.rt_runtime_us does not exist or is not writable here: it "
           "needs a kernel with CONFIG_RT_GROUP_SCHED, the cgroup-v1 cpu controller mounted at "
           "/sys/fs/cgroup/cpu, and root (cgroup v2 has no RT bandwidth per group); use another "
           "policy";
  }
  if (f.sched_rt_runtime_us >= 0 && f.sched_rt_period_us > 0) {
    const double system_pct = 100.0 * static_cast<double>(f.sched_rt_runtime_us) /
                              static_cast<double>(f.sched_rt_period_us);
    if (p.throttle_pct > system_pct + 1e-9) {
      return fmt::format(
          "rt-throttle PCT {} is more RT bandwidth than the whole system has ({}% = "
          "sched_rt_runtime_us {} / sched_rt_period_us {}); use PCT <= {}",
          p.throttle_pct, system_pct, f.sched_rt_runtime_us, f.sched_rt_period_us, system_pct);
    }
  }
  return "";
}

}  // namespace

std::string check_policy(const PolicySpec& p, const PolicyTargets& t, int clients,
                         const SchedFacts& f) {
  if (p.kind == PolicyKind::kIso && !f.iso_supported) {
    return "this kernel has no SCHED_ISO (policy 4 is rejected with EINVAL; it exists only in "
           "-ck/BFS/MuQSS kernels); use --policy iso-emu[:ISO_CPU] for an emulation";
  }
  if (p.kind == PolicyKind::kRtThrottle) {
    if (f.sched_rt_runtime_us != 0) {  // 0 is explained by check_rt below
      if (std::string why = check_rt_throttle(p, f); !why.empty()) return why;
    }
  }
  if (is_rt(t.server) || is_rt(t.client)) {
    if (std::string why = check_rt(p, t, f); !why.empty()) return why;
  }
  if (std::string why = check_nice(t, f); !why.empty()) return why;
  if (t.server.policy == kSchedDeadline || t.client.policy == kSchedDeadline) {
    if (std::string why = check_deadline(t, clients, f); !why.empty()) return why;
  }
  return "";
}

bool probe_sched_iso() {
  bool accepted = false;
  try {
    std::thread probe([&accepted] {
      sched_param sp{};
      sp.sched_priority = 0;
      accepted = sched_setscheduler(0, kSchedIso, &sp) == 0;
    });
    probe.join();
  } catch (const std::system_error&) {
    return false;
  }
  return accepted;
}

std::optional<bool> parse_cap_sys_nice(std::string_view proc_self_status) {
  const auto hex = key_value(proc_self_status, "CapEff");
  if (!hex) return std::nullopt;
  const auto caps = parse_number<uint64_t>(*hex, 16);
  if (!caps) return std::nullopt;
  return ((*caps >> kCapSysNiceBit) & 1) != 0;
}

std::optional<std::string> cgroup_v1_cpu_dir(std::string_view proc_self_cgroup,
                                             std::string_view mountinfo) {
  const std::optional<std::string> group = cgroup_v1_cpu_group(proc_self_cgroup);
  if (!group || group->empty() || group->front() != '/') return std::nullopt;

  for (std::string_view line : lines(mountinfo)) {
    const size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    const std::vector<std::string_view> pre = split(line.substr(0, dash), ' ');
    const std::vector<std::string_view> post = split(line.substr(dash + 3), ' ');
    if (pre.size() < 5 || post.size() < 3) continue;
    if (post[0] != "cgroup" || !has_token(post[2], "cpu")) continue;
    const std::string root = unescape_octal(pre[3]);
    const std::string mount_point = unescape_octal(pre[4]);
    std::string rel;
    if (root == "/") {
      rel = *group;
    } else if (*group == root) {
      rel = "";
    } else if (group->compare(0, root.size() + 1, root + "/") == 0) {
      rel = group->substr(root.size());
    } else {
      continue;  // this mount does not show our group
    }
    if (rel == "/") rel.clear();
    return mount_point + rel;
  }
  return std::nullopt;
}

double fair_server_reserved_cpus(std::string_view kernel_release, int ncpus) {
  const std::vector<std::string_view> parts = split(kernel_release, '.');
  if (parts.size() < 2) return 0;
  const auto major = parse_number<int>(parts[0]);
  std::string_view minor_text = parts[1];
  size_t digits = 0;
  while (digits < minor_text.size() && minor_text[digits] >= '0' && minor_text[digits] <= '9') {
    ++digits;
  }
  const auto minor = parse_number<int>(minor_text.substr(0, digits));
  if (!major || !minor) return 0;
  const bool has_fair_server = *major > 6 || (*major == 6 && *minor >= 12);
  return has_fair_server ? 0.05 * std::max(ncpus, 1) : 0;
}

SchedFacts collect_sched_facts(const std::string& root) {
  SchedFacts f;
  f.euid = geteuid();
  const auto status = read_file(root + "/proc/self/status");
  const auto cap = status ? parse_cap_sys_nice(*status) : std::nullopt;
  f.cap_sys_nice = cap.value_or(f.euid == 0);
  f.rlimit_rtprio = rlimit_value(RLIMIT_RTPRIO);
  f.rlimit_nice = rlimit_value(RLIMIT_NICE);
  if (const auto v = read_number(root + kRtRuntimeFile)) f.sched_rt_runtime_us = *v;
  if (const auto v = read_number(root + kRtPeriodFile)) f.sched_rt_period_us = *v;

  const auto cgroup = read_file(root + "/proc/self/cgroup");
  const auto mountinfo = read_file(root + "/proc/self/mountinfo");
  if (cgroup && mountinfo) {
    if (const auto dir = cgroup_v1_cpu_dir(*cgroup, *mountinfo)) {
      f.cgroup_rt_runtime_us = read_number(root + *dir + "/cpu.rt_runtime_us");
    }
  }
  f.iso_supported = probe_sched_iso();
  // What sysconf(_SC_NPROCESSORS_ONLN) reads, read here so that a test root can say it.
  const auto online = read_file(root + kOnlineCpus);
  const std::vector<int> cpus = online ? parse_cpu_list(*online) : std::vector<int>{};
  if (!cpus.empty()) {
    f.ncpus = static_cast<int>(cpus.size());
  } else {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    f.ncpus = n > 0 ? static_cast<int>(n) : 1;
  }
  f.cgroup_v1_cpu_rt = faccessat(AT_FDCWD, (root + kCgroupV1CpuRt).c_str(), W_OK, AT_EACCESS) == 0;

  if (const auto servers = read_fair_servers(root, f.ncpus)) {
    f.dl_reserved_cpus = *servers;
  } else if (const auto release = read_first_line(root + kOsRelease)) {
    f.dl_reserved_cpus = fair_server_reserved_cpus(*release, f.ncpus);  // what uname -r says
  } else {
    utsname u{};
    if (uname(&u) == 0) f.dl_reserved_cpus = fair_server_reserved_cpus(u.release, f.ncpus);
  }
  return f;
}

std::string check_realtime_permission(int priority) {
  std::string why;
  std::thread probe([&] {
    sched_param sp{};
    sp.sched_priority = priority;
    const int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (rc != 0) why = errno_text(rc);
  });
  probe.join();
  if (why.empty()) return "";
  rlimit rl{};
  getrlimit(RLIMIT_RTPRIO, &rl);
  return fmt::format(
      "SCHED_FIFO priority {} is not permitted ({}; RLIMIT_RTPRIO is {}): add your user to the "
      "'audio' group with '@audio - rtprio 95' in /etc/security/limits.d/, log in again, or "
      "run with --priority 0 (no realtime)",
      priority, why, rl.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(rl.rlim_cur));
}

}  // namespace xrunlab
