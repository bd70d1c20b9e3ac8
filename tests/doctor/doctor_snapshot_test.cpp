// SPDX-License-Identifier: GPL-2.0-or-later
// The readers behind `xrunlab doctor`: the small parsers, and collect_snapshot() over fixture
// trees (tests/fixtures/doctor/*), where every root is a parameter.
#include <gtest/gtest.h>

#include "engine/doctor/snapshot.hpp"
#include "tests/doctor/doctor_fixture.hpp"

namespace xrunlab {
namespace {

using testing_support::DoctorFixture;

TEST(DoctorLimitsLine, ReadsTheSoftLimitOrUnlimited) {
  const std::string limits =
      "Limit                     Soft Limit           Hard Limit           Units     \n"
      "Max locked memory         8388608              16777216             bytes     \n"
      "Max realtime priority     95                   95                   \n"
      "Max realtime timeout      unlimited            unlimited            us        \n";
  const auto memlock = parse_limits_line(limits, "Max locked memory");
  ASSERT_TRUE(memlock);
  EXPECT_FALSE(memlock->unlimited);
  EXPECT_EQ(memlock->value, 8388608u);
  EXPECT_EQ(parse_limits_line(limits, "Max realtime priority")->value, 95u);
  EXPECT_TRUE(parse_limits_line(limits, "Max realtime timeout")->unlimited);
  EXPECT_FALSE(parse_limits_line(limits, "Max nice priority"));
}

TEST(DoctorLimitsConf, TheAudioGroupsSoftLinesCountTheLastOneWins) {
  AudioGroupLimits a;
  apply_limits_conf(
      "# comment @audio - rtprio 99\n"
      "@audio   -  rtprio     70\n"
      "@audio   hard  memlock  1024\n"  // a hard limit alone does not raise the soft one
      "@users   -  rtprio     99\n"     // another group
      "@audio   -  nice       -19  # trailing comment\n",
      "/etc/security/limits.conf", a);
  apply_limits_conf("@audio soft rtprio 95\n@audio - memlock unlimited\n",
                    "/etc/security/limits.d/audio.conf", a);
  ASSERT_TRUE(a.rtprio);
  EXPECT_EQ(a.rtprio->value, 95u);
  EXPECT_EQ(a.rtprio_file, "/etc/security/limits.d/audio.conf");
  ASSERT_TRUE(a.memlock);
  EXPECT_TRUE(a.memlock->unlimited);
}

TEST(DoctorKernelConfig, ReadsSetValuesAndSkipsNotSetComments) {
  const auto c = parse_kernel_config(
      "# CONFIG_PREEMPT is not set\nCONFIG_HZ=250\nCONFIG_HIGH_RES_TIMERS=y\n"
      "CONFIG_LOCALVERSION=\"-rt\"\n");
  EXPECT_EQ(c.size(), 3u);
  EXPECT_EQ(c.at("CONFIG_HZ"), "250");
  EXPECT_EQ(c.at("CONFIG_HIGH_RES_TIMERS"), "y");
  EXPECT_EQ(c.at("CONFIG_LOCALVERSION"), "-rt");
  EXPECT_EQ(c.count("CONFIG_PREEMPT"), 0u);
}

TEST(DoctorSnapshot, ALaptopTreeGivesItsUserGroupsLimitsCardsIrqThreadsAndHolders) {
  DoctorFixture f("laptop-powersave");
  const SystemSnapshot s = collect_snapshot(f.roots(), 70);
  EXPECT_EQ(s.euid, 4242u);
  EXPECT_EQ(s.user, "musician");
  EXPECT_EQ(s.groups, std::vector<gid_t>{4242});
  ASSERT_TRUE(s.audio_gid);
  EXPECT_EQ(*s.audio_gid, 29u);
  EXPECT_EQ(s.audio_members, std::vector<std::string>{"musician"});
  EXPECT_FALSE(s.cap_sys_nice);
  ASSERT_TRUE(s.rtprio);
  EXPECT_EQ(s.rtprio->value, 0u);
  EXPECT_EQ(s.ncpus, 8);
  EXPECT_EQ(s.governors.size(), 8u);
  EXPECT_EQ(s.release, "6.1.0-28-amd64");
  ASSERT_TRUE(s.kconfig);  // /proc/config.gz, through zlib
  EXPECT_EQ(s.kconfig_source, "/proc/config.gz");
  EXPECT_EQ(s.kconfig->at("CONFIG_PREEMPT_VOLUNTARY"), "y");
  ASSERT_TRUE(s.cards);
  EXPECT_EQ(s.cards_source, "/proc/asound/cards");
  ASSERT_EQ(s.cards->size(), 2u);
  EXPECT_EQ((*s.cards)[1].driver, "USB-Audio");
  ASSERT_EQ(s.irq_threads.size(), 3u);
  EXPECT_EQ(s.irq_threads[0].comm, "irq/16-i801_smb");
  EXPECT_EQ(s.irq_threads[0].policy, 1);
  EXPECT_EQ(s.irq_threads[0].rt_priority, 50);
  ASSERT_EQ(s.pcm_holders.size(), 1u);
  EXPECT_EQ(s.pcm_holders[0].pid, 1402);
  EXPECT_EQ(s.pcm_holders[0].node, "/dev/snd/pcmC0D0p");
  // Not the real system: nothing is asked of the process itself.
  EXPECT_FALSE(s.rt_trial);
  EXPECT_FALSE(f.roots().live());
}

TEST(DoctorSnapshot, TheVmTreeFindsItsCgroupV1CpuGroupUnderTheSysRoot) {
  DoctorFixture f("vm");
  const SystemSnapshot s = collect_snapshot(f.roots(), 70);
  ASSERT_TRUE(s.cgroup_cpu_dir);
  EXPECT_EQ(*s.cgroup_cpu_dir, "/sys/fs/cgroup/cpu");
  ASSERT_TRUE(s.cgroup_rt_runtime_us);
  EXPECT_EQ(*s.cgroup_rt_runtime_us, 950000);
  EXPECT_TRUE(s.cgroup_v1_cpu_rt_writable);  // euid 0 in the tree
  EXPECT_FALSE(s.cards);                     // no /proc/asound at all
  EXPECT_EQ(s.audio_limits.disabled_files,
            std::vector<std::string>{"/etc/security/limits.d/audio.conf.disabled"});
  EXPECT_FALSE(s.audio_limits.rtprio);
  EXPECT_EQ(s.kconfig_source, "/boot/config-6.18.44-fc-v1045");
}

TEST(DoctorSnapshot, AMissingTreeGivesAnEmptySnapshotWithoutThrowing) {
  DoctorRoots r;
  r.proc = r.sys = r.etc = r.dev = r.boot = "/nonexistent-xrunlab-doctor";
  const SystemSnapshot s = collect_snapshot(r, 70);
  EXPECT_FALSE(s.rtprio);
  EXPECT_FALSE(s.kconfig);
  EXPECT_FALSE(s.cards);
  EXPECT_TRUE(s.processes.empty());
}

TEST(DoctorRoots, OnlyTheRealRootsAreLive) {
  EXPECT_TRUE(DoctorRoots{}.live());
  DoctorRoots r;
  r.etc = "/tmp/etc";
  EXPECT_FALSE(r.live());
}

}  // namespace
}  // namespace xrunlab
