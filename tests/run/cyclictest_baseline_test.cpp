// SPDX-License-Identifier: GPL-2.0-or-later
// The timer baseline's lifecycle (engine/run/cyclictest_baseline.hpp): nothing without
// --baseline, a run that ended before its window says so, and a real child process standing in
// for cyclictest (a shell script: it writes the --json file when SIGINT stops it, or exits
// without one) gives the figures or the reason there are none.
#include "engine/run/cyclictest_baseline.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

// 12 wake-ups as rt-tests 2.4's --json writes them.
const char* kJson =
    R"({"thread": {"0": {"histogram": {"44": 1, "50": 2, "60": 9}, "cycles": 12, "min": 44, )"
    R"("max": 60, "avg": 55.0}}})";

// A stand-in for cyclictest: finds --json=FILE in its arguments, sets its SIGINT trap, says it
// is ready (the file `ready` beside its log), and on SIGINT writes $JSON there (nothing when
// `writes_json` is false) and exits with `status`.
std::string fake_cyclictest(const TempDir& dir, bool writes_json, int status) {
  const std::string path =
      dir.write("fake-cyclictest",
                "#!/bin/sh\n"
                "for a in \"$@\"; do case \"$a\" in --json=*) out=\"${a#--json=}\";; esac; done\n"
                "trap '" +
                    std::string(writes_json ? "printf %s \"$JSON\" > \"$out\"; " : "") + "exit " +
                    std::to_string(status) +
                    "' INT\n"
                    ": > \"${out%/*}/ready\"\n"
                    "while :; do sleep 0.02; done\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

// Waits (at most 10 s) until the stand-in has set its trap.
void wait_ready(const TempDir& dir) {
  for (int i = 0; i < 1000 && !std::filesystem::exists(dir.file("ready")); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(std::filesystem::exists(dir.file("ready"))) << "the stand-in never started";
}

TEST(CyclictestBaseline, WithoutTheOptionNothingHappens) {
  CyclictestBaseline b;
  EXPECT_FALSE(b.configured());
  EXPECT_EQ(b.start("/nonexistent", 5, {}), "");
  b.stop();
  RunResult r;
  b.fill(r);
  EXPECT_FALSE(r.baseline);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(CyclictestBaseline, ARunThatEndedBeforeItsWindowSaysSo) {
  CyclictestBaseline b;
  b.configure("/usr/bin/cyclictest", 65, 1333);
  b.stop();
  RunResult r;
  b.fill(r);
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->error, "cyclictest was not started (the run ended before its window)");
  EXPECT_EQ(r.baseline->tool, "cyclictest");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "--baseline cyclictest gave no figures: cyclictest was not started (the run ended "
            "before its window)");
}

TEST(CyclictestBaseline, StoppedWithSigintItsJsonFileGivesTheFigures) {
  TempDir dir("baseline");
  ::setenv("JSON", kJson, 1);
  CyclictestBaseline b;
  b.configure(fake_cyclictest(dir, true, 0), 0, 1333);
  EXPECT_EQ(b.start(dir.str(), 2, {}),
            "started the timer baseline: cyclictest at SCHED_OTHER 0, every 1333 usecs");
  wait_ready(dir);
  b.stop();
  EXPECT_EQ(b.error(), "");
  RunResult r;
  b.fill(r);
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->wakeups, 12u);
  EXPECT_EQ(r.baseline->interval_us, 1333);
  EXPECT_TRUE(r.warnings.empty());
  b.stop();  // idempotent: the figures stay
  EXPECT_EQ(b.error(), "");
}

TEST(CyclictestBaseline, ACyclictestThatWritesNothingIsReportedWithItsExitAndLog) {
  TempDir dir("baseline");
  CyclictestBaseline b;
  b.configure(fake_cyclictest(dir, false, 3), 0, 1333);
  b.start(dir.str(), 2, {});
  wait_ready(dir);
  b.stop();
  EXPECT_NE(b.error().find("cyclictest exited with status 3: "), std::string::npos) << b.error();
  EXPECT_NE(b.error().find("(its log: " + dir.file("baseline-cyclictest.log") + ")"),
            std::string::npos)
      << b.error();
  RunResult r;
  b.fill(r);
  ASSERT_TRUE(r.baseline);
  EXPECT_EQ(r.baseline->error, b.error());
  EXPECT_EQ(r.warnings.size(), 1u);
}

}  // namespace
}  // namespace xrunlab
