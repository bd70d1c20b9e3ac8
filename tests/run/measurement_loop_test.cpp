// SPDX-License-Identifier: GPL-2.0-or-later
// The measurement window's timing (engine/run/measurement_loop.hpp) with a fake clock that
// advances 10 ms per pause: which steps run when, and how each way of stopping ends the window.
#include "engine/run/measurement_loop.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace xrunlab {
namespace {

constexpr uint64_t kT0 = 7'000'000;  // JACK time of the window's start

class FakeWindow : public WindowSteps {
 public:
  uint64_t now = kT0;
  uint64_t interrupt_at = UINT64_MAX;
  uint64_t fail_at = UINT64_MAX;
  bool progress_shown = true;
  int watches = 0, polls = 0;
  std::vector<uint64_t> samples, progress_at, checkpoints;

  uint64_t now_us() override { return now; }
  bool interrupted() override { return now >= interrupt_at; }
  StopReason stop_reason() override {
    if (now >= fail_at) return {StopKind::kServerEnded, "jackd exited with status 1"};
    return {};
  }
  void watch() override { ++watches; }
  void sample(uint64_t until) override { samples.push_back(until - kT0); }
  void poll(uint64_t) override { ++polls; }
  bool shows_progress() override { return progress_shown; }
  void progress(uint64_t elapsed_us) override { progress_at.push_back(elapsed_us); }
  void checkpoint(uint64_t at) override { checkpoints.push_back(at - kT0); }
  void pause() override { now += 10000; }
};

TEST(MeasurementLoop, AWindowThatRunsToItsEndTakesEverySecondPollsAndCheckpoints) {
  FakeWindow w;
  const WindowEnd end = run_window(kT0, kT0 + 5'000'000, w);
  EXPECT_FALSE(end.reason.stopped());
  EXPECT_EQ(end.end_us, kT0 + 5'000'000);
  EXPECT_EQ(w.samples,
            (std::vector<uint64_t>{1'000'000, 2'000'000, 3'000'000, 4'000'000, 5'000'000}));
  EXPECT_EQ(end.last_sample_us, kT0 + 5'000'000);
  EXPECT_EQ(w.progress_at, (std::vector<uint64_t>{0, 1'000'000, 2'000'000, 3'000'000, 4'000'000}));
  EXPECT_EQ(w.checkpoints, (std::vector<uint64_t>{1'500'000})) << "the next is 5 s later";
  EXPECT_EQ(w.polls, 50) << "every 100 ms of the 5 s";
  EXPECT_EQ(w.watches, 501);
}

TEST(MeasurementLoop, CheckpointsComeEveryFiveSecondsEarlyOnAndASixtiethOfTheTimeLater) {
  FakeWindow w;
  w.progress_shown = false;
  run_window(kT0, kT0 + 400'000'000, w);
  ASSERT_GE(w.checkpoints.size(), 3u);
  EXPECT_EQ(w.checkpoints[0], 1'500'000u);
  EXPECT_EQ(w.checkpoints[1], 6'500'000u);
  EXPECT_EQ(w.checkpoints[2], 11'500'000u);
  // From 300 s in, elapsed/60 exceeds 5 s: 301.5 s -> next at 301.5 + 5.025 s.
  const auto after = std::find(w.checkpoints.begin(), w.checkpoints.end(), 301'500'000u);
  ASSERT_NE(after, w.checkpoints.end());
  EXPECT_EQ(*(after + 1), 306'530'000u) << "306.525 s, at the loop's next 10 ms step";
  EXPECT_TRUE(w.progress_at.empty()) << "no terminal, no progress line";
}

TEST(MeasurementLoop, AReasonToStopEndsTheWindowThereAndSaysWhy) {
  FakeWindow w;
  w.fail_at = kT0 + 2'345'000;
  const WindowEnd end = run_window(kT0, kT0 + 5'000'000, w);
  EXPECT_EQ(end.reason.kind, StopKind::kServerEnded);
  EXPECT_EQ(end.reason.detail, "jackd exited with status 1");
  EXPECT_EQ(end.end_us, kT0 + 2'350'000) << "the first pass at or after the failure";
  EXPECT_EQ(w.samples.size(), 2u) << "the partial third second is the caller's";
  EXPECT_EQ(end.last_sample_us, kT0 + 2'000'000);
}

TEST(MeasurementLoop, ASignalEndsTheWindowAfterTheSecondThatJustEnded) {
  FakeWindow w;
  w.interrupt_at = kT0 + 3'000'000;
  w.fail_at = kT0 + 3'000'000;  // at the same moment as another reason: the signal wins
  const WindowEnd end = run_window(kT0, kT0 + 5'000'000, w);
  EXPECT_EQ(end.reason.kind, StopKind::kInterrupted);
  EXPECT_EQ(end.reason.detail, "");
  EXPECT_EQ(end.end_us, kT0 + 3'000'000);
  EXPECT_EQ(w.samples.size(), 3u) << "the third second ended as the signal came: it is kept";
}

}  // namespace
}  // namespace xrunlab
