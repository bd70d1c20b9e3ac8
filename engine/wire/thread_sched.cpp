// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/thread_sched.hpp"

#include <dirent.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string_view>

#include "engine/base/errno_text.hpp"
#include "engine/base/file.hpp"
#include "engine/base/proc_cgroup.hpp"
#include "engine/base/proc_pid_stat.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

// struct sched_attr with the kernel's layout (include/uapi/linux/sched/types.h,
// SCHED_ATTR_SIZE_VER1). glibc 2.36 has no sched_getattr/sched_setattr wrapper;
// <linux/sched/types.h> does have the struct, but (linux-libc-dev 6.1) it also redefines struct
// sched_param and cannot be included next to <sched.h>. Glibc 2.41+ declares its own ::sched_attr;
// this one lives in xrunlab's anonymous namespace, so the two never clash.
struct SchedAttr {
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;       // SCHED_OTHER, SCHED_BATCH
  uint32_t sched_priority;  // SCHED_FIFO, SCHED_RR
  uint64_t sched_runtime;   // SCHED_DEADLINE (fair classes on 6.12+: the slice)
  uint64_t sched_deadline;
  uint64_t sched_period;
  uint32_t sched_util_min;
  uint32_t sched_util_max;
};
static_assert(sizeof(SchedAttr) == 56, "struct sched_attr is 56 bytes (SCHED_ATTR_SIZE_VER1)");
static_assert(offsetof(SchedAttr, sched_flags) == 8 && offsetof(SchedAttr, sched_nice) == 16 &&
                  offsetof(SchedAttr, sched_runtime) == 24 &&
                  offsetof(SchedAttr, sched_util_min) == 48,
              "struct sched_attr field offsets must match the kernel's");

constexpr uint64_t kDlFlagsChecked = 0x02 | 0x04;  // SCHED_FLAG_RECLAIM | SCHED_FLAG_DL_OVERRUN
constexpr int kCapSysNice = 23;

int sys_sched_getattr(pid_t tid, SchedAttr* attr) {
  return static_cast<int>(
      syscall(SYS_sched_getattr, tid, attr, static_cast<unsigned>(sizeof(*attr)), 0u));
}

int sys_sched_setattr(pid_t tid, SchedAttr* attr) {
  return static_cast<int>(syscall(SYS_sched_setattr, tid, attr, 0u));
}

// Value of "Key:" in /proc/.../status, or "".
std::string status_field(const std::string& path, std::string_view key) {
  const std::string text = read_file(path).value_or("");
  return std::string(key_value(text, key).value_or(""));
}

bool have_cap_sys_nice() {
  const std::string hex = status_field("/proc/self/status", "CapEff");
  if (hex.empty()) return geteuid() == 0;
  const unsigned long long caps = std::strtoull(hex.c_str(), nullptr, 16);
  return ((caps >> kCapSysNice) & 1u) != 0;
}

}  // namespace

std::optional<std::vector<int>> read_affinity(pid_t tid) {
  for (int ncpus = 1024; ncpus <= (1 << 20); ncpus *= 2) {
    cpu_set_t* set = CPU_ALLOC(ncpus);
    if (set == nullptr) return std::nullopt;
    const size_t size = CPU_ALLOC_SIZE(ncpus);
    if (sched_getaffinity(tid, size, set) == 0) {
      std::vector<int> cpus;
      for (int c = 0; c < ncpus; ++c) {
        if (CPU_ISSET_S(c, size, set)) cpus.push_back(c);
      }
      CPU_FREE(set);
      return cpus;
    }
    const int e = errno;
    CPU_FREE(set);
    if (e != EINVAL) {
      errno = e;
      return std::nullopt;
    }
  }
  errno = EINVAL;
  return std::nullopt;
}

namespace {

std::string signed_nice(int nice) {
  return nice > 0 ? fmt::format("+{}", nice) : fmt::format("{}", nice);
}

std::string format_us(uint64_t ns) {
  if (ns % 1000 == 0) return fmt::format("{}", ns / 1000);
  return fmt::format("{}.{:03}", ns / 1000, ns % 1000);
}

bool is_rt(int policy) {
  return policy == kSchedFifo || policy == kSchedRr;
}
bool is_fair_with_nice(int policy) {
  return policy == kSchedOther || policy == kSchedBatch;
}

// SCHED_DEADLINE: deadline 0 -> period, period 0 -> deadline.
ThreadTarget normalised(ThreadTarget t) {
  if (t.policy == kSchedDeadline) {
    if (t.dl_deadline_ns == 0) t.dl_deadline_ns = t.dl_period_ns;
    if (t.dl_period_ns == 0) t.dl_period_ns = t.dl_deadline_ns;
  }
  return t;
}

std::string describe(int policy, int rt_priority, int nice, uint64_t runtime, uint64_t deadline,
                     uint64_t period, uint64_t flags) {
  if (is_rt(policy)) return fmt::format("{} {}", policy_name(policy), rt_priority);
  if (is_fair_with_nice(policy)) {
    return fmt::format("{} nice {}", policy_name(policy), signed_nice(nice));
  }
  if (policy == kSchedDeadline) {
    return fmt::format("{} {}/{}/{} us{}", policy_name(policy), format_us(runtime),
                       format_us(deadline), format_us(period),
                       (flags & kSchedFlagReclaim) != 0 ? " reclaim" : "");
  }
  return policy_name(policy);
}

std::string describe(const ThreadTarget& t) {
  return describe(t.policy, t.rt_priority, t.nice, t.dl_runtime_ns, t.dl_deadline_ns,
                  t.dl_period_ns, t.dl_flags);
}

std::string describe(const ThreadSched& s) {
  return describe(s.policy, s.rt_priority, s.nice, s.dl_runtime_ns, s.dl_deadline_ns,
                  s.dl_period_ns, s.flags);
}

// "thread jackd/jackd (pid 1234 tid 1240)", from /proc/TID (works for any tid).
std::string thread_label(pid_t tid) {
  const std::string dir = fmt::format("/proc/{}", tid);
  const auto comm = read_first_line(dir + "/comm");
  const std::string tgid = status_field(dir + "/status", "Tgid");
  if (!comm || tgid.empty()) return fmt::format("thread tid {}", tid);
  const auto pcomm = read_first_line(fmt::format("/proc/{}/comm", tgid));
  return fmt::format("thread {}/{} (pid {} tid {})", pcomm.value_or("?"), *comm, tgid, tid);
}

// The cpu controller's group of `tid` (cgroup v1 "N:cpu,cpuacct:/path" or v2 "0::/path").
std::string cpu_cgroup(pid_t tid) {
  const std::string text = read_file(fmt::format("/proc/{}/cgroup", tid)).value_or("");
  return cgroup_v1_cpu_group(text).value_or(cgroup_v2_group(text).value_or(""));
}

// " (now N)" from the soft limit `name` in /proc/TID/limits, or "" if unreadable.
std::string rlimit_now(pid_t tid, const std::string& name) {
  const std::string text = read_file(fmt::format("/proc/{}/limits", tid)).value_or("");
  for (std::string_view line : lines(text)) {
    if (!starts_with(line, name)) continue;
    std::istringstream fields{std::string(line.substr(name.size()))};
    std::string soft;
    fields >> soft;
    return soft.empty() ? std::string() : fmt::format(" (now {})", soft);
  }
  return "";
}

std::string advice_eperm(pid_t tid, const ThreadTarget& t) {
  const bool cap = have_cap_sys_nice();
  if (t.policy == kSchedDeadline) {
    if (!cap) {
      return "SCHED_DEADLINE needs root or CAP_SYS_NICE (rtprio limits do not apply to it)";
    }
    const auto rt_runtime = read_number("/proc/sys/kernel/sched_rt_runtime_us");
    if (rt_runtime && *rt_runtime == 0) {
      return "no bandwidth is available to deadline tasks: /proc/sys/kernel/sched_rt_runtime_us "
             "is 0; set it to e.g. 950000";
    }
    const auto online = read_first_line("/sys/devices/system/cpu/online");
    const auto mine = read_affinity(tid);
    if (online && mine) {
      const std::vector<int> all = parse_cpu_list(*online);
      if (!std::includes(mine->begin(), mine->end(), all.begin(), all.end())) {
        return fmt::format(
            "the thread's CPU affinity ({}) is narrower than its root domain (online CPUs {}): "
            "SCHED_DEADLINE needs the whole root domain; widen the affinity (or use an exclusive "
            "cpuset partition) before setting the class",
            format_cpu_list(*mine), *online);
      }
    }
    return "refused although this process has CAP_SYS_NICE: the thread's affinity may not span "
           "its root domain, or it belongs to another user namespace";
  }
  if (is_rt(t.policy)) {
    if (!cap) {
      return fmt::format(
          "needs root or CAP_SYS_NICE, or an RLIMIT_RTPRIO of at least {}{} for the process "
          "(e.g. '@audio - rtprio 95' in /etc/security/limits.d/, user in group audio, log in "
          "again)",
          t.rt_priority, rlimit_now(tid, "Max realtime priority"));
    }
    const std::string group = cpu_cgroup(tid);
    return fmt::format(
        "refused although this process has CAP_SYS_NICE: the thread's cgroup{} probably has no "
        "RT runtime (RT group scheduling: set its cpu.rt_runtime_us above 0, or move the thread "
        "to the root group)",
        group.empty() ? "" : " " + group);
  }
  if (!cap) {
    if (is_fair_with_nice(t.policy) && t.nice < 0) {
      return fmt::format(
          "lowering nice needs root or CAP_SYS_NICE, or an RLIMIT_NICE of at least {}{} (e.g. "
          "'@audio - nice {}' in /etc/security/limits.d/, log in again)",
          20 - t.nice, rlimit_now(tid, "Max nice priority"), t.nice);
    }
    return "needs root or CAP_SYS_NICE (or a thread of the same user with a high enough nice "
           "limit)";
  }
  return "refused although this process has CAP_SYS_NICE (the thread may belong to another user "
         "namespace)";
}

std::string advice_einval(const ThreadTarget& t) {
  if (t.policy == kSchedIso) {
    return "this kernel has no SCHED_ISO (policy 4 exists only in -ck/BFS/MuQSS kernels; "
           "mainline returns EINVAL); use the iso-emu policy for a user-space emulation";
  }
  if (t.policy == kSchedDeadline) {
    const auto lo = read_number("/proc/sys/kernel/sched_deadline_period_min_us");
    const auto hi = read_number("/proc/sys/kernel/sched_deadline_period_max_us");
    std::string range;
    if (lo && hi) range = fmt::format(" (here {}..{} us)", *lo, *hi);
    return fmt::format(
        "SCHED_DEADLINE needs 1024 ns <= runtime <= deadline <= period and a period within "
        "sched_deadline_period_min_us..max_us{}",
        range);
  }
  return "the kernel does not accept this class or its parameters";
}

std::string advice(int e, pid_t tid, const ThreadTarget& t) {
  switch (e) {
    case ESRCH:
      return "the thread does not exist (has it exited?)";
    case EPERM:
      return advice_eperm(tid, t);
    case EBUSY:
      if (t.policy == kSchedDeadline) {
        const auto rt = read_number("/proc/sys/kernel/sched_rt_runtime_us");
        const auto period = read_number("/proc/sys/kernel/sched_rt_period_us");
        std::string limit = "what /proc/sys/kernel/sched_rt_runtime_us allows";
        if (rt && period && *period > 0) {
          limit =
              fmt::format("sched_rt_runtime_us/sched_rt_period_us = {}/{} per CPU", *rt, *period);
        }
        return fmt::format(
            "admission control refused the bandwidth: runtime/period {:.1f} % on top of the "
            "deadline tasks already admitted exceeds {}; lower the runtime, lengthen the period "
            "or raise sched_rt_runtime_us",
            t.dl_period_ns == 0 ? 0.0
                                : 100.0 * static_cast<double>(t.dl_runtime_ns) /
                                      static_cast<double>(t.dl_period_ns),
            limit);
      }
      return "the kernel is busy with this thread's scheduling (try again)";
    case EINVAL:
      return advice_einval(t);
    default:
      return "unexpected error from sched_setattr";
  }
}

}  // namespace

std::string policy_name(int policy) {
  switch (policy) {
    case kSchedOther:
      return "SCHED_OTHER";
    case kSchedFifo:
      return "SCHED_FIFO";
    case kSchedRr:
      return "SCHED_RR";
    case kSchedBatch:
      return "SCHED_BATCH";
    case kSchedIso:
      return "SCHED_ISO";
    case kSchedIdle:
      return "SCHED_IDLE";
    case kSchedDeadline:
      return "SCHED_DEADLINE";
    default:
      return fmt::format("policy {}", policy);
  }
}

std::optional<ThreadSched> read_thread_sched(pid_t pid, pid_t tid, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<ThreadSched> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  if (pid <= 0 || tid <= 0) return fail(fmt::format("invalid pid {} / tid {}", pid, tid));
  ThreadSched s;
  s.pid = pid;
  s.tid = tid;
  const std::string task = fmt::format("/proc/{}/task/{}", pid, tid);
  const auto thread = read_first_line(task + "/comm");
  if (!thread) {
    return fail(fmt::format("no thread {} in process {} ({}: {})", tid, pid, task,
                            errno_text_named(errno)));
  }
  s.thread = *thread;
  s.process = read_first_line(fmt::format("/proc/{}/comm", pid)).value_or("?");

  SchedAttr attr{};
  attr.size = sizeof attr;
  if (sys_sched_getattr(tid, &attr) != 0) {
    return fail(fmt::format("sched_getattr of thread {}/{} (pid {} tid {}): {}", s.process,
                            s.thread, pid, tid, errno_text_named(errno)));
  }
  s.policy = static_cast<int>(attr.sched_policy);
  s.flags = attr.sched_flags;
  if (is_rt(s.policy)) s.rt_priority = static_cast<int>(attr.sched_priority);
  if (s.policy == kSchedDeadline) {
    s.dl_runtime_ns = attr.sched_runtime;
    s.dl_deadline_ns = attr.sched_deadline;
    s.dl_period_ns = attr.sched_period;
  }
  // sched_getattr reports sched_nice only for the fair classes; the nice value itself is kept
  // by RT and deadline threads too and returns when they go back to SCHED_OTHER.
  errno = 0;
  const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(tid));
  if (nice == -1 && errno != 0) {
    return fail(fmt::format("getpriority of thread {}/{} (pid {} tid {}): {}", s.process, s.thread,
                            pid, tid, errno_text_named(errno)));
  }
  s.nice = nice;

  const auto cpus = read_affinity(tid);
  if (!cpus) {
    return fail(fmt::format("sched_getaffinity of thread {}/{} (pid {} tid {}): {}", s.process,
                            s.thread, pid, tid, errno_text_named(errno)));
  }
  s.cpus = *cpus;
  if (const auto stat = read_proc_pid_stat(pid, tid)) {
    s.last_cpu = stat->processor;
    s.minor_faults = static_cast<int64_t>(stat->minflt);
    s.major_faults = static_cast<int64_t>(stat->majflt);
  }
  return s;
}

std::vector<pid_t> list_threads(pid_t pid) {
  std::vector<pid_t> tids;
  if (pid <= 0) return tids;
  DIR* dir = opendir(fmt::format("/proc/{}/task", pid).c_str());
  if (dir == nullptr) return tids;
  while (const dirent* e = readdir(dir)) {
    char* end = nullptr;
    const long v = std::strtol(e->d_name, &end, 10);
    if (end != e->d_name && *end == '\0' && v > 0) tids.push_back(static_cast<pid_t>(v));
  }
  closedir(dir);
  std::sort(tids.begin(), tids.end());
  return tids;
}

int set_thread_sched(pid_t tid, const ThreadTarget& target) {
  const ThreadTarget t = normalised(target);
  SchedAttr attr{};
  attr.size = sizeof attr;
  attr.sched_policy = static_cast<uint32_t>(t.policy);
  if (is_rt(t.policy)) {
    attr.sched_priority = static_cast<uint32_t>(t.rt_priority);
  } else if (t.policy == kSchedDeadline) {
    attr.sched_flags = t.dl_flags;
    attr.sched_runtime = t.dl_runtime_ns;
    attr.sched_deadline = t.dl_deadline_ns;
    attr.sched_period = t.dl_period_ns;
  } else {
    // Fair classes (and policy 4 where it exists). sched_runtime stays 0: on 6.12+ kernels it
    // would request a custom slice for these classes.
    attr.sched_nice = t.nice;
  }
  return sys_sched_setattr(tid, &attr) == 0 ? 0 : errno;
}

std::string apply_thread_sched(pid_t tid, const ThreadTarget& target) {
  const ThreadTarget t = normalised(target);
  if (tid <= 0) return fmt::format("cannot set tid {} to {}: not a thread id", tid, describe(t));
  if (is_rt(t.policy) && (t.rt_priority < 1 || t.rt_priority > 99)) {
    return fmt::format("cannot set {} to {}: the priority must be 1..99", thread_label(tid),
                       describe(t));
  }
  if (t.nice < -20 || t.nice > 19) {
    return fmt::format("cannot set {} to {}: nice must be -20..19 (a signed number)",
                       thread_label(tid), describe(t));
  }

  const int e = set_thread_sched(tid, t);
  if (e == 0) return "";
  return fmt::format("cannot set {} to {}: {}; {}", thread_label(tid), describe(t),
                     errno_text_named(e), advice(e, tid, t));
}

std::string check_thread_sched(const ThreadSched& s, const ThreadTarget& target) {
  const ThreadTarget t = normalised(target);
  bool same = s.policy == t.policy;
  if (same && is_rt(t.policy)) same = s.rt_priority == t.rt_priority;
  if (same && is_fair_with_nice(t.policy)) same = s.nice == t.nice;
  if (same && t.policy == kSchedDeadline) {
    same = s.dl_runtime_ns == t.dl_runtime_ns && s.dl_deadline_ns == t.dl_deadline_ns &&
           s.dl_period_ns == t.dl_period_ns &&
           (s.flags & kDlFlagsChecked) == (t.dl_flags & kDlFlagsChecked);
  }
  if (same) return "";
  return fmt::format("{}, expected {}", describe(s), describe(t));
}

std::string format_thread_line(const ThreadSched& s) {
  std::string sched;
  if (s.policy == kSchedDeadline) {
    sched = fmt::format("{} runtime/deadline/period {}/{}/{} us{}", policy_name(s.policy),
                        format_us(s.dl_runtime_ns), format_us(s.dl_deadline_ns),
                        format_us(s.dl_period_ns),
                        (s.flags & kSchedFlagReclaim) != 0 ? " reclaim" : "");
  } else {
    sched = fmt::format("{} prio {}", policy_name(s.policy), s.rt_priority);
  }
  return fmt::format("pid {} tid {} {}/{}  {} nice {} cpus {}", s.pid, s.tid, s.process, s.thread,
                     sched, signed_nice(s.nice), format_cpu_list(s.cpus));
}

std::optional<std::vector<int>> parse_cpu_list_checked(std::string_view text, std::string* why) {
  auto fail = [why](const std::string& w) -> std::optional<std::vector<int>> {
    if (why != nullptr) *why = w;
    return std::nullopt;
  };
  // A CPU number: decimal digits only, below kMaxCpuNumber (no sign, no spaces, no hex).
  auto number = [](std::string_view s) -> std::optional<int> {
    if (s.empty() || s.size() > 5) return std::nullopt;
    int v = 0;
    for (const char c : s) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    return v < kMaxCpuNumber ? std::optional<int>(v) : std::nullopt;
  };
  const std::string_view all = trim(text);
  if (all.empty()) return fail("an empty CPU list; give CPU numbers like 0, 0-1 or 0,2-3");
  std::vector<int> cpus;
  for (std::string_view part : split(all, ',')) {
    const std::string bad = fmt::format(
        "'{}' is not a CPU number or range (expected N or N-M, e.g. 0, 0-1 or 0,2-3)", part);
    const auto dash = part.find('-');
    const std::optional<int> lo = number(part.substr(0, dash));
    const std::optional<int> hi =
        dash == std::string_view::npos ? lo : number(part.substr(dash + 1));
    if (!lo || !hi) return fail(bad);
    if (*hi < *lo) return fail(fmt::format("'{}' is a range that runs backwards", part));
    for (int c = *lo; c <= *hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

std::vector<int> parse_cpu_list(std::string_view text) {
  return parse_cpu_list_checked(text, nullptr).value_or(std::vector<int>{});
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[j]);
    i = j + 1;
  }
  return out;
}

nlohmann::json to_json(const ThreadSched& s) {
  return nlohmann::json{{"pid", s.pid},
                        {"tid", s.tid},
                        {"process", s.process},
                        {"thread", s.thread},
                        {"policy", policy_name(s.policy)},
                        {"policy_number", s.policy},
                        {"rt_priority", s.rt_priority},
                        {"nice", s.nice},
                        {"dl_runtime_ns", s.dl_runtime_ns},
                        {"dl_deadline_ns", s.dl_deadline_ns},
                        {"dl_period_ns", s.dl_period_ns},
                        {"flags", s.flags},
                        {"cpus", s.cpus},
                        {"last_cpu", s.last_cpu},
                        {"minor_faults", s.minor_faults},
                        {"major_faults", s.major_faults}};
}

std::optional<pid_t> find_rt_thread(pid_t pid, int priority, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<pid_t> {
    if (why != nullptr) *why = std::move(reason);
    return std::nullopt;
  };
  const std::vector<pid_t> tids = list_threads(pid);
  if (tids.empty()) return fail(fmt::format("process {} does not exist", pid));
  const std::string process =
      read_first_line(fmt::format("/proc/{}/comm", pid)).value_or(std::string("?"));
  std::vector<ThreadSched> matches, other_rt;
  for (const pid_t tid : tids) {
    const auto s = read_thread_sched(pid, tid, nullptr);  // a thread may exit meanwhile
    if (!s || !is_rt(s->policy)) continue;
    (s->rt_priority == priority ? matches : other_rt).push_back(*s);
  }
  if (matches.size() == 1) return matches.front().tid;
  auto list = [](const std::vector<ThreadSched>& v, bool with_class) {
    std::string out;
    for (const auto& s : v) {
      if (!out.empty()) out += ", ";
      out += fmt::format("tid {} ({}{})", s.tid, s.thread,
                         with_class ? " " + describe(s) : std::string());
    }
    return out;
  };
  if (matches.empty()) {
    return fail(fmt::format(
        "no thread of process {} ({}) runs SCHED_FIFO/SCHED_RR at priority {}; {}", pid, process,
        priority,
        other_rt.empty() ? fmt::format("none of its {} threads is realtime", tids.size())
                         : fmt::format("its realtime threads: {}", list(other_rt, true))));
  }
  return fail(
      fmt::format("{} threads of process {} ({}) run SCHED_FIFO/SCHED_RR at priority {}: "
                  "{}; cannot tell which one to use",
                  matches.size(), pid, process, priority, list(matches, true)));
}

}  // namespace xrunlab
