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
  EXPECT_TRUE(apply_janitor_line(p, "child 345", &why)) << why;
  EXPECT_TRUE(apply_janitor_line(p, "child 345", &why)) << why;  // once
  EXPECT_TRUE(apply_janitor_line(p, "child 346\r", &why)) << why;
  EXPECT_TRUE(apply_janitor_line(p, "", &why));
  EXPECT_FALSE(p.done);
  EXPECT_TRUE(apply_janitor_line(p, "done", &why));
  EXPECT_EQ(p.run_dir, "/tmp/out/t/20260101T000000Z");
  EXPECT_EQ(p.server, "xrunlab-12-0");
  EXPECT_EQ(p.children, (std::vector<pid_t>{345, 346}));
  EXPECT_TRUE(p.done);
}

TEST(JanitorPlan, BadLinesAreRefusedAndChangeNothing) {
  JanitorPlan p;
  std::string why;
  for (const char* bad : {"dir relative/path", "server a/b", "child", "child 1", "child 12x",
                          "child -5", "done now", "kill 5", "dir"}) {
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
  apply_janitor_input(p, pending, "ld 77\nserver xr", &bad);
  EXPECT_EQ(p.children, std::vector<pid_t>{77});
  EXPECT_EQ(pending, "server xr");
  apply_janitor_input(p, pending, "unlab-1-0\nbogus\n", &bad);
  EXPECT_EQ(p.server, "xrunlab-1-0");
  EXPECT_EQ(bad.size(), 1u);
  EXPECT_TRUE(pending.empty());
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
