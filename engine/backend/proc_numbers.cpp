// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/proc_numbers.hpp"

#include <dirent.h>

namespace xrunlab {

std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> pids;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return pids;
  while (const dirent* e = readdir(d)) {
    if (auto pid = parse_number<pid_t>(e->d_name)) pids.push_back(*pid);
  }
  closedir(d);
  std::sort(pids.begin(), pids.end());
  return pids;
}

}  // namespace xrunlab
