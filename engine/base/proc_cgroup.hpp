// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// /proc/PID/cgroup (cgroups(7)), the one parser: one line per hierarchy,
// "HIERARCHY-ID:CONTROLLER,LIST:/PATH" (cgroup v1) or "0::/PATH" (cgroup v2); the path may
// itself contain ':'. Pure functions of the text; non-realtime.
#include <optional>
#include <string>
#include <string_view>

namespace xrunlab {

// The group in the cgroup-v1 hierarchy that has the cpu controller: the path of the first line
// whose controller list includes "cpu" ("4:cpu,cpuacct:/user.slice" -> "/user.slice").
// nullopt without such a line (cgroup v2 only, or no cpu controller mounted).
std::optional<std::string> cgroup_v1_cpu_group(std::string_view proc_pid_cgroup);

// The cgroup-v2 group: the path of the line with no controllers ("0::/PATH"); nullopt without one.
std::optional<std::string> cgroup_v2_group(std::string_view proc_pid_cgroup);

}  // namespace xrunlab
