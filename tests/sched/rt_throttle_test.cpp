// SPDX-License-Identifier: GPL-2.0-or-later
// rt-throttle: detection against hand-written /proc/self/cgroup and mounts texts, then the real
// cgroup v1 cpu controller of this machine (skipped, with the reason, where it is unusable).
#include "engine/sched/rt_throttle.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engine/base/file.hpp"
#include "engine/base/proc_cgroup.hpp"
#include "engine/base/text.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::path_exists;
using testing_support::read_text_or_empty;
using testing_support::write_text;

using testing_support::TempDir;

namespace fs = std::filesystem;

// The cpu line's group in /proc/<pid>/cgroup ("" if none).
std::string cpu_group_of(pid_t pid) {
  return cgroup_v1_cpu_group(read_text_or_empty("/proc/" + std::to_string(pid) + "/cgroup"))
      .value_or("");
}

// ---- membership, from hand-written /proc/PID/cgroup texts ------------------------------------

TEST(CgroupInGroup, TheCpuLinesGroupUnderTheControllersMountPoint) {
  const std::string systemd = "11:cpu,cpuacct:/user.slice/xrunlab-77\n0::/user.slice\n";
  const std::string root = "/sys/fs/cgroup/cpu,cpuacct";
  EXPECT_TRUE(cgroup_in_group(systemd, root, root + "/user.slice/xrunlab-77"));
  EXPECT_FALSE(cgroup_in_group(systemd, root, root + "/xrunlab-77"));  // same name elsewhere
  EXPECT_FALSE(cgroup_in_group(systemd, root, root + "/user.slice"));  // its parent
  EXPECT_FALSE(cgroup_in_group(systemd, "/sys/fs/cgroup/cpu", root + "/user.slice/xrunlab-77"));
  const std::string plain = "4:cpuset:/\n3:cpu:/xrunlab-77\n";
  EXPECT_TRUE(cgroup_in_group(plain, "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu/xrunlab-77"));
  EXPECT_TRUE(cgroup_in_group("3:cpu:/\n", "/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu"));
}

TEST(CgroupInGroup, NoV1CpuGroupMeansInNone) {
  const std::string group = "/sys/fs/cgroup/cpu/xrunlab-77";
  EXPECT_FALSE(cgroup_in_group("0::/xrunlab-77\n", "/sys/fs/cgroup/cpu", group));
  EXPECT_FALSE(cgroup_in_group("3:cpuacct:/xrunlab-77\n", "/sys/fs/cgroup/cpu", group));
  EXPECT_FALSE(cgroup_in_group("", "/sys/fs/cgroup/cpu", group));
  EXPECT_FALSE(cgroup_in_group("3:cpu:/xrunlab-77\n", "", "/xrunlab-77"));  // no cpu mount
}

TEST(InCgroup, NotInAGroupThatDoesNotExistNorForAProcessThatDoesNot) {
  EXPECT_FALSE(in_cgroup(::getpid(), "/sys/fs/cgroup/cpu/xrunlab-no-such-group"));
  EXPECT_FALSE(in_cgroup(-1, "/sys/fs/cgroup/cpu"));
}

// ---- detection from hand-written texts ------------------------------------------------------

class DetectTest : public ::testing::Test {
 protected:
  RtThrottleSupport detect(const std::string& cgroup_text, const std::string& mounts_text) {
    write_text(dir_.str() + "/cgroup", cgroup_text);
    write_text(dir_.str() + "/mounts", mounts_text);
    return detect_rt_throttle(dir_.str() + "/cgroup", dir_.str() + "/mounts");
  }
  // A fake cpu hierarchy: <tmp>/<name>/<group> with cpu.rt_runtime_us if `runtime` is given.
  std::string fake_cpu(const std::string& name, const std::string& group, const char* runtime) {
    const std::string root = dir_.str() + "/" + name;
    fs::create_directories(root + group);
    if (runtime != nullptr) write_text(root + group + "/cpu.rt_runtime_us", runtime);
    return root;
  }
  TempDir dir_;
};

TEST_F(DetectTest, V1CpuControllerWithRtFilesIsAvailable) {
  const std::string root = fake_cpu("cpu,cpuacct", "", "950000\n");
  const auto s = detect("12:pids:/\n4:cpu,cpuacct:/\n3:cpuset:/\n0::/\n",
                        "tmpfs /sys/fs/cgroup tmpfs rw 0 0\n"
                        "cgroup /x/cpuset cgroup rw,cpuset 0 0\n"
                        "cgroup " +
                            root + " cgroup rw,nosuid,nodev,noexec,relatime,cpu,cpuacct 0 0\n" +
                            "cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n");
  EXPECT_TRUE(s.available) << s.why;
  EXPECT_EQ(s.cpu_root, root);
  EXPECT_EQ(s.current_group, "/");
}

TEST_F(DetectTest, NestedGroupAndEscapedMountPoint) {
  const std::string root = fake_cpu("cpu dir", "/user.slice/a:b", "10000");
  std::string escaped = root;
  escaped.replace(escaped.find(' '), 1, "\\040");
  const auto s = detect("1:cpu:/user.slice/a:b\n", "cgroup " + escaped + " cgroup rw,cpu 0 0\n");
  EXPECT_TRUE(s.available) << s.why;
  EXPECT_EQ(s.cpu_root, root);
  EXPECT_EQ(s.current_group, "/user.slice/a:b");
}

TEST_F(DetectTest, CgroupV2OnlyIsExplained) {
  const auto s = detect("0::/user.slice/session-1.scope\n",
                        "cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid,nodev,noexec 0 0\n");
  EXPECT_FALSE(s.available);
  EXPECT_TRUE(contains(s.why, "cgroup v2 only")) << s.why;
  EXPECT_TRUE(contains(s.why, "no RT bandwidth per group")) << s.why;
  EXPECT_EQ(s.why.find('\n'), std::string::npos);
}

TEST_F(DetectTest, CpuacctAndCpusetAreNotCpu) {
  const auto s = detect("2:cpuacct:/\n3:cpuset:/\n",
                        "cgroup /a cgroup rw,cpuacct 0 0\ncgroup /b cgroup rw,cpuset 0 0\n");
  EXPECT_FALSE(s.available);
  EXPECT_TRUE(contains(s.why, "no cgroup v1 cpu controller")) << s.why;
}

TEST_F(DetectTest, CpuWithoutRtFilesMeansNoRtGroupScheduling) {
  const std::string root = fake_cpu("cpu", "", nullptr);
  write_text(root + "/cpu.shares", "1024");
  const auto s = detect("1:cpu:/\n", "cgroup " + root + " cgroup rw,cpu 0 0\n");
  EXPECT_FALSE(s.available);
  EXPECT_TRUE(contains(s.why, "CONFIG_RT_GROUP_SCHED")) << s.why;
}

TEST_F(DetectTest, GroupWithoutRtRuntimeIsExplained) {
  const std::string root = fake_cpu("cpu", "/system.slice", "0\n");
  const auto s = detect("1:cpu:/system.slice\n", "cgroup " + root + " cgroup rw,cpu 0 0\n");
  EXPECT_FALSE(s.available);
  EXPECT_TRUE(contains(s.why, "cpu.rt_runtime_us 0")) << s.why;
}

TEST_F(DetectTest, GroupNotVisibleUnderTheMount) {
  const std::string root = fake_cpu("cpu", "", "950000");
  const auto s = detect("1:cpu:/elsewhere\n", "cgroup " + root + " cgroup rw,cpu 0 0\n");
  EXPECT_FALSE(s.available);
  EXPECT_TRUE(contains(s.why, "not visible")) << s.why;
}

TEST_F(DetectTest, UnavailableSupportIsRefusedByCreate) {
  RtThrottleSupport s;
  s.why = "cgroup v2 only";
  TempDir run;
  SysJournal journal(SysJournal::journal_path_in(run.str()));
  RtThrottleGroup g;
  EXPECT_THROW(g.create(journal, s, 50, 1000000), Error);
  EXPECT_TRUE(journal.entries().empty());
}

// ---- the real cgroup v1 cpu controller ------------------------------------------------------

class RealCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string knob = "/sys/fs/cgroup/cpu/cpu.rt_runtime_us";
    if (::access(knob.c_str(), F_OK) != 0) GTEST_SKIP() << knob << " is absent";
    if (::access(knob.c_str(), W_OK) != 0) GTEST_SKIP() << knob << " is not writable";
    support_ = detect_rt_throttle();
    if (!support_.available) GTEST_SKIP() << support_.why;
  }
  RtThrottleSupport support_;
  TempDir run_;
};

pid_t fork_sleeper() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (;;) ::pause();
  }
  return pid;
}

void kill_and_reap(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

TEST_F(RealCgroupTest, GroupLimitsItsProcessesAndIsRemovedByRestore) {
  SysJournal journal(SysJournal::journal_path_in(run_.str()));
  RtThrottleGroup group;
  const std::string line = group.create(journal, support_, 50, 1000000);
  const std::string expected_path =
      (support_.current_group == "/" ? support_.cpu_root
                                     : support_.cpu_root + support_.current_group) +
      "/xrunlab-" + std::to_string(::getpid());
  EXPECT_EQ(group.path(), expected_path);
  EXPECT_TRUE(contains(line, "500000")) << line;
  EXPECT_EQ(read_text_or_empty(group.path() + "/cpu.rt_runtime_us"), "500000\n");
  EXPECT_EQ(read_text_or_empty(group.path() + "/cpu.rt_period_us"), "1000000\n");
  ASSERT_EQ(journal.entries().size(), 3u);
  EXPECT_EQ(journal.entries()[0].kind, "mkdir");

  const pid_t child = fork_sleeper();
  ASSERT_GT(child, 0);
  const std::string original = cpu_group_of(child);
  EXPECT_EQ(original, support_.current_group);
  // A SCHED_FIFO process may join: the group has RT runtime.
  sched_param prio{};
  prio.sched_priority = 1;
  ASSERT_EQ(::sched_setscheduler(child, SCHED_FIFO, &prio), 0);
  const std::string moved = group.add_process(child);
  EXPECT_TRUE(contains(moved, std::to_string(child))) << moved;
  const std::string relative = group.path().substr(support_.cpu_root.size());
  EXPECT_EQ(cpu_group_of(child), relative);
  EXPECT_TRUE(in_cgroup(child, group.path()));
  EXPECT_FALSE(in_cgroup(::getpid(), group.path()));
  EXPECT_TRUE(contains(read_text_or_empty(group.path() + "/cgroup.procs"), std::to_string(child)));

  const auto problems = journal.restore_all();
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_FALSE(path_exists(group.path()));
  EXPECT_EQ(cpu_group_of(child), original);
  EXPECT_FALSE(in_cgroup(child, group.path()));
  EXPECT_EQ(::sched_getscheduler(child), SCHED_FIFO);  // still RT, back in its group
  kill_and_reap(child);
}

TEST_F(RealCgroupTest, KernelRefusalIsExplainedAndTheGroupStillRemoved) {
  SysJournal journal(SysJournal::journal_path_in(run_.str()));
  RtThrottleGroup group;
  // The root group has 95 % (sched_rt_runtime_us 950000 of 1000000): 100 % cannot fit.
  try {
    group.create(journal, support_, 100, 1000000);
    ADD_FAILURE() << "the kernel accepted 100 %";
  } catch (const SysChangeError& e) {
    EXPECT_EQ(e.error_number(), EINVAL) << e.what();
    EXPECT_TRUE(contains(e.what(), "must fit in what its parent has left")) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  ASSERT_FALSE(group.path().empty());
  EXPECT_TRUE(path_exists(group.path()));  // made, journalled, left for restore_all
  const auto problems = journal.restore_all();
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_FALSE(path_exists(group.path()));
}

TEST_F(RealCgroupTest, GroupWithoutRuntimeRefusesRtProcess) {
  // What add_process explains: made directly here (not by RtThrottleGroup), with runtime 0.
  SysJournal journal(SysJournal::journal_path_in(run_.str()));
  const std::string dir =
      (support_.current_group == "/" ? support_.cpu_root
                                     : support_.cpu_root + support_.current_group) +
      "/xrunlab-" + std::to_string(::getpid()) + "-norun";
  journal.make_dir(dir);
  EXPECT_EQ(read_text_or_empty(dir + "/cpu.rt_runtime_us"), "0\n");
  const pid_t child = fork_sleeper();
  ASSERT_GT(child, 0);
  sched_param prio{};
  prio.sched_priority = 1;
  ASSERT_EQ(::sched_setscheduler(child, SCHED_FIFO, &prio), 0);
  std::ofstream procs(dir + "/cgroup.procs");
  procs << child << std::flush;
  EXPECT_FALSE(procs.good());  // EINVAL from the kernel
  EXPECT_EQ(cpu_group_of(child), support_.current_group);
  kill_and_reap(child);
  const auto problems = journal.restore_all();
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_FALSE(path_exists(dir));
}

// The kernel frees a removed group's RT share some milliseconds after rmdir (RCU): a group made
// right after the removal of a big one is refused at first. create() waits that out.
TEST_F(RealCgroupTest, ShareOfAGroupRemovedMomentsAgoIsWaitedFor) {
  const std::string parent = support_.current_group == "/"
                                 ? support_.cpu_root
                                 : support_.cpu_root + support_.current_group;
  const std::string big = parent + "/xrunlab-" + std::to_string(::getpid()) + "-big";
  ASSERT_EQ(::mkdir(big.c_str(), 0755), 0);
  write_text(big + "/cpu.rt_runtime_us", "800000");
  const bool big_set = read_text_or_empty(big + "/cpu.rt_runtime_us") == "800000\n";
  ASSERT_EQ(::rmdir(big.c_str()), 0);
  EXPECT_TRUE(big_set);
  SysJournal journal(SysJournal::journal_path_in(run_.str()));
  RtThrottleGroup group;
  EXPECT_NO_THROW(group.create(journal, support_, 50, 1000000));  // 80 % + 50 % > 95 % at first
  const auto problems = journal.restore_all();
  EXPECT_TRUE(problems.empty()) << problems.front();
  EXPECT_FALSE(path_exists(group.path()));
}

// The engine is killed (SIGKILL) while its group holds a process: the next start removes it.
TEST_F(RealCgroupTest, GroupOfACrashedRunIsRemovedAtTheNextStart) {
  // The grandchild (the crashed engine's "jackd") is re-parented to us, so we can reap it.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t engine = ::fork();
  ASSERT_GE(engine, 0);
  if (engine == 0) {
    ::close(fds[0]);
    try {
      SysJournal journal(SysJournal::journal_path_in(run_.str()));
      RtThrottleGroup group;
      group.create(journal, support_, 30, 1000000);
      const pid_t server = fork_sleeper();
      group.add_process(server);
      if (::write(fds[1], &server, sizeof server) != sizeof server) ::_exit(3);
      for (;;) ::pause();  // until SIGKILL: no restore_all, no destructor
    } catch (...) {
      ::_exit(2);
    }
  }
  ::close(fds[1]);
  pid_t server = -1;
  const ssize_t got = ::read(fds[0], &server, sizeof server);
  ::close(fds[0]);
  ::kill(engine, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(engine, &status, 0), engine);
  // No ASSERT from here on: whatever happened, the recovery below must run.
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(got, static_cast<ssize_t>(sizeof server));

  const std::string group =
      (support_.current_group == "/" ? support_.cpu_root
                                     : support_.cpu_root + support_.current_group) +
      "/xrunlab-" + std::to_string(engine);
  EXPECT_TRUE(path_exists(group));
  EXPECT_EQ(read_text_or_empty(group + "/cpu.rt_runtime_us"), "300000\n");
  EXPECT_EQ(cpu_group_of(server), group.substr(support_.cpu_root.size()));

  SysJournal next(SysJournal::journal_path_in(run_.str()));
  const auto lines = next.recover_stale();
  ASSERT_EQ(lines.size(), 1u) << (lines.empty() ? "" : lines[0]);
  EXPECT_EQ(lines[0], "restored " + group + ": removed the directory left by a crashed run (pid " +
                          std::to_string(engine) + ")");
  EXPECT_FALSE(path_exists(group));
  if (server > 0) {
    EXPECT_EQ(cpu_group_of(server), support_.current_group);
    kill_and_reap(server);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace xrunlab
