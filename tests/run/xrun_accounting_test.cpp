// SPDX-License-Identifier: GPL-2.0-or-later
// When the run's xrun reports are taken and counted (engine/run/xrun_accounting.hpp), with a
// fake source: every take hands over only what is new, reports after the window's end are left
// out, and a run with the audio check forgets nothing (and does not even read jackd's events)
// while its glitch list has room.
#include "engine/run/xrun_accounting.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

class FakeSource : public XrunReportSource {
 public:
  std::vector<XrunCallback> callbacks;
  std::vector<XrunLogLine> lines;
  bool callbacks_cut = false;
  int log_event_reads = 0;
  int takes = 0;

  void take_callbacks(std::vector<XrunCallback>& out, bool* cut) override {
    ++takes;
    out = std::move(callbacks);
    callbacks.clear();
    *cut = callbacks_cut;
  }
  void take_log_lines(std::vector<XrunLogLine>& out, bool* cut) override {
    out = std::move(lines);
    lines.clear();
    *cut = false;
  }
  std::vector<LogXrunEvent> log_events() override {
    ++log_event_reads;
    return {};
  }
};

CycleJoiner joiner() {
  JoinConfig c;
  c.client_names = {"c01", "c02"};
  c.dsp_nominal_us = {0, 0};
  return CycleJoiner(c);
}

TEST(XrunAccounting, EachTakeHandsOverOnlyWhatIsNewAndTheEndLeavesOutLateReports) {
  FakeSource source;
  XrunAccounting x(source);
  const CycleJoiner j = joiner();
  source.callbacks = {{100, 0}, {200, 64}};
  source.lines = {{0.5, false, "c01", true}};
  XrunReports r = x.pending(j, /*horizon=*/false);
  EXPECT_EQ(r.monitor.cycles.size(), 2u);
  EXPECT_EQ(r.log.size(), 1u);
  EXPECT_FALSE(r.monitor_cut);

  source.callbacks = {{300, 128}};
  source.callbacks_cut = true;
  x.close_at(250);
  r = x.pending(j, /*horizon=*/false);
  EXPECT_EQ(r.monitor.cycles.size(), 2u) << "the one at 300 us is after the window's end";
  EXPECT_TRUE(r.monitor_cut);
  EXPECT_EQ(x.ledger().pending_callbacks(), 3u) << "kept, only not counted";
  EXPECT_EQ(source.takes, 2);
}

TEST(XrunAccounting, ACheckpointLeavesOutReportsNewerThanTheTableRead) {
  FakeSource source;
  XrunAccounting x(source);
  const CycleJoiner j = joiner();
  source.lines = {{0.5, false, "c01", true}, {1.0, false, "c01", true}};
  EXPECT_TRUE(x.pending(j, /*horizon=*/true).log.empty()) << "no row read yet";
  EXPECT_EQ(x.pending(j, /*horizon=*/false).log.size(), 2u);
}

TEST(XrunAccounting, WithTheAudioCheckNothingIsSettledWhileTheGlitchListHasRoom) {
  FakeSource source;
  XrunAccounting x(source);
  x.set_audio(true);
  CycleJoiner j = joiner();
  LiveResult live;
  live.owned().audio.emplace();
  source.callbacks = {{100, 0}};
  source.lines = {{0.5, false, "c01", true}};
  x.settle(j, live, 60.0, 5.333);
  EXPECT_EQ(source.takes, 1);
  EXPECT_EQ(source.log_event_reads, 0) << "jackd's events are read only for a full list";
  EXPECT_EQ(x.ledger().pending_callbacks(), 1u);
  EXPECT_EQ(x.ledger().pending_log_lines(), 1u);
  EXPECT_FALSE(x.ledger().audio_frozen());

  live.owned().audio->glitches.resize(kGlitchesKept);
  x.settle(j, live, 61.0, 5.333);
  EXPECT_EQ(source.log_event_reads, 1) << "a full list is tied to jackd's events";
}

TEST(XrunAccounting, WithoutTheAudioCheckTheGlitchListIsNeverRead) {
  FakeSource source;
  XrunAccounting x(source);
  CycleJoiner j = joiner();
  LiveResult live;
  source.callbacks = {{100, 0}};
  x.settle(j, live, 60.0, 5.333);
  EXPECT_EQ(source.log_event_reads, 0);
  EXPECT_EQ(source.takes, 1);
}

}  // namespace
}  // namespace xrunlab
