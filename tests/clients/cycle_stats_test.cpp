// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/cycle_stats.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace xrunlab {
namespace {

// 48 kHz, 480 frames: a 10 ms period, so 100 cycles per second and 1 frame = 20.83 us.
constexpr uint32_t kRate = 48000, kFrames = 480;
constexpr uint64_t kT0 = 5000000;

struct Collector {
  std::vector<telemetry::Second> seconds;
  std::vector<telemetry::Final> finals;
  CycleStats::Emit emit() {
    return [this](const telemetry::Message& m) {
      if (auto* s = std::get_if<telemetry::Second>(&m)) seconds.push_back(*s);
      if (auto* f = std::get_if<telemetry::Final>(&m)) finals.push_back(*f);
    };
  }
};

CycleRecord rec(uint64_t entry, uint32_t fsc, uint64_t duration, uint32_t frame = 0) {
  CycleRecord r;
  r.t_entry_us = entry;
  r.frames_since_start = fsc;
  r.t_exit_us = entry + duration;
  r.dll_period_start_us = entry - 30;
  r.nframes = kFrames;
  r.frame_time = frame;
  return r;
}

TEST(CycleStats, ConvertsFramesToMicrosecondsRoundingDown) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  EXPECT_EQ(s.frames_to_us(1), 20);
  EXPECT_EQ(s.frames_to_us(48), 1000);
  EXPECT_EQ(s.period_us(), 10000);
}

TEST(CycleStats, IgnoresCyclesOutsideTheWindow) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.consume(rec(kT0 - 10, 0, 5));  // before start is known
  s.set_start(kT0);
  s.set_stop(kT0 + 2000000);
  s.consume(rec(kT0 - 1, 0, 5));  // before the window
  s.consume(rec(kT0, 48, 100));
  s.consume(rec(kT0 + 2000000, 0, 5));  // at the stop time: ends the window
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.cycles_total(), 4u);
  EXPECT_EQ(s.cycles_measured(), 1u);
  ASSERT_EQ(c.seconds.size(), 1u);
  ASSERT_EQ(c.finals.size(), 1u);
  EXPECT_EQ(c.finals[0].cycles_measured, 1u);
}

// The planned end (given with the start) is the end unless a final stop comes earlier: a cycle
// is counted only once it is certain to be inside the window.
TEST(CycleStats, APlannedEndNeverCountsACycleAfterIt) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.set_start(kT0);
  s.set_planned_stop(kT0 + 1000000);
  s.consume(rec(kT0, 1, 100));
  s.consume(rec(kT0 + 999990, 1, 100));
  s.consume(rec(kT0 + 1000000, 1, 100));  // at the planned end: outside
  s.consume(rec(kT0 + 1010000, 1, 100));  // after it, consumed before any stop arrived
  EXPECT_FALSE(s.poll(kT0 + 1000000 + 499, 500));
  EXPECT_TRUE(s.poll(kT0 + 1000000 + 500, 500));
  EXPECT_EQ(s.cycles_measured(), 2u);
  ASSERT_EQ(c.seconds.size(), 1u);
  EXPECT_EQ(c.seconds[0].cycles, 2u);
}

TEST(CycleStats, AnEarlyStopBeforeThePlannedEndStillCountsNothingAfterIt) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.set_start(kT0);
  s.set_planned_stop(kT0 + 2000000);
  s.consume(rec(kT0 + 100000, 1, 100));
  s.consume(rec(kT0 + 700000, 1, 100));        // after the early end below, consumed before it came
  EXPECT_FALSE(s.poll(kT0 + 700010, 500000));  // both still held: not older than the grace
  s.set_stop(kT0 + 600000);                    // the early stop arrives
  s.consume(rec(kT0 + 710000, 1, 100));        // at or after the final stop: ends the window
  EXPECT_TRUE(s.finished());
  EXPECT_EQ(s.cycles_measured(), 1u);
  ASSERT_EQ(c.finals.size(), 1u);
  EXPECT_EQ(c.finals[0].cycles_measured, 1u);
}

TEST(CycleStats, HeldCyclesAreCountedOnceOlderThanTheHold) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.set_start(kT0);
  s.consume(rec(kT0, 1, 100));
  s.consume(rec(kT0 + 1000000, 1, 100));  // second 1: closes second 0 once counted
  s.poll(kT0 + 1000000 + CycleStats::kHoldUs - 1, 500000);
  EXPECT_EQ(s.cycles_measured(), 1u);  // the first is certain, the second not yet
  EXPECT_EQ(c.seconds.size(), 0u);
  s.poll(kT0 + 1000000 + CycleStats::kHoldUs, 500000);
  EXPECT_EQ(s.cycles_measured(), 2u);
  EXPECT_EQ(c.seconds.size(), 1u);  // second 0 was emitted when second 1 began
}

TEST(CycleStats, ExactPerSecondValuesAndCounters) {
  Collector c;
  CycleStats s(3, kRate, kFrames, c.emit());
  s.set_start(kT0);
  // Second 0: delays of 1 frame (20 us) x 98, one of 48 frames (1000 us, not > 1000),
  // one of 49 frames (1020 us) lasting 9000 us -> cycle 10020 us > period: late.
  for (int i = 0; i < 98; ++i) s.consume(rec(kT0 + i * 10000, 1, 100, i));
  s.consume(rec(kT0 + 980000, 48, 200, 98));
  s.consume(rec(kT0 + 990000, 49, 9000, 99));
  // Second 2 (second 1 has no cycle at all).
  s.consume(rec(kT0 + 2000000, 0, 50, 100));
  s.finish();
  ASSERT_EQ(c.seconds.size(), 3u);
  const auto& s0 = c.seconds[0];
  EXPECT_EQ(s0.index, 3);
  EXPECT_EQ(s0.second, 0);
  EXPECT_EQ(s0.cycles, 100u);
  EXPECT_EQ(s0.delay.at(20), 98u);
  EXPECT_EQ(s0.delay.at(1000), 1u);
  EXPECT_EQ(s0.delay.at(1020), 1u);
  EXPECT_EQ(s0.over_1000, 1u);
  EXPECT_EQ(s0.over_spare, 0u);
  EXPECT_EQ(s0.late, 1u);
  EXPECT_EQ(s0.cycle.rbegin()->first, 10020);
  EXPECT_EQ(s0.duration.rbegin()->first, 9000);
  EXPECT_EQ(s0.delay_dll.at(30), 100u);
  ASSERT_EQ(s0.worst.size(), CycleStats::kWorstPerSecond);
  EXPECT_EQ(s0.worst[0].delay_us, 1020);
  EXPECT_EQ(s0.worst[0].frame, 99u);
  EXPECT_EQ(s0.worst[0].t_us, 990000);
  EXPECT_EQ(s0.worst[1].delay_us, 1000);
  EXPECT_EQ(c.seconds[1].second, 1);
  EXPECT_EQ(c.seconds[1].cycles, 0u);  // a stalled second is reported, not skipped
  EXPECT_EQ(c.seconds[2].cycles, 1u);
}

TEST(CycleStats, DelayOverSpareTimeAndInjectedCycles) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.set_start(kT0);
  CycleRecord r = rec(kT0, 481, 10);  // 10020 us > one period
  r.flags = CycleRecord::kInjected;
  s.consume(r);
  s.finish();
  EXPECT_EQ(c.seconds.at(0).over_spare, 1u);
  EXPECT_EQ(c.seconds.at(0).injected, 1u);
  EXPECT_EQ(c.finals.at(0).injected, 1u);
}

// The callback's ring drops (a running total, from RtShared) reach Final as the last total set.
TEST(CycleStats, FinalCarriesTheRingDropTotal) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.set_start(kT0);
  s.consume(rec(kT0, 0, 10));
  s.add_ring_dropped(3);
  s.add_ring_dropped(7);  // a total, not an increment
  s.finish();
  ASSERT_EQ(c.finals.size(), 1u);
  EXPECT_EQ(c.finals[0].ring_dropped, 7u);
  EXPECT_EQ(c.finals[0].cycles_measured, 1u);
}

TEST(CycleStats, PollFinishesAfterTheStopTimeAndGrace) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.set_start(kT0);
  s.set_stop(kT0 + 1000);
  s.consume(rec(kT0, 0, 10));
  EXPECT_FALSE(s.poll(kT0 + 1000 + 499, 500));
  EXPECT_TRUE(s.poll(kT0 + 1000 + 500, 500));
  EXPECT_EQ(c.finals.size(), 1u);
  s.finish();  // idempotent
  EXPECT_EQ(c.finals.size(), 1u);
}

// --reference card: the delay is measured from the vcard boundary named by the marker, in
// CLOCK_MONOTONIC, and the signalling time from the card's record of jackd's wake-up.
TEST(CycleStats, CardReferenceUsesTheBoundaryAndTheWakeRecord) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  // Boundary m is at m * 10 ms exactly (480 frames at 48 kHz).
  s.set_reference(CycleStats::Reference::kCard, [](uint64_t m, int64_t* wake) {
    if (m == 7) return false;                            // not recorded
    *wake = static_cast<int64_t>(m) * 10000000 + 40000;  // jackd woke 40 us late
    return true;
  });
  s.set_start(kT0);
  s.set_stop(kT0 + 1000000);
  for (uint64_t m = 5; m < 10; ++m) {
    CycleRecord r = rec(kT0 + 100 + m, 0, 30);
    r.flags |= CycleRecord::kHasBoundary;
    r.card_boundary = m;
    r.t_entry_mono_ns = m * 10000000 + 123999;  // 123.999 us after the boundary
    s.consume(r);
  }
  CycleRecord none = rec(kT0 + 200, 3, 30);  // no marker: no delay at all, counted
  s.consume(none);
  s.finish();
  ASSERT_EQ(c.seconds.size(), 1u);
  const telemetry::Second& sec = c.seconds[0];
  EXPECT_EQ(sec.cycles, 6u);
  EXPECT_EQ(sec.unreferenced, 1u);
  EXPECT_EQ(sec.delay.size(), 1u);
  EXPECT_EQ(sec.delay.at(123), 5u);  // rounded down to whole us
  EXPECT_EQ(sec.cycle.at(123 + 30), 5u);
  EXPECT_EQ(sec.signal.at(83), 4u);     // 123.999 - 40 us, boundary 7 not recorded
  EXPECT_EQ(sec.delay_dll.at(30), 6u);  // the DLL figure is kept for every cycle
}

TEST(CycleStats, DllReferenceUsesTheCycleTimes) {
  Collector c;
  CycleStats s(1, kRate, kFrames, c.emit());
  s.set_reference(CycleStats::Reference::kDll);
  s.set_start(kT0);
  s.consume(rec(kT0 + 10, 2, 50));  // dll start = entry - 30
  s.finish();
  ASSERT_EQ(c.seconds.size(), 1u);
  EXPECT_EQ(c.seconds[0].delay.at(30), 1u);
  EXPECT_EQ(c.seconds[0].cycle.at(80), 1u);
}

TEST(CycleStats, NegativeNanosecondsRoundDown) {
  EXPECT_EQ(CycleStats::floor_div_1000(1999), 1);
  EXPECT_EQ(CycleStats::floor_div_1000(0), 0);
  EXPECT_EQ(CycleStats::floor_div_1000(-1), -1);
  EXPECT_EQ(CycleStats::floor_div_1000(-1000), -1);
  EXPECT_EQ(CycleStats::floor_div_1000(-1001), -2);
}

}  // namespace
}  // namespace xrunlab
