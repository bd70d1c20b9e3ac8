// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/result.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

telemetry::Second second(int index, int64_t s, std::map<int64_t, uint64_t> delay) {
  telemetry::Second out;
  out.index = index;
  out.second = s;
  for (const auto& [v, n] : delay) out.cycles += n;
  out.delay = delay;
  out.delay_dll = delay;
  out.duration = {{100, out.cycles}};
  out.cycle = {};
  for (const auto& [v, n] : delay) out.cycle[v + 100] += n;
  return out;
}

TEST(Result, AddSecondMergesExactlyAndKeepsPerSecondRows) {
  ClientResult c;
  add_second(c, second(1, 0, {{20, 3}, {40, 1}}));
  add_second(c, second(1, 1, {{1500, 1}}));
  EXPECT_EQ(c.cycles, 5u);
  EXPECT_EQ(*c.delay.max(), 1500);
  ASSERT_EQ(c.seconds.size(), 2u);
  EXPECT_EQ(*c.seconds[0].delay_min_us, 20);
  EXPECT_EQ(*c.seconds[0].delay_max_us, 40);
  EXPECT_DOUBLE_EQ(*c.seconds[0].delay_mean_us, 25.0);
  EXPECT_EQ(*c.seconds[1].cycle_max_us, 1600);
}

TEST(Result, EmptySecondHasNoMinMax) {
  ClientResult c;
  add_second(c, second(1, 0, {}));
  ASSERT_EQ(c.seconds.size(), 1u);
  EXPECT_FALSE(c.seconds[0].delay_max_us);
  EXPECT_EQ(c.cycles, 0u);
}

TEST(Result, ValuesCountedZeroTimesAreNoValuesOfTheSecond) {
  ClientResult c;
  add_second(c, second(1, 0, {{5, 0}, {20, 2}, {40, 0}}));
  add_second(c, second(1, 1, {{30, 0}}));
  ASSERT_EQ(c.seconds.size(), 2u);
  EXPECT_EQ(*c.seconds[0].delay_min_us, 20);
  EXPECT_EQ(*c.seconds[0].delay_max_us, 20);
  EXPECT_DOUBLE_EQ(*c.seconds[0].delay_mean_us, 20.0);
  EXPECT_FALSE(c.seconds[1].delay_min_us);
  EXPECT_FALSE(c.seconds[1].delay_max_us);
  EXPECT_FALSE(c.seconds[1].delay_mean_us);  // not 0/0
}

TEST(Result, WorstCyclesAreBoundedAndSorted) {
  ClientResult c;
  for (int s = 0; s < 20; ++s) {
    telemetry::Second x = second(1, s, {{s, 1}});
    x.worst = {{s * 1000000, static_cast<uint32_t>(s), s, 1, s + 1}};
    add_second(c, x, 5);
  }
  ASSERT_EQ(c.worst.size(), 5u);
  EXPECT_EQ(c.worst.front().delay_us, 19);
  EXPECT_EQ(c.worst.back().delay_us, 15);
}

TEST(Result, FinalizeTotalsAcrossClientsAndSeconds) {
  RunResult r;
  r.client_results.resize(2);
  add_second(r.client_results[0], second(1, 0, {{20, 2}}));
  add_second(r.client_results[1], second(2, 0, {{1200, 1}}));
  r.client_results[1].over_1000 = 1;
  r.xruns.monitor_events = 3;
  r.xruns.log_driver_xruns = 2;
  r.xruns.late_clients = {"xrunlab-c02"};
  SystemSecond a, b;
  a.user_pct = 10;
  a.dsp_load_pct = 20;
  b.user_pct = 30;
  b.dsp_load_pct = 40;
  b.intr_per_s = 1000;
  r.system = {a, b};
  finalize(r);
  EXPECT_EQ(*r.delay.max_us, 1200);
  EXPECT_EQ(*r.cycle.max_us, 1300);
  EXPECT_EQ(r.delay.count, 3u);
  EXPECT_EQ(r.delay_over_1000, 1u);
  EXPECT_EQ(r.xrun_count, 5u);  // client-late events + driver xruns
  EXPECT_EQ(r.timeout_count, 1u);
  EXPECT_DOUBLE_EQ(r.avg_user, 20.0);
  EXPECT_DOUBLE_EQ(*r.avg_dsp_load, 30.0);
  EXPECT_DOUBLE_EQ(r.avg_intr, 500.0);
  // Each client's summaries, what run.json and summary.txt show of its histograms.
  EXPECT_EQ(r.client_results[0].summary.delay.max_us, 20);
  EXPECT_EQ(r.client_results[0].summary.delay.count, 2u);
  EXPECT_EQ(r.client_results[1].summary.cycle.max_us, 1300);
  EXPECT_EQ(r.client_results[1].summary.duration.max_us, 100);
  EXPECT_EQ(r.client_results[1].summary.delay_dll.p99->value_us, 1200);
  EXPECT_EQ(r.client_results[1].summary.signal.count, 0u);
}

TEST(Result, FinalizeOfNothingIsZeroNotGarbage) {
  RunResult r;
  finalize(r);
  EXPECT_EQ(r.delay.count, 0u);
  EXPECT_FALSE(r.delay.max_us);
  EXPECT_FALSE(r.avg_dsp_load);
  EXPECT_EQ(r.avg_ctxt, 0.0);
}

}  // namespace
}  // namespace xrunlab

namespace xrunlab {
namespace {

TEST(Result, MissingCpuAccountingIsSaidOnceNotHidden) {
  RunResult r;
  SystemSecond good, bad;
  good.cpu_accounted_pct = 99.5;
  bad.cpu_accounted_pct = 34.0;
  r.system = {good, bad};
  finalize(r);
  finalize(r);  // idempotent: one warning, not two
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("in 1 of 2 seconds"), std::string::npos) << r.warnings[0];
  EXPECT_NE(r.warnings[0].find("down to 34%"), std::string::npos) << r.warnings[0];
  r.system = {good};
  finalize(r);
  EXPECT_TRUE(r.warnings.empty());
}

GlitchResult glitch_at(double t_s, uint64_t at_frame) {
  GlitchResult g;
  g.t_s = t_s;
  g.report.at_frame = at_frame;
  return g;
}

// Glitches pair with the nearest xrun within 50 ms; a skipped block and the replayed one right
// after it are one audible event; xruns nobody heard and glitches nobody explained are counted.
TEST(Result, GlitchesAreMatchedToXrunsAndGroupedIntoEvents) {
  AudioResult a;
  a.period_frames = 256;
  a.glitches = {glitch_at(1.000, 48000), glitch_at(1.005, 48256),  // one event, xrun at 0.99
                glitch_at(2.500, 120000),                          // no xrun near it
                glitch_at(3.030, 145440)};                         // xrun at 3.0 (30 ms)
  const std::vector<XrunEvent> xruns = {{0.990, 0, 1}, {3.000, 0, 1}, {5.0, 0, 1}};
  match_glitches(xruns, a);
  EXPECT_EQ(a.events, 3u);
  EXPECT_TRUE(a.glitches[0].matched);
  EXPECT_NEAR(*a.glitches[0].xrun_distance_ms, 10.0, 1e-9);
  EXPECT_TRUE(a.glitches[1].matched);
  EXPECT_FALSE(a.glitches[2].matched);
  EXPECT_TRUE(a.glitches[3].matched);
  EXPECT_EQ(a.glitches_without_xrun, 1u);
  EXPECT_EQ(a.xruns_without_glitch, 1u);  // the one at 5.0 s
  // jackd's log says who was late for the nearest logged event within 50 ms.
  const std::vector<LogXrunEvent> log = {{0.995, false, {"xrunlab-c02", "xrunlab-c03"}},
                                         {3.010, true, {}}};
  match_glitches(xruns, a, log);
  EXPECT_EQ(a.glitches[0].late_clients, (std::vector<std::string>{"xrunlab-c02", "xrunlab-c03"}));
  EXPECT_FALSE(a.glitches[0].driver_xrun);
  EXPECT_TRUE(a.glitches[2].late_clients.empty());  // nothing logged near 2.5 s
  EXPECT_TRUE(a.glitches[3].driver_xrun);
  // No xruns at all: every glitch is unexplained.
  match_glitches({}, a);
  EXPECT_EQ(a.glitches_without_xrun, 4u);
  EXPECT_FALSE(a.glitches[0].xrun_t_s.has_value());
}

// A list that holds only the first events: a glitch after the last listed xrun may have had an
// xrun that is not listed, an xrun after the last listed glitch may have been heard. Neither is
// counted as unexplained or unheard.
TEST(Result, GlitchMatchingStopsWhereACutListEnds) {
  AudioResult a;
  a.period_frames = 256;
  a.glitches = {glitch_at(1.000, 48000), glitch_at(2.500, 120000), glitch_at(9.000, 432000)};
  const std::vector<XrunEvent> xruns = {{0.990, 0, 1}, {3.000, 0, 1}, {5.000, 0, 1}};
  // The xrun list is cut after 5.0 s: the glitch at 9.0 s is not judged.
  match_glitches(xruns, a, {}, /*xruns_cut=*/true);
  EXPECT_EQ(a.glitches_without_xrun, 1u);  // 2.5 s only
  EXPECT_FALSE(a.glitches[2].xrun_t_s.has_value());
  EXPECT_FALSE(a.glitches[2].matched);
  EXPECT_EQ(a.xruns_without_glitch, 2u);  // 3.0 and 5.0 s: the glitch list is whole
  GlitchMatchScope s = glitch_match_scope(xruns, true, a);
  EXPECT_DOUBLE_EQ(s.glitches_until_s, 5.05);
  EXPECT_EQ(s.glitches, 2u);
  EXPECT_EQ(s.xruns, 3u);
  // The whole list: the glitch at 9.0 s is unexplained.
  match_glitches(xruns, a);
  EXPECT_EQ(a.glitches_without_xrun, 2u);
  EXPECT_EQ(*a.glitches[2].xrun_t_s, 5.0);

  // The glitch list holds only the first 2 of 10: the xruns after 2.55 s are not judged.
  a.glitches.pop_back();
  a.totals.glitches = 10;
  match_glitches(xruns, a, {}, true);
  EXPECT_EQ(a.xruns_without_glitch, 0u);
  EXPECT_EQ(a.glitches_without_xrun, 1u);
  s = glitch_match_scope(xruns, true, a);
  EXPECT_EQ(s.glitches, 2u);
  EXPECT_EQ(s.xruns, 1u);

  // A cut list that lists nothing: nothing can be judged.
  match_glitches({}, a, {}, true);
  EXPECT_EQ(a.glitches_without_xrun, 0u);
  EXPECT_EQ(glitch_match_scope({}, true, a).glitches, 0u);
}

// finalize tells match_glitches whether the xrun list was cut.
TEST(Result, FinalizeJudgesOnlyWhatTheListsCover) {
  RunResult r;
  r.xruns.events = {{1.0, 0, 1}};
  r.xruns.monitor_events = 5;  // the list holds the first one
  r.audio = AudioResult{};
  r.audio->glitches = {glitch_at(1.01, 48000), glitch_at(7.0, 336000)};
  finalize(r);
  EXPECT_EQ(r.audio->glitches_without_xrun, 0u);
  EXPECT_TRUE(r.audio->glitches[0].matched);
  r.xruns.monitor_events = 1;
  finalize(r);
  EXPECT_EQ(r.audio->glitches_without_xrun, 1u);
}

}  // namespace
}  // namespace xrunlab
