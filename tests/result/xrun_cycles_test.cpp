// SPDX-License-Identifier: GPL-2.0-or-later
// Xrun events keyed by their cycle (engine/result/xrun_cycles.hpp): frame times mapped to the
// table's cycles, xrun cycles grouped into events, and every source counted against them, on
// rows and reports made by hand.
#include "engine/result/xrun_cycles.hpp"

#include <gtest/gtest.h>

#include "engine/result/cycle_join.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kPeriod = 256;

TEST(FrameCycleMap, OneAnchorServesAStretchOfWholePeriods) {
  FrameCycleMap m(kPeriod);
  EXPECT_FALSE(m.cycle(0)) << "no rows yet";
  for (uint64_t id = 100; id < 110; ++id)
    m.add(id, static_cast<uint32_t>(5 + (id - 100) * kPeriod));
  EXPECT_EQ(m.cycle(5), 100u);
  EXPECT_EQ(m.cycle(5 + kPeriod - 1), 100u) << "every frame of a period is its cycle";
  EXPECT_EQ(m.cycle(5 + 3 * kPeriod), 103u);
  EXPECT_EQ(m.cycle(5 + 20 * kPeriod), 120u) << "after the last row: one period per cycle";
  EXPECT_FALSE(m.cycle(4)) << "before the first row";
}

TEST(FrameCycleMap, JacksCounterJumpingAfterAnXrunStartsANewStretch) {
  FrameCycleMap m(kPeriod);
  m.add(10, 1000);
  m.add(11, 1000 + kPeriod);
  m.add(12, 1000 + 2 * kPeriod + 77);  // JACK2 moved its frame counter on after an xrun
  m.add(13, 1000 + 3 * kPeriod + 77);
  EXPECT_EQ(m.cycle(1000 + kPeriod), 11u);
  EXPECT_EQ(m.cycle(1000 + 2 * kPeriod), 11u) << "between the stretches: the later one's first - 1";
  EXPECT_EQ(m.cycle(1000 + 2 * kPeriod + 77), 12u);
  EXPECT_EQ(m.cycle(1000 + 3 * kPeriod + 77), 13u);
}

// jackd stopped: rows 11..69 had no client (no frame time); JACK's counter stood still, so the
// cycle it processed on resuming (frame 1000 + 2 periods, seen by an xrun callback but by no
// row) is the last one before the next row, not the one after row 10.
TEST(FrameCycleMap, AfterAStallJacksCounterResumesWhereItStood) {
  FrameCycleMap m(kPeriod);
  m.add(9, 1000 - kPeriod);
  m.add(10, 1000);
  m.add(70, 1000 + 3 * kPeriod);
  m.add(71, 1000 + 4 * kPeriod);
  EXPECT_EQ(m.cycle(1000 + kPeriod - 1), 10u) << "inside row 10's period";
  EXPECT_EQ(m.cycle(1000 + kPeriod), 69u);
  EXPECT_EQ(m.cycle(1000 + 2 * kPeriod), 69u);
  EXPECT_EQ(m.cycle(1000 + 3 * kPeriod), 70u);
  EXPECT_EQ(m.cycle(1000 + 6 * kPeriod), 73u);
}

TEST(FrameCycleMap, TheFrameCounterWrapsAfter2To32Frames) {
  FrameCycleMap m(kPeriod);
  const uint32_t near_end = 0xFFFFFFFFu - kPeriod + 1;  // the last period before the wrap
  m.add(7, near_end);
  m.add(8, near_end + kPeriod);  // wraps to 0
  m.add(9, kPeriod);
  EXPECT_EQ(m.cycle(near_end), 7u);
  EXPECT_EQ(m.cycle(0), 8u);
  EXPECT_EQ(m.cycle(kPeriod + 1), 9u);
}

TEST(XrunRunBuilder, ConsecutiveXrunCyclesAreOneEvent) {
  XrunRunBuilder b;
  const double p = 0.005;
  for (uint64_t id = 1; id <= 10; ++id) {
    const bool xrun = id == 3 || id == 4 || id == 5 || id == 8;
    b.add(id, xrun, id == 4 ? std::nullopt : std::optional<double>(static_cast<double>(id) * p), p);
  }
  ASSERT_EQ(b.runs().size(), 2u);
  EXPECT_EQ(b.cycles(), 4u);
  EXPECT_EQ(b.runs()[0].first, 3u);
  EXPECT_EQ(b.runs()[0].last, 5u);
  EXPECT_DOUBLE_EQ(b.runs()[0].t_s, 3 * p);
  EXPECT_DOUBLE_EQ(b.runs()[0].deadline_t_s, 4 * p);
  EXPECT_EQ(b.runs()[1].first, 8u);
  EXPECT_EQ(b.runs()[1].cycles(), 1u);
  EXPECT_EQ(b.last_id(), 10u);
}

TEST(XrunRunBuilder, ACycleWithNoTimeHasItExtrapolatedAndSaysSo) {
  XrunRunBuilder b;
  b.add(1, false, 0.010, 0.005);
  b.add(2, true, std::nullopt, 0.005);
  ASSERT_EQ(b.runs().size(), 1u);
  EXPECT_TRUE(b.runs()[0].time_estimated);
  EXPECT_DOUBLE_EQ(b.runs()[0].t_s, 0.015);
}

std::vector<XrunRun> three_events() {
  // cycles 10, 20-22, 40; one period is 5 ms, cycle n's interrupt at n * 5 ms.
  auto run = [](uint64_t first, uint64_t last) {
    const auto f = static_cast<double>(first);
    return XrunRun{first, last, f * 0.005, (f + 1) * 0.005, false};
  };
  return {run(10, 10), run(20, 22), run(40, 40)};
}

TEST(XrunCycles, ACallbackReportsTheLatestEventThatBeganAtMostOneCycleAfterIt) {
  const auto runs = three_events();
  const uint64_t lag = 100;  // no bound in reach
  EXPECT_FALSE(event_of_arrival_cycle(runs, 8, lag)) << "two cycles before any xrun cycle";
  EXPECT_EQ(event_of_arrival_cycle(runs, 9, lag), 0u) << "a driver xrun: the last cycle processed";
  EXPECT_EQ(event_of_arrival_cycle(runs, 11, lag), 0u) << "a late client: a later cycle";
  EXPECT_EQ(event_of_arrival_cycle(runs, 18, lag), 0u);
  EXPECT_EQ(event_of_arrival_cycle(runs, 19, lag), 1u);
  EXPECT_EQ(event_of_arrival_cycle(runs, 400, 1000), 2u);
}

TEST(XrunCycles, ACallbackLaterThanTheBoundAfterTheEventsLastCycleIsNotTheEvents) {
  const auto runs = three_events();  // 10, 20-22, 40
  EXPECT_EQ(event_of_arrival_cycle(runs, 14, 4), 0u) << "4 cycles after 10: within";
  EXPECT_FALSE(event_of_arrival_cycle(runs, 15, 4)) << "5 cycles after 10: outside the chain";
  EXPECT_EQ(event_of_arrival_cycle(runs, 26, 4), 1u) << "the bound counts from the last cycle";
  EXPECT_FALSE(event_of_arrival_cycle(runs, 27, 4));
  EXPECT_FALSE(event_of_arrival_cycle(runs, 400, 4));
}

TEST(XrunCycles, TheReportLagIsFourCyclesOrFiftyMillisecondsWhicheverIsLonger) {
  EXPECT_EQ(report_lag_cycles(21.333), 4u) << "1024 frames at 48 kHz";
  EXPECT_EQ(report_lag_cycles(1.333), 38u) << "64 frames: 50 ms is 37.5 cycles";
  EXPECT_EQ(report_lag_cycles(5.0), 10u);
  EXPECT_EQ(report_lag_cycles(0), 4u) << "an unknown period";
}

TEST(XrunCycles, MonitorCallbacksAreCountedAgainstTheEventsAndTheMissedOnesNamed) {
  const auto runs = three_events();
  // Two callbacks for event 10 (two late clients), one report of 40 three cycles late, one
  // callback before any xrun cycle, one before the table (not counted at all). 20-22: none.
  const SourceTally t =
      tally_arrival_cycles(runs, {5, 11, 11, 44, std::nullopt}, /*cut=*/false, 5.0);
  const SourceTally driver = tally_arrival_cycles(runs, {9}, false, 5.0);
  EXPECT_EQ(driver.events_reported, 1u);
  EXPECT_EQ(driver.lag_max_cycles, 0u) << "reported before its deadline counts no lag";
  EXPECT_EQ(t.reports, 4u);
  EXPECT_EQ(t.reports_unmatched, 1u);
  EXPECT_EQ(t.events_judged, 3u);
  EXPECT_EQ(t.events_reported, 2u);
  EXPECT_EQ(t.events_missed, 1u);
  ASSERT_EQ(t.missed.size(), 1u);
  EXPECT_EQ(t.missed[0].first, 20u);
  EXPECT_EQ(t.missed[0].last, 22u);
  EXPECT_EQ(t.lag_max_cycles, 3u) << "44 - (40 + 1)";
  EXPECT_DOUBLE_EQ(*t.lag_max_ms, 15.0);
  EXPECT_FALSE(t.until_s);
}

TEST(XrunCycles, ACutListJudgesOnlyTheEventsUpToItsLastReport) {
  const auto runs = three_events();
  const SourceTally t = tally_arrival_cycles(runs, {11}, /*cut=*/true, 5.0);
  EXPECT_EQ(t.events_judged, 1u);
  EXPECT_EQ(t.events_reported, 1u);
  EXPECT_EQ(t.events_missed, 0u) << "20-22 and 40 may be reported by callbacks not listed";
  ASSERT_TRUE(t.until_s);
  EXPECT_DOUBLE_EQ(*t.until_s, 0.050);
}

TEST(XrunCycles, ALogLineReportsTheLatestEventWhoseDeadlineHadPassedWithinTheBound) {
  const auto runs = three_events();  // 5 ms periods: the bound is 10 periods (50 ms)
  // 0.054 s: before 10's deadline (0.055): before every event. 0.056: event 10. 0.106: 20-22
  // (deadline 0.105). 0.25: 40, 45 ms after its deadline. 0.3: 95 ms after it, past the bound:
  // an xrun outside the chain.
  const SourceTally t = tally_arrival_times(runs, {0.054, 0.056, 0.106, 0.25, 0.3}, false, 5.0);
  EXPECT_EQ(t.reports, 5u);
  EXPECT_EQ(t.reports_unmatched, 2u);
  EXPECT_EQ(t.events_reported, 3u);
  EXPECT_EQ(t.events_missed, 0u);
  EXPECT_NEAR(*t.lag_max_ms, 45.0, 1e-9);
  EXPECT_FALSE(t.lag_max_cycles);
}

TEST(XrunCycles, AGlitchIsExplainedInItsEventOrTheTwoCyclesAfterIt) {
  const auto runs = three_events();
  EXPECT_FALSE(event_of_heard_cycle(runs, 9));
  EXPECT_EQ(event_of_heard_cycle(runs, 10), 0u) << "in the missed cycle itself";
  EXPECT_EQ(event_of_heard_cycle(runs, 12), 0u) << "two cycles after it";
  EXPECT_FALSE(event_of_heard_cycle(runs, 13)) << "three after it: not this xrun's";
  EXPECT_EQ(event_of_heard_cycle(runs, 24), 1u);
  std::vector<std::optional<size_t>> of;
  const SourceTally t = tally_heard_cycles(runs, {11, 11, 13, std::nullopt, 41}, false, &of);
  EXPECT_EQ(t.reports, 5u);
  EXPECT_EQ(t.reports_unmatched, 2u) << "cycle 13, and a glitch in no cycle of the table";
  EXPECT_EQ(t.events_reported, 2u);
  EXPECT_EQ(t.events_missed, 1u);
  EXPECT_EQ(t.missed.at(0).first, 20u);
  ASSERT_EQ(of.size(), 5u);
  EXPECT_EQ(of[0], 0u);
  EXPECT_FALSE(of[2]);
  EXPECT_EQ(of[4], 2u);
}

TEST(XrunCycles, AtMostTheFirstThousandMissedEventsAreNamedAndAllCounted) {
  std::vector<XrunRun> runs;
  for (uint64_t i = 0; i < 1500; ++i) {
    const auto t = static_cast<double>(i) * 0.05;
    runs.push_back({i * 10, i * 10, t, t + 0.005});
  }
  const SourceTally t = tally_arrival_times(runs, {}, false, 5.0);
  EXPECT_EQ(t.events_missed, 1500u);
  EXPECT_EQ(t.missed.size(), SourceTally::kMissedNamed);
}

// The whole path on a result: a joiner fed frame-keyed rows (c02 did not run in cycle 1002,
// c02 overran cycle 1005), then the monitor's callbacks, jackd's lines and the tail's glitches.
TEST(XrunCycles, CountAgainstCyclesTiesEverySourceAndEveryGlitchToItsCycle) {
  JoinConfig jc;
  jc.rate = 48000;
  jc.frames = kPeriod;
  jc.client_names = {"c01", "c02"};
  CycleJoiner j(jc);
  const int64_t period_ns = j.period_ns();
  j.set_origin(1000 * period_ns);
  for (uint64_t id = 1000; id < 1010; ++id) {
    JoinRow row;
    row.id = id;
    const int64_t wake = static_cast<int64_t>(id) * period_ns;
    for (int k = 0; k < 2; ++k) {
      JoinCell c;
      c.ran = !(id == 1002 && k == 1);
      c.entry_ns = wake + 10000 + k * 100000;
      c.exit_ns = c.entry_ns + (id == 1005 && k == 1 ? period_ns : 50000);
      c.wake_ns = wake;
      c.frame = static_cast<uint32_t>(id * kPeriod);
      row.cells.push_back(c);
    }
    j.add(row);
  }
  RunResult r;
  r.period_us = static_cast<double>(period_ns) / 1e3;
  r.cycle_table = j.table();
  ASSERT_EQ(r.cycle_table.missed, 2u);
  ASSERT_EQ(j.xrun_runs().size(), 2u);
  AudioResult a;
  a.period_frames = kPeriod;
  auto glitch = [&](uint64_t cycle, uint64_t at) {
    GlitchResult g;
    g.report.frame = static_cast<uint32_t>(cycle * kPeriod + 3);
    g.report.at_frame = at;
    g.t_s = static_cast<double>(cycle - 1000) * 0.005;
    return g;
  };
  a.glitches = {glitch(1003, 768), glitch(1009, 2304)};  // heard after 1002; 1009: nothing
  a.totals.glitches = 2;
  r.audio = a;
  r.xruns.log_events.push_back({0.0165, false, {"xrunlab-c02"}});  // after 1002's deadline
  XrunReports in;
  in.monitor.cycles = {1003, 1006, 1006};
  in.monitor.t_s = {0.0155, 0.031, 0.031};
  in.log = {{0.0165, false, "xrunlab-c02", true}};
  count_against_cycles(r, j.xrun_runs(), j.frames(), in);

  const XrunCycles& x = r.xrun_cycles;
  ASSERT_TRUE(x.present);
  EXPECT_EQ(x.cycles, 2u);
  EXPECT_EQ(x.events, 2u);
  ASSERT_EQ(x.sources.size(), 3u);
  EXPECT_EQ(x.sources[0].key, "monitor");
  EXPECT_EQ(x.sources[0].events_reported, 2u);
  EXPECT_EQ(x.sources[0].events_missed, 0u);
  EXPECT_EQ(x.sources[1].key, "jackd_log");
  EXPECT_EQ(x.sources[1].events_reported, 1u);
  ASSERT_EQ(x.sources[1].missed.size(), 1u);
  EXPECT_EQ(x.sources[1].missed[0].first, 1005u) << "the log missed the overrun of 1005";
  EXPECT_EQ(x.sources[2].key, "audio");
  EXPECT_EQ(x.sources[2].reports_unmatched, 1u);
  EXPECT_EQ(x.sources[2].events_missed, 1u) << "1005 was not heard";

  const AudioResult& out = *r.audio;
  EXPECT_EQ(out.matched_by, "cycle");
  EXPECT_EQ(out.glitches_without_xrun, 1u);
  EXPECT_EQ(out.xruns_without_glitch, 1u);
  EXPECT_EQ(out.events, 2u);
  EXPECT_TRUE(out.glitches[0].matched);
  EXPECT_EQ(out.glitches[0].cycle, 1003u);
  EXPECT_EQ(out.glitches[0].xrun_cycle, 1002u);
  EXPECT_EQ(out.glitches[0].late_clients, std::vector<std::string>{"xrunlab-c02"});
  EXPECT_FALSE(out.glitches[1].matched);
  EXPECT_EQ(out.glitches[1].cycle, 1009u);
  EXPECT_FALSE(out.glitches[1].xrun_cycle);

  // finalize keeps the cycle matching (the 50 ms window would have matched nothing here).
  finalize(r);
  EXPECT_EQ(r.audio->matched_by, "cycle");
  EXPECT_TRUE(r.audio->glitches[0].matched);
  EXPECT_EQ(r.audio->glitches_without_xrun, 1u);
}

TEST(XrunCycles, WithoutATableNothingIsCounted) {
  RunResult r;
  count_against_cycles(r, {}, FrameCycleMap(kPeriod), XrunReports{});
  EXPECT_FALSE(r.xrun_cycles.present);
}

}  // namespace
}  // namespace xrunlab
