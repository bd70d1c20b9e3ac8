// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/proc_cgroup.hpp"

#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

struct CgroupLine {
  std::string_view controllers;
  std::string_view path;
};

std::optional<CgroupLine> split_line(std::string_view line) {
  const size_t first = line.find(':');
  if (first == std::string_view::npos) return std::nullopt;
  const size_t second = line.find(':', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  return CgroupLine{line.substr(first + 1, second - first - 1), line.substr(second + 1)};
}

}  // namespace

std::optional<std::string> cgroup_v1_cpu_group(std::string_view proc_pid_cgroup) {
  for (std::string_view line : lines(proc_pid_cgroup)) {
    const auto l = split_line(line);
    if (!l) continue;
    for (std::string_view controller : split(l->controllers, ',')) {
      if (controller == "cpu") return std::string(l->path);
    }
  }
  return std::nullopt;
}

std::optional<std::string> cgroup_v2_group(std::string_view proc_pid_cgroup) {
  for (std::string_view line : lines(proc_pid_cgroup)) {
    const auto l = split_line(line);
    if (l && l->controllers.empty()) return std::string(l->path);
  }
  return std::nullopt;
}

}  // namespace xrunlab
