// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/janitor/process_sweep.hpp"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>

#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"

namespace xrunlab {
namespace {

std::set<pid_t> cgroup_tasks(const std::vector<std::string>& cgroups) {
  std::set<pid_t> out;
  for (const std::string& dir : cgroups) {
    std::istringstream in(read_file(dir + "/cgroup.procs").value_or(""));
    long pid = 0;
    while (in >> pid) {
      if (pid > 1) out.insert(static_cast<pid_t>(pid));
    }
  }
  return out;
}

// Has the process of `pidfd` exited (a zombie, or reaped)? Waits up to `timeout` for it.
bool wait_exit(int pidfd, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{pidfd, POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
    if (n == 1) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

bool exited(int pidfd) {
  return wait_exit(pidfd, std::chrono::milliseconds(0));
}

// Is `pid` (not a zombie) the process that started at `start_time`?
bool alive_and_same(pid_t pid, uint64_t start_time) {
  const auto st = read_proc_pid_stat(pid);
  return st && st->state != 'Z' && st->state != 'X' && st->starttime == start_time;
}

// A process of the run, once taken: held by a pidfd, or (no descriptor left) by pid and start
// time, checked again before each signal.
struct Taken {
  int pidfd = -1;
  bool own_fd = false;  // opened here (closed at the end), not a root's
  uint64_t start_time = 0;
};

}  // namespace

bool pidfd_signal(int pidfd, int sig) {
  return ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0;
}

int open_pidfd(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
}

int open_pidfd_of(pid_t pid, uint64_t start_time, int* error) {
  if (error != nullptr) *error = ESRCH;
  if (pid <= 1 || start_time == 0) return -1;
  const int fd = open_pidfd(pid);
  if (fd < 0) {
    if (error != nullptr) *error = errno;
    return -1;
  }
  // The pidfd holds the process that had `pid` when it was opened. Read after that, the start
  // time is this process's if the process is still there (not reaped: a zombie keeps its pid)
  // after the read: a reaped process's pid could have been given to another meanwhile.
  const auto st = read_proc_pid_stat(pid);
  if (!st || st->starttime != start_time || !pidfd_signal(fd, 0)) {
    ::close(fd);
    return -1;
  }
  if (error != nullptr) *error = 0;
  return fd;
}

std::set<pid_t> run_members(const std::vector<ProcRow>& table, const std::set<pid_t>& roots,
                            const std::set<pid_t>& taken, const std::set<pid_t>& cgroup_tasks,
                            pid_t self) {
  std::map<pid_t, const ProcRow*> by_pid;
  std::multimap<pid_t, pid_t> children;
  for (const ProcRow& r : table) {
    by_pid[r.pid] = &r;
    children.emplace(r.ppid, r.pid);
  }
  auto living = [&](pid_t p) {
    const auto it = by_pid.find(p);
    return it != by_pid.end() && it->second->state != 'Z' && it->second->state != 'X';
  };
  std::set<pid_t> out;
  std::vector<pid_t> todo;
  auto take = [&](pid_t p) {
    if (p <= 1 || p == self || !living(p) || !out.insert(p).second) return;
    todo.push_back(p);
  };
  std::set<pid_t> live_roots;
  for (pid_t r : roots) {
    if (living(r)) live_roots.insert(r);
    take(r);
  }
  for (const ProcRow& r : table) {
    if (live_roots.count(r.pgrp) != 0) take(r.pid);
  }
  for (pid_t p : cgroup_tasks) take(p);
  for (pid_t p : taken) take(p);
  // Descendants of everything taken (and of the taken that died: their children moved away,
  // but those still below them are found through the living).
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    const auto range = children.equal_range(p);
    for (auto it = range.first; it != range.second; ++it) take(it->second);
  }
  return out;
}

std::vector<ProcRow> read_proc_table() {
  std::vector<ProcRow> rows;
  DIR* d = ::opendir("/proc");
  if (d == nullptr) return rows;
  while (const dirent* e = ::readdir(d)) {
    const char* name = e->d_name;
    if (*name < '1' || *name > '9' || std::strspn(name, "0123456789") != std::strlen(name)) {
      continue;
    }
    if (const auto st = read_proc_pid_stat(static_cast<pid_t>(std::atoi(name)))) {
      rows.push_back({st->pid, st->ppid, st->pgrp, st->state, st->starttime});
    }
  }
  ::closedir(d);
  return rows;
}

SweepReport sweep_run_processes(const std::vector<RootProcess>& roots,
                                const std::vector<std::string>& cgroups,
                                std::chrono::milliseconds wait) {
  SweepReport rep;
  const pid_t self = ::getpid();
  std::map<pid_t, int> root_fd;
  for (const RootProcess& r : roots) {
    if (r.pidfd >= 0) root_fd[r.pid] = r.pidfd;
  }
  // Every signal goes through a pidfd, or to a pid whose start time was just read again: never
  // to a pid that another process took over since /proc was read.
  std::map<pid_t, Taken> taken;
  auto send = [](pid_t p, const Taken& t, int sig) {
    if (t.pidfd >= 0) return pidfd_signal(t.pidfd, sig);
    return alive_and_same(p, t.start_time) && ::kill(p, sig) == 0;
  };
  std::set<pid_t> taken_pids;
  for (int round = 0; round < 100; ++round) {
    rep.rounds = round + 1;
    // A root is a root while its pidfd says it lives (a reused pid is someone else).
    std::set<pid_t> live_roots;
    for (const auto& [pid, fd] : root_fd) {
      if (pidfd_signal(fd, 0)) live_roots.insert(pid);
    }
    const std::vector<ProcRow> table = read_proc_table();
    std::map<pid_t, uint64_t> start_of;
    for (const ProcRow& r : table) start_of[r.pid] = r.start_time;
    const std::set<pid_t> found =
        run_members(table, live_roots, taken_pids, cgroup_tasks(cgroups), self);
    bool any_new = false;
    for (pid_t p : found) {
      if (taken_pids.count(p) != 0) continue;
      Taken t;
      t.start_time = start_of[p];
      if (const auto root = root_fd.find(p); root != root_fd.end()) {
        t.pidfd = root->second;
      } else {
        // Held from here on by a pidfd, opened only if it is the process /proc showed.
        int error = 0;
        t.pidfd = open_pidfd_of(p, t.start_time, &error);
        t.own_fd = t.pidfd >= 0;
        // Gone, or another process has its pid now: nothing to stop (a new child of the run
        // under that pid shows up in the next round with its own start time).
        if (t.pidfd < 0 && (error == 0 || error == ESRCH)) continue;
      }
      any_new = true;
      taken_pids.insert(p);
      send(p, t, SIGSTOP);
      taken[p] = t;
    }
    if (!any_new) break;
  }
  for (const auto& [p, t] : taken) {
    if (send(p, t, SIGKILL)) rep.killed.push_back(p);
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::vector<pid_t> pending(taken_pids.begin(), taken_pids.end());
  while (!pending.empty()) {
    std::vector<pid_t> still;
    for (pid_t p : pending) {
      const Taken& t = taken[p];
      if (t.pidfd >= 0 ? !exited(t.pidfd) : alive_and_same(p, t.start_time)) still.push_back(p);
    }
    pending.swap(still);
    if (pending.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  rep.left = pending;
  for (const auto& [p, t] : taken) {
    if (t.own_fd) ::close(t.pidfd);
  }
  return rep;
}

bool wait_process_end(int pidfd, std::chrono::milliseconds before_kill,
                      std::chrono::milliseconds wait, bool* killed) {
  if (killed != nullptr) *killed = false;
  if (pidfd < 0 || wait_exit(pidfd, before_kill)) return true;
  if (pidfd_signal(pidfd, SIGKILL) && killed != nullptr) *killed = true;
  return wait_exit(pidfd, wait > before_kill ? wait - before_kill : std::chrono::milliseconds(0));
}

}  // namespace xrunlab
