// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/process_tree.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "engine/base/proc_pid_stat.hpp"

namespace xrunlab {

std::vector<pid_t> descendant_pids(pid_t root) {
  std::unordered_map<pid_t, pid_t> parent;
  if (DIR* d = ::opendir("/proc")) {
    while (const dirent* e = ::readdir(d)) {
      const char* name = e->d_name;
      if (*name < '1' || *name > '9' || std::strspn(name, "0123456789") != std::strlen(name)) {
        continue;
      }
      const auto pid = static_cast<pid_t>(std::atoi(name));
      if (const auto stat = read_proc_pid_stat(pid)) parent[pid] = stat->ppid;
    }
    ::closedir(d);
  }
  std::unordered_map<pid_t, bool> verdict;  // memo: does the chain reach root?
  std::vector<pid_t> out;
  for (const auto& [pid, ppid] : parent) {
    std::vector<pid_t> chain;
    bool found = false;
    pid_t p = pid;
    for (int steps = 0; steps < 4096; ++steps) {
      if (p == root) {
        found = pid != root;
        break;
      }
      const auto memo = verdict.find(p);
      if (memo != verdict.end()) {
        found = memo->second;
        break;
      }
      chain.push_back(p);
      const auto up = parent.find(p);
      if (up == parent.end() || up->second <= 0 || up->second == p) break;
      p = up->second;
    }
    for (pid_t c : chain) verdict[c] = found;
    if (found) out.push_back(pid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace xrunlab
