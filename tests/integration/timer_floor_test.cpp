// SPDX-License-Identifier: GPL-2.0-or-later
// Integration tests of the built xrunlab-timer-floor binary (a real timerfd, real scheduling):
// the JSON's structure, counts that are exact by construction (every boundary of the window is
// a wake-up or counted missed; a timerfd never fires before its deadline), SIGINT, bad input.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef XRUNLAB_TIMER_FLOOR_BIN
#error "XRUNLAB_TIMER_FLOOR_BIN must be defined as the path of the built xrunlab-timer-floor"
#endif

namespace xrunlab {
namespace {

using testing_support::read_text_or_empty;
using testing_support::TempDir;

struct Ran {
  int status = -1;  // exit status, -1 when it did not exit normally
  std::string output;
};

Ran run_floor(const std::vector<std::string>& args, const std::string& log,
              int interrupt_after_ms = -1) {
  SpawnSpec spec;
  spec.argv = {XRUNLAB_TIMER_FLOOR_BIN};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.output_path = log;
  Child c = Child::spawn(spec);
  if (interrupt_after_ms >= 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(interrupt_after_ms));
    c.signal(SIGINT);
  }
  Ran r;
  if (!c.wait_for(std::chrono::seconds(30))) {
    c.stop(std::chrono::milliseconds(500));
    ADD_FAILURE() << "xrunlab-timer-floor did not end";
    return r;
  }
  const int st = c.wait_status().value_or(-1);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.output = read_text_or_empty(log);
  return r;
}

uint64_t bins_total(const nlohmann::json& j) {
  uint64_t n = 0;
  for (const auto& b : j.at("bins")) n += b.at(1).get<uint64_t>();
  return n;
}

TEST(TimerFloor, EveryBoundaryOfTheWindowIsAWakeUpOrCountedMissedAndNoneBeforeItsDeadline) {
  TempDir dir("timer-floor");
  const std::string out = (dir.path() / "floor.json").string();
  const Ran r = run_floor(
      {"--priority", "0", "--duration", "1", "--rate", "48000", "--period", "256", "--output", out},
      (dir.path() / "log").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(read_text_or_empty(out));
  EXPECT_EQ(j.at("tool"), "xrunlab-timer-floor");
  EXPECT_EQ(j.at("clock"), "CLOCK_MONOTONIC");
  EXPECT_EQ(j.at("rate"), 48000);
  EXPECT_EQ(j.at("period_frames"), 256);
  EXPECT_EQ(j.at("policy"), "SCHED_OTHER");
  EXPECT_EQ(j.at("interrupted"), false);
  const uint64_t wakeups = j.at("wakeups").get<uint64_t>();
  const uint64_t missed = j.at("missed_boundaries").get<uint64_t>();
  const uint64_t first = j.at("first_boundary").get<uint64_t>();
  const uint64_t last = j.at("last_boundary").get<uint64_t>();
  // 1 s of a 5.333 ms grid: 187 or 188 boundaries, each once.
  EXPECT_EQ(wakeups + missed, last - first + 1);
  EXPECT_GE(last - first + 1, 187u);
  EXPECT_LE(last - first + 1, 188u);
  EXPECT_GT(wakeups, 0u);
  EXPECT_EQ(j.at("lateness_us").at("count").get<uint64_t>(), wakeups);
  EXPECT_EQ(bins_total(j), wakeups);
  EXPECT_GE(j.at("lateness_us").at("min").get<int64_t>(), 0) << "woke before a deadline";
  EXPECT_TRUE(j.at("lateness_us").at("p99").at("exact").get<bool>());
}

TEST(TimerFloor, WithAnOffsetEveryBoundaryIsStillCountedOnceAndNoneBeforeItsDeadline) {
  TempDir dir("timer-floor");
  const std::string out = (dir.path() / "floor.json").string();
  const Ran r =
      run_floor({"--priority", "0", "--duration", "1", "--offset-us", "2667", "--output", out},
                (dir.path() / "log").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(read_text_or_empty(out));
  EXPECT_EQ(j.at("offset_us"), 2667);
  const uint64_t first = j.at("first_boundary").get<uint64_t>();
  const uint64_t last = j.at("last_boundary").get<uint64_t>();
  EXPECT_EQ(j.at("wakeups").get<uint64_t>() + j.at("missed_boundaries").get<uint64_t>(),
            last - first + 1);
  EXPECT_GE(j.at("lateness_us").at("min").get<int64_t>(), 0) << "woke before a deadline";
}

TEST(TimerFloor, SigintEndsTheLoopEarlyAndTheJsonIsStillWritten) {
  TempDir dir("timer-floor");
  const std::string out = (dir.path() / "floor.json").string();
  const Ran r = run_floor({"--priority", "0", "--duration", "60", "--output", out},
                          (dir.path() / "log").string(), 300);
  ASSERT_EQ(r.status, 0) << r.output;
  const nlohmann::json j = nlohmann::json::parse(read_text_or_empty(out));
  EXPECT_EQ(j.at("interrupted"), true);
  EXPECT_GT(j.at("wakeups").get<uint64_t>(), 0u);
  // 60 s of boundaries were due; it stopped long before.
  EXPECT_LT(j.at("wakeups").get<uint64_t>() + j.at("missed_boundaries").get<uint64_t>(),
            j.at("last_boundary").get<uint64_t>() - j.at("first_boundary").get<uint64_t>());
  EXPECT_EQ(bins_total(j), j.at("wakeups").get<uint64_t>());
}

TEST(TimerFloor, BadInputIsOneLineWithTheDocumentedExitCode) {
  TempDir dir("timer-floor");
  const std::string log = (dir.path() / "log").string();
  Ran r = run_floor({"--priority", "100"}, log);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("xrunlab-timer-floor: error:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--priority"), std::string::npos) << r.output;

  const std::string bad = (dir.path() / "no-such-folder" / "floor.json").string();
  r = run_floor({"--priority", "0", "--output", bad}, (dir.path() / "log2").string());
  EXPECT_EQ(r.status, 6) << r.output;
  EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
}

}  // namespace
}  // namespace xrunlab
