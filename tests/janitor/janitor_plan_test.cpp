// SPDX-License-Identifier: GPL-2.0-or-later
// What the janitor learns from the engine's lines, and its command line.
#include "engine/janitor/janitor_plan.hpp"

#include <gtest/gtest.h>

#include "engine/janitor/janitor.hpp"

namespace xrunlab {
namespace {

TEST(JanitorPlan, LinesFillThePlan) {
  JanitorPlan p;
  std::string why;
  EXPECT_TRUE(apply_janitor_line(p, "dir /tmp/out/t/20260101T000000Z", &why)) << why;
  EXPECT_TRUE(apply_janitor_line(p, "server xrunlab-12-0", &why)) << why;
  EXPECT_TRUE(apply_janitor_line(p, "child 345 9000", &why)) << why;
  EXPECT_TRUE(apply_janitor_line(p, "child 345 9000", &why)) << why;  // once
  EXPECT_TRUE(apply_janitor_line(p, "child 346 9001\r", &why)) << why;
  EXPECT_TRUE(apply_janitor_line(p, "child 347 0", &why)) << why;  // start time unknown
  EXPECT_TRUE(apply_janitor_line(p, "", &why));
  EXPECT_FALSE(p.done);
  EXPECT_TRUE(apply_janitor_line(p, "done", &why));
  EXPECT_EQ(p.run_dir, "/tmp/out/t/20260101T000000Z");
  EXPECT_EQ(p.server, "xrunlab-12-0");
  EXPECT_EQ(p.children, (std::vector<AnnouncedChild>{{345, 9000}, {346, 9001}, {347, 0}}));
  EXPECT_TRUE(p.done);
}

TEST(JanitorPlan, BadLinesAreRefusedAndChangeNothing) {
  JanitorPlan p;
  std::string why;
  for (const char* bad : {"dir relative/path", "server a/b", "child", "child 1 5", "child 12x 5",
                          "child -5 5", "child 12", "child 12 ", "child 12 x", "child 12 5 6",
                          "child 12 -5", "done now", "kill 5", "dir"}) {
    why.clear();
    EXPECT_FALSE(apply_janitor_line(p, bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
  EXPECT_TRUE(p.run_dir.empty());
  EXPECT_TRUE(p.server.empty());
  EXPECT_TRUE(p.children.empty());
  EXPECT_FALSE(p.done);
}

TEST(JanitorPlan, InputSplitAcrossReadsIsJoined) {
  JanitorPlan p;
  std::string pending;
  std::vector<std::string> bad;
  apply_janitor_input(p, pending, "chi", &bad);
  EXPECT_TRUE(p.children.empty());
  apply_janitor_input(p, pending, "ld 77 12\nserver xr", &bad);
  EXPECT_EQ(p.children, (std::vector<AnnouncedChild>{{77, 12}}));
  EXPECT_EQ(pending, "server xr");
  apply_janitor_input(p, pending, "unlab-1-0\nbogus\n", &bad);
  EXPECT_EQ(p.server, "xrunlab-1-0");
  EXPECT_EQ(bad.size(), 1u);
  EXPECT_TRUE(pending.empty());
}

// Finding 7: what the janitor says when the engine outlives its wait: what stays changed, and
// who restores it.
TEST(JanitorSays, AnEngineThatOutlivesTheWaitNamesWhatStaysChanged) {
  const std::vector<JournalEntry> entries = {
      {"write", "/proc/sys/kernel/sched_rt_runtime_us", "950000", "-1"},
      {"mkdir", "/sys/fs/cgroup/cpu/xrunlab-12", "", ""},
      {"mount", "/sys/kernel/tracing", "tracefs", ""},
      {"mkdir", "/sys/kernel/tracing/instances/xrunlab-12", "", ""},
      {"write", "/sys/fs/cgroup/cpu/xrunlab-12/cpu.rt_runtime_us", "0", "5000"}};
  EXPECT_EQ(engine_outlived_line(12, std::chrono::seconds(10), entries, "/run/xrunlab/j.json"),
            "the engine (pid 12) is still alive 10 s after its pipe closed (SIGKILL sent): 5 "
            "setting(s) it changed stay changed (/proc/sys/kernel/sched_rt_runtime_us, the folder "
            "/sys/fs/cgroup/cpu/xrunlab-12, the mount /sys/kernel/tracing, the folder "
            "/sys/kernel/tracing/instances/xrunlab-12, ...); the next xrunlab start after it has "
            "ended restores them from its journal /run/xrunlab/j.json");
  EXPECT_EQ(engine_outlived_line(12, std::chrono::seconds(10), {}, "/run/xrunlab/j.json"),
            "the engine (pid 12) is still alive 10 s after its pipe closed (SIGKILL sent); it "
            "changed no system setting");
}

TEST(JanitorArgs, ParsedOrRefusedNamingTheFlag) {
  std::string why;
  const auto a = parse_janitor_args({"--engine", "4242", "--journal",
                                     "/run/xrunlab/journal-0-4242.json", "--tmp-dir", "/var/tmp"},
                                    &why);
  ASSERT_TRUE(a) << why;
  EXPECT_EQ(a->plan.engine, 4242);
  EXPECT_EQ(a->plan.journal, "/run/xrunlab/journal-0-4242.json");
  EXPECT_EQ(a->plan.shm_dir, "/dev/shm");
  EXPECT_EQ(a->tmp_dir, "/var/tmp");
  const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
      {{"--engine", "1", "--journal", "/j"}, "--engine"},
      {{"--engine", "x", "--journal", "/j"}, "--engine"},
      {{"--journal", "/j"}, "--engine"},
      {{"--engine", "5"}, "--journal"},
      {{"--engine", "5", "--journal", "j"}, "--journal"},
      {{"--engine", "5", "--journal", "/j", "--shm-dir"}, "--shm-dir"},
      {{"--engine", "5", "--journal", "/j", "--what", "x"}, "--what"},
  };
  for (const auto& [args, flag] : bad) {
    why.clear();
    EXPECT_FALSE(parse_janitor_args(args, &why));
    EXPECT_NE(why.find(flag), std::string::npos) << why;
  }
}

}  // namespace
}  // namespace xrunlab
