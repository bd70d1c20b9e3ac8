// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/proc_cgroup.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

// Debian 11 with systemd's hybrid layout (cgroup v1 controllers plus a v2 "unified" tree).
constexpr std::string_view kHybrid =
    "12:cpuset:/\n"
    "11:cpu,cpuacct:/user.slice/session-3.scope\n"
    "10:memory:/user.slice\n"
    "1:name=systemd:/user.slice/session-3.scope\n"
    "0::/user.slice/session-3.scope\n";

TEST(CgroupV1CpuGroup, TheLineWhoseControllersIncludeCpu) {
  EXPECT_EQ(cgroup_v1_cpu_group(kHybrid), "/user.slice/session-3.scope");
  EXPECT_EQ(cgroup_v1_cpu_group("3:cpu:/xrunlab-77\n"), "/xrunlab-77");
  EXPECT_EQ(cgroup_v1_cpu_group("3:cpuacct,cpu:/\n"), "/");
  // A path may contain ':'.
  EXPECT_EQ(cgroup_v1_cpu_group("3:cpu:/a:b\n"), "/a:b");
}

TEST(CgroupV1CpuGroup, NoneWithoutTheCpuController) {
  EXPECT_EQ(cgroup_v1_cpu_group("0::/user.slice\n"), std::nullopt);
  EXPECT_EQ(cgroup_v1_cpu_group("4:cpuset:/\n5:cpuacct:/\n"), std::nullopt);
  EXPECT_EQ(cgroup_v1_cpu_group("garbage\n"), std::nullopt);
  EXPECT_EQ(cgroup_v1_cpu_group(""), std::nullopt);
}

TEST(CgroupV2Group, TheLineWithoutControllers) {
  EXPECT_EQ(cgroup_v2_group(kHybrid), "/user.slice/session-3.scope");
  EXPECT_EQ(cgroup_v2_group("0::/\n"), "/");
  EXPECT_EQ(cgroup_v2_group("3:cpu:/x\n"), std::nullopt);
}

}  // namespace
}  // namespace xrunlab
