// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/rt_throttle.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/proc_cgroup.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {

namespace {

// /proc/self/mounts writes space, tab, newline and backslash in paths as \040 \011 \012 \134.
std::string unescape_mount_path(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string join_group(const std::string& root, const std::string& group) {
  if (group.empty() || group == "/") return root;
  return root + (group[0] == '/' ? "" : "/") + group;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos || slash == 0 ? "/" : path.substr(0, slash);
}

// Where the cgroup-v1 cpu controller is mounted, from /proc/self/mounts text; "" if nowhere.
// *have_v2 (may be null) tells whether a cgroup2 is mounted.
std::string cgroup_v1_cpu_root(std::string_view mounts, bool* have_v2) {
  std::string root;
  for (std::string_view line : lines(mounts)) {
    std::istringstream fields{std::string(line)};
    std::string device, mount_point, type, options;
    if (!(fields >> device >> mount_point >> type >> options)) continue;
    if (type == "cgroup2" && have_v2 != nullptr) *have_v2 = true;
    if (type != "cgroup" || !root.empty()) continue;
    for (std::string_view opt : split(options, ',')) {
      if (opt == "cpu") root = unescape_mount_path(mount_point);
    }
  }
  return root;
}

std::string percent(double share) {
  std::ostringstream out;
  out.precision(3);
  out << share * 100.0 << "%";
  return out.str();
}

// The RT share (runtime / period) a group's knobs give; -1 runtime = unlimited.
std::optional<double> rt_share(const std::string& group) {
  const auto runtime = read_number(group + "/cpu.rt_runtime_us");
  const auto period = read_number(group + "/cpu.rt_period_us");
  if (!runtime || !period || *period <= 0) return std::nullopt;
  if (*runtime < 0) return 1.0;
  return static_cast<double>(*runtime) / static_cast<double>(*period);
}

// What a parent group has left for `group`: its own share minus its other children's.
struct ParentBudget {
  std::string parent;
  long long runtime = 0, period = 0;
  double share = 0, others = 0;
};

std::optional<ParentBudget> parent_budget(const std::string& group) {
  ParentBudget b;
  b.parent = dir_of(group);
  const auto runtime = read_number(b.parent + "/cpu.rt_runtime_us");
  const auto period = read_number(b.parent + "/cpu.rt_period_us");
  const auto share = rt_share(b.parent);
  if (!runtime || !period || !share) return std::nullopt;
  b.runtime = *runtime;
  b.period = *period;
  b.share = *share;
  if (DIR* d = ::opendir(b.parent.c_str())) {
    while (const dirent* ent = ::readdir(d)) {
      const std::string name = ent->d_name;
      const std::string child = b.parent + "/" + name;
      struct stat st {};
      if (name == "." || name == ".." || child == group || ::stat(child.c_str(), &st) != 0 ||
          !S_ISDIR(st.st_mode)) {
        continue;
      }
      if (const auto s = rt_share(child); s && *s > 0) b.others += *s;
    }
    ::closedir(d);
  }
  return b;
}

// The kernel refused a runtime although the groups one can see leave room for it: a group
// removed moments ago keeps its RT share until the kernel frees it (some ms after rmdir).
bool refusal_unexplained(const std::string& group, long long runtime, uint64_t period) {
  const auto b = parent_budget(group);
  if (!b || b->runtime == 0) return false;
  const double wanted = static_cast<double>(runtime) / static_cast<double>(period);
  return b->others + wanted <= b->share + 1e-9;
}

// Why the kernel refused a runtime of `runtime` per `period` for `group`: the RT shares of a
// group's children must fit in the group's own share, and the parent's runtime must be > 0.
std::string explain_runtime_refusal(const std::string& group, long long runtime, uint64_t period,
                                    int err) {
  std::ostringstream why;
  why << "the kernel refused cpu.rt_runtime_us " << runtime << " of cpu.rt_period_us " << period
      << " for " << group << " (" << errno_text(err) << ")";
  if (err == EBUSY) {
    why << ": the group has realtime tasks and a runtime of 0 would starve them";
    return why.str();
  }
  if (err != EINVAL) return why.str();
  const auto b = parent_budget(group);
  if (!b) {
    why << ": a group's RT share must fit in its parent's (" << dir_of(group) << ")";
    return why.str();
  }
  if (b->runtime == 0) {
    why << ": the parent group " << b->parent
        << " has cpu.rt_runtime_us 0, so no child can get RT time; give it RT time first";
    return why.str();
  }
  why << ": a group's RT share must fit in what its parent has left (parent " << b->parent
      << ": runtime " << b->runtime << " of period " << b->period << " = " << percent(b->share)
      << ", other groups in it take " << percent(b->others) << ", "
      << percent(std::max(0.0, b->share - b->others)) << " left";
  if (refusal_unexplained(group, runtime, period)) {
    why << "; groups removed moments ago may still hold theirs";
  }
  why << "); ask for less";
  return why.str();
}

}  // namespace

RtThrottleSupport detect_rt_throttle(const std::string& proc_self_cgroup,
                                     const std::string& mounts) {
  RtThrottleSupport s;
  const auto mount_text = read_file(mounts);
  if (!mount_text) {
    s.why = "cannot read " + mounts + " to find the cgroup v1 cpu controller";
    return s;
  }
  bool have_v2 = false;
  s.cpu_root = cgroup_v1_cpu_root(*mount_text, &have_v2);
  if (s.cpu_root.empty()) {
    s.why = have_v2
                ? "cgroup v2 only: it has no RT bandwidth per group (cpu.rt_runtime_us exists "
                  "only in the cgroup v1 cpu controller); rt-throttle needs a v1 cpu hierarchy, "
                  "e.g. boot with systemd.unified_cgroup_hierarchy=0"
                : "no cgroup v1 cpu controller is mounted (" + mounts +
                      " lists no cgroup with the cpu option); mount one, e.g. "
                      "mount -t cgroup -o cpu cpu /sys/fs/cgroup/cpu";
    return s;
  }
  const auto cgroup_text = read_file(proc_self_cgroup);
  if (!cgroup_text) {
    s.why = "cannot read " + proc_self_cgroup + " to find this process's cpu group";
    return s;
  }
  const std::optional<std::string> group = cgroup_v1_cpu_group(*cgroup_text);
  if (!group) {
    s.why = proc_self_cgroup + " names no cgroup v1 cpu group for this process";
    return s;
  }
  s.current_group = *group;
  const std::string group_dir = join_group(s.cpu_root, s.current_group);
  const std::string runtime_file = group_dir + "/cpu.rt_runtime_us";
  struct stat st {};
  if (::stat(group_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    s.why = "this process's cpu group " + s.current_group + " is not visible as " + group_dir +
            " (a cgroup namespace, or a sub-hierarchy mounted there?)";
    return s;
  }
  if (::access(runtime_file.c_str(), F_OK) != 0) {
    s.why =
        "this kernel has no RT group scheduling (built without CONFIG_RT_GROUP_SCHED, or "
        "it is switched off at boot): " +
        group_dir + " has no cpu.rt_runtime_us";
    return s;
  }
  if (::access(runtime_file.c_str(), W_OK) != 0 || ::access(group_dir.c_str(), W_OK) != 0) {
    s.why = "cannot write " + runtime_file + " or create a group in " + group_dir + " (" +
            errno_text(errno) + "): run as root or delegate the group to this user";
    return s;
  }
  const auto runtime = read_number(runtime_file);
  if (!runtime) {
    s.why = "cannot read a number from " + runtime_file;
    return s;
  }
  if (*runtime == 0) {
    s.why = group_dir +
            " has cpu.rt_runtime_us 0: a group made in it could get no RT time; give it RT "
            "time first (or run xrunlab from a group that has some)";
    return s;
  }
  s.available = true;
  return s;
}

std::string RtThrottleGroup::create(SysJournal& journal, const RtThrottleSupport& s, double pct,
                                    uint64_t period_us) {
  if (!s.available) throw Error(ExitCode::kRunFailed, "rt-throttle is not available: " + s.why);
  if (!path_.empty()) {
    throw Error(ExitCode::kRunFailed, "the rt-throttle group " + path_ + " exists already");
  }
  if (!std::isfinite(pct) || pct <= 0.0 || pct > 100.0) {
    throw Error(ExitCode::kUsage, "rt-throttle: PCT must be above 0 and at most 100");
  }
  if (period_us < 1000 || period_us > 1000000000) {
    throw Error(ExitCode::kUsage,
                "rt-throttle: PERIOD_US must be between 1000 and 1000000000 (microseconds)");
  }
  const auto runtime =
      static_cast<long long>(std::llround(static_cast<double>(period_us) * pct / 100.0));
  if (runtime < 1) {
    throw Error(ExitCode::kUsage, "rt-throttle: PCT of PERIOD_US is less than 1 microsecond");
  }
  const std::string group =
      join_group(s.cpu_root, s.current_group) + "/xrunlab-" + std::to_string(::getpid());
  journal.make_dir(group);
  path_ = group;
  try {
    journal.write_setting(group + "/cpu.rt_period_us", std::to_string(period_us));
  } catch (const SysChangeError& e) {
    if (e.error_number() != EINVAL) throw;
    throw SysChangeError(
        std::string(e.what()) + " (the period must be above 0 and at least the group's runtime)",
        EINVAL);
  }
  // A refusal that the visible groups do not explain comes from a group removed moments ago
  // (its share is freed some ms after rmdir): try again for up to a second.
  for (int attempt = 0;; ++attempt) {
    try {
      journal.write_setting(group + "/cpu.rt_runtime_us", std::to_string(runtime));
      break;
    } catch (const SysChangeError& e) {
      if (e.error_number() == EINVAL && attempt < 100 &&
          refusal_unexplained(group, runtime, period_us)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      if (e.error_number() != EINVAL && e.error_number() != EBUSY) throw;
      throw SysChangeError(explain_runtime_refusal(group, runtime, period_us, e.error_number()),
                           e.error_number());
    }
  }
  std::ostringstream line;
  line << "created the cgroup " << group << ": realtime tasks in it may run " << runtime
       << " us of every " << period_us << " us (" << pct << "% of each CPU)";
  return line.str();
}

std::string RtThrottleGroup::add_process(pid_t pid) {
  if (path_.empty()) {
    throw Error(ExitCode::kRunFailed, "add_process before the rt-throttle group was created");
  }
  const std::string procs = path_ + "/cgroup.procs";
  const std::string text = std::to_string(pid);
  int err = 0;
  const int fd = ::open(procs.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    err = errno;
  } else {
    ssize_t n;
    do {
      n = ::write(fd, text.data(), text.size());  // the kernel checks the pid here
    } while (n < 0 && errno == EINTR);
    err = n < 0 ? errno : 0;
    ::close(fd);
  }
  if (err == 0) return "moved pid " + text + " (all its threads) into " + path_;
  std::string why = "cannot move pid " + std::to_string(pid) + " into the cgroup " + path_ + " (" +
                    errno_text(err) + ")";
  if (err == EINVAL) {
    why += ": a process with realtime threads can only join a group whose cpu.rt_runtime_us > 0";
  } else if (err == ESRCH) {
    why += ": no such process";
  }
  throw Error(ExitCode::kRunFailed, why);
}

bool cgroup_in_group(std::string_view proc_pid_cgroup, const std::string& cpu_root,
                     const std::string& group_path) {
  const std::optional<std::string> group = cgroup_v1_cpu_group(proc_pid_cgroup);
  if (!group || cpu_root.empty()) return false;
  return join_group(cpu_root, *group) == group_path;
}

bool in_cgroup(pid_t pid, const std::string& group_path) {
  const auto mounts = read_file("/proc/self/mounts");
  const auto cgroup = read_file("/proc/" + std::to_string(pid) + "/cgroup");
  if (!mounts || !cgroup) return false;
  return cgroup_in_group(*cgroup, cgroup_v1_cpu_root(*mounts, nullptr), group_path);
}

}  // namespace xrunlab
