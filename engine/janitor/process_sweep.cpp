// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/janitor/process_sweep.hpp"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <thread>

#include "engine/base/file.hpp"
#include "engine/base/proc_pid_stat.hpp"

namespace xrunlab {
namespace {

bool pidfd_signal(int pidfd, int sig) {
  return ::syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0;
}

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

bool exited(int pidfd) {
  pollfd p{pidfd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

bool alive_not_zombie(pid_t pid) {
  const auto st = read_proc_pid_stat(pid);
  return st && st->state != 'Z' && st->state != 'X';
}

}  // namespace

int open_pidfd(pid_t pid) {
  return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
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
      rows.push_back({st->pid, st->ppid, st->pgrp, st->state});
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
  auto send = [&](pid_t p, int sig) {
    const auto it = root_fd.find(p);
    if (it != root_fd.end()) return pidfd_signal(it->second, sig);
    return ::kill(p, sig) == 0;
  };
  std::set<pid_t> taken;
  for (int round = 0; round < 100; ++round) {
    rep.rounds = round + 1;
    // A root is a root while its pidfd says it lives (a reused pid is someone else).
    std::set<pid_t> live_roots;
    for (const auto& [pid, fd] : root_fd) {
      if (pidfd_signal(fd, 0)) live_roots.insert(pid);
    }
    const std::set<pid_t> found =
        run_members(read_proc_table(), live_roots, taken, cgroup_tasks(cgroups), self);
    bool any_new = false;
    for (pid_t p : found) {
      if (taken.count(p) != 0) continue;
      any_new = true;
      taken.insert(p);
      send(p, SIGSTOP);
    }
    for (pid_t r : live_roots) ::kill(-r, SIGSTOP);  // its group, while it holds the group id
    if (!any_new) break;
  }
  for (pid_t p : taken) {
    if (send(p, SIGKILL)) rep.killed.push_back(p);
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  std::vector<pid_t> pending(taken.begin(), taken.end());
  while (!pending.empty()) {
    std::vector<pid_t> still;
    for (pid_t p : pending) {
      const auto root = root_fd.find(p);
      if (root != root_fd.end() ? !exited(root->second) : alive_not_zombie(p)) still.push_back(p);
    }
    pending.swap(still);
    if (pending.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  rep.left = pending;
  return rep;
}

}  // namespace xrunlab
