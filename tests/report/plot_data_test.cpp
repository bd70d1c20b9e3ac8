// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/plot_data.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "engine/report/report_csv.hpp"

namespace xrunlab {
namespace {

using nlohmann::json;

// Three clients over four seconds at 256 frames / 48 kHz (dummy backend resolution); client 3
// has a bad second 2; two xruns and one audible glitch; two loads.
RunResult plotted_result() {
  RunResult r;
  r.spec.emplace().label = "fifo-3";
  r.backend.name = "dummy";
  r.status = RunStatus::kCompleted;
  r.clients = 3;
  r.ports = 2;
  r.frames = 256;
  r.rate = 48000;
  r.period_us = 5333.333333333333;
  r.spare_us = 4000;
  r.delay_resolution_us = 20.833333333333332;
  r.scheduling = "SCHED_FIFO 70 (server) / 65 (clients)";
  r.loads = std::vector<LoadRecord>(3);
  (*r.loads)[0].spec = "compile";
  (*r.loads)[0].kind = "compile";
  (*r.loads)[1].kind = "hackbench";
  for (int index = 1; index <= 3; ++index) {
    ClientResult c;
    c.index = index;
    for (int64_t s = 0; s < 4; ++s) {
      telemetry::Second sec;
      sec.index = index;
      sec.second = s;
      sec.cycles = 10;
      sec.delay = {{5 + index, 8}, {40 + s, 2}};
      if (index == 3 && s == 2) sec.delay[7400] = 1;
      sec.duration = {{60, 10}};
      sec.cycle = {{200 + s, 10}};
      add_second(c, sec);
    }
    r.client_results.push_back(std::move(c));
  }
  for (int s = 0; s < 3; ++s) {  // no sample for the last second
    SystemSecond sys;
    sys.t_s = s + 1.0;
    sys.user_pct = 20;
    r.system.push_back(sys);
  }
  r.xruns.events = {{2.25, 108000, 3}, {std::nan(""), 0, 1}, {2.75, 132000, 1}};
  AudioResult a;
  GlitchResult g;
  g.t_s = 2.26;
  a.glitches = {g};
  r.audio = a;
  finalize(r);
  return r;
}

// One title for a run and for `xrunlab plot`, from the model.
TEST(PlotTitle, FromTheModel) {
  RunResult r = plotted_result();
  EXPECT_EQ(plot_title(r), "fifo-3: 3 clients x 2 ports, 256 frames @ 48000 Hz, dummy, completed");
  r.spec = std::nullopt;
  r.backend.name = "vcard";
  r.status = RunStatus::kIncomplete;
  EXPECT_EQ(plot_title(r), "run: 3 clients x 2 ports, 256 frames @ 48000 Hz, vcard, incomplete");
  r.backend = BackendRecord{};  // a result that names no backend: from before --backend
  EXPECT_EQ(plot_title(r), "run: 3 clients x 2 ports, 256 frames @ 48000 Hz, dummy, incomplete");
}

TEST(PlotContext, ReadsEveryField) {
  const PlotContext c = plot_context(plotted_result());
  EXPECT_EQ(c.policy, "SCHED_FIFO 70 (server) / 65 (clients)");
  EXPECT_EQ(c.loads, "compile, hackbench");  // the kind when there is no spec; neither: skipped
  EXPECT_DOUBLE_EQ(c.period_us, 5333.333333333333);
  EXPECT_DOUBLE_EQ(c.spare_us, 4000.0);
  EXPECT_DOUBLE_EQ(c.resolution_us, 20.833333333333332);
  EXPECT_EQ(c.xruns_s, (std::vector<double>{2.25, 2.75}));  // a time that is not finite: none
  EXPECT_EQ(c.xruns_total, 3u);                             // ... is still an xrun of the run
  EXPECT_EQ(c.glitches_s, std::vector<double>{2.26});
  EXPECT_EQ(c.glitches_total, 1u);
  EXPECT_TRUE(c.glitches_known);
  EXPECT_EQ(context_title(c),
            "policy: SCHED_FIFO 70 (server) / 65 (clients)    loads: compile, hackbench");
}

// Runs before the loads existed have no "loads" (null in the model): the title does not claim
// "none". Impossible numbers stay unknown.
TEST(PlotContext, OlderOrEmptyResult) {
  RunResult r = plotted_result();
  r.loads = std::nullopt;
  EXPECT_EQ(plot_context(r).loads, "");
  r.loads = std::vector<LoadRecord>{};
  EXPECT_EQ(plot_context(r).loads, "none");

  const PlotContext empty = plot_context(RunResult{});
  EXPECT_EQ(empty.policy, "");
  EXPECT_EQ(empty.loads, "none");  // a new result: no --load
  EXPECT_EQ(empty.period_us, 0);
  EXPECT_TRUE(empty.xruns_s.empty());
  EXPECT_FALSE(empty.glitches_known);  // no audio check, not "no glitches"
  EXPECT_EQ(empty.resolution_us, 0);
  EXPECT_EQ(context_title(PlotContext{}), "");

  r.period_us = std::nan("");
  r.spare_us = -5;
  r.delay_resolution_us = std::numeric_limits<double>::infinity();
  const PlotContext c = plot_context(r);
  EXPECT_EQ(c.period_us, 0);
  EXPECT_EQ(c.spare_us, 0);
  EXPECT_EQ(c.resolution_us, 0);
}

TEST(PlotSeries, FromSeconds) {
  const PlotSeries s = plot_series(plotted_result());
  EXPECT_EQ(s.clients, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.delay_points, 4u);
  EXPECT_EQ(s.system_points, 3u);

  const PlotSeries none = plot_series(RunResult{});
  EXPECT_TRUE(none.clients.empty());
  EXPECT_EQ(none.delay_points + none.system_points, 0u);
}

// What gnuplot is given, argument by argument (scripts/timeline.gp and latency.gp).
TEST(PlotInputs, DataFilesAndArguments) {
  const RunResult r = plotted_result();
  const PlotInputs in = plot_inputs(r, "/tmp/p");
  ASSERT_EQ(in.data.size(), 5u);
  EXPECT_EQ(in.data[4].name, "cycles.dat");
  EXPECT_EQ(in.data[4].bytes, "") << "no cycle table: no rows";
  EXPECT_EQ(in.data[0].name, "timeseries.csv");
  EXPECT_EQ(in.data[0].bytes, format_timeseries_csv(r));
  EXPECT_EQ(in.data[1].name, "xruns.dat");
  EXPECT_EQ(in.data[1].bytes, "t_s\n2.250000\n2.750000\n");
  EXPECT_EQ(in.data[2].name, "glitches.dat");
  EXPECT_EQ(in.data[2].bytes, "t_s\n2.260000\n");
  EXPECT_EQ(in.data[3].name, "latency.dat");
  EXPECT_EQ(in.data[3].bytes.substr(0, 20),
            "6 32\n7 32\n8 32\n40 6\n");  // 8 -> 40: within a tick and a half
  EXPECT_EQ(in.scripts, (std::vector<std::string>{"timeline", "latency", "cycles"}));
  const std::string title =
      "fifo-3: 3 clients x 2 ports, 256 frames @ 48000 Hz, dummy, completed\n"
      "policy: SCHED_FIFO 70 (server) / 65 (clients)    loads: compile, hackbench";
  ASSERT_EQ(in.args.size(), 3u);
  EXPECT_EQ(in.args[2].back(), "0") << "cycles.gp: no rows";
  // Few xruns and glitches: a marker each (draw 1), the legend with the run's counts.
  EXPECT_EQ(
      in.args[0],
      (std::vector<std::string>{
          "/tmp/p/timeseries.csv", "/tmp/p/xruns.dat", "/tmp/p/timeline.png", title, "5333.333",
          "1 2 3", "3 4 3 1 1 0", "/tmp/p/glitches.dat",
          "JACK2 xrun notification (3 in the run at the monitor)\taudible glitch (1 in the run)"}));
  // No cycle table: the callback delays of all clients together and of each drawn client. 7400
  // is not 10x beyond the period: a linear time axis.
  EXPECT_EQ(in.args[1],
            (std::vector<std::string>{
                "/tmp/p/latency.dat", "/tmp/p/latency.png",
                title + "\nCallback delay against the interrupt (includes upstream DSP time; 1 µs "
                        "bins, log count)",
                "5333.333", "24 0 20.833", "delay_all delay_1 delay_2 delay_3",
                "all 3 clients together: 121 callbacks, max 7400 µs\t"
                "client 1: 40 cycles, max 43 µs\t"
                "client 2: 40 cycles, max 43 µs\t"
                "client 3: 41 cycles, max 7400 µs",
                "callback delay against the interrupt"}));

  // No audio check: no glitch legend entry, nothing drawn.
  RunResult quiet = r;
  quiet.audio.reset();
  const PlotInputs q = plot_inputs(quiet, "/tmp/p");
  EXPECT_EQ(q.args[0][6], "3 4 3 1 0 0");
  EXPECT_EQ(q.args[0][8], "JACK2 xrun notification (3 in the run at the monitor)\t");
}

// A busy run: 38037 xruns, the first 10000 listed over the first 53 s. The timeline
// draws the counts per second of the system samples, which cover the whole run, and its legend
// states the true total, not the length of the list.
TEST(PlotInputs, BusyRunDrawsXrunsPerSecondWithTheTrueTotal) {
  RunResult r = plotted_result();
  r.xruns.monitor_events = 38037;
  r.xruns.events.clear();
  for (size_t i = 0; i < kXrunEventsKept; ++i) {
    r.xruns.events.push_back({0.0053 * static_cast<double>(i), 0, 1});
  }
  r.system.clear();
  for (int s = 0; s < 71; ++s) {
    SystemSecond sys;
    sys.t_s = s + 1.0;
    sys.xruns = s < 70 ? 543 : 27;  // 70 x 543 + 27 = 38037
    r.system.push_back(sys);
  }
  const PlotInputs in = plot_inputs(r, "/tmp/p");
  const std::string& xruns = in.data[1].bytes;
  EXPECT_EQ(xruns.substr(0, 58), "from_s,to_s,count\n0.000000,1.000000,543\n1.000000,2.000000,");
  EXPECT_NE(xruns.find("\n70.000000,71.000000,27\n"), std::string::npos);
  EXPECT_EQ(in.args[0][6], "3 4 71 2 1 543");  // xruns per second, the glitch a marker
  EXPECT_EQ(in.args[0][8],
            "JACK2 xrun notifications per second (38037 in the run at the monitor)\taudible glitch "
            "(1 in the run)");
}

TEST(PickClients, FirstMiddleLast) {
  EXPECT_EQ(pick_clients({}), std::vector<int>{});
  EXPECT_EQ(pick_clients({4}), std::vector<int>{4});
  EXPECT_EQ(pick_clients({3, 1, 2}), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(pick_clients({1, 2, 3, 4}), (std::vector<int>{1, 2, 4}));
  std::vector<int> fourteen;
  for (int i = 14; i >= 1; --i) fourteen.push_back(i);
  EXPECT_EQ(pick_clients(fourteen), (std::vector<int>{1, 7, 14}));
  EXPECT_EQ(pick_clients({2, 2, 5, 9, 9}), (std::vector<int>{2, 5, 9}));
}

TEST(DelaySpread, EmptyOneAndMany) {
  const DelaySpread none = delay_spread({});
  EXPECT_EQ(none.count, 0u);

  const DelaySpread one = delay_spread({{42, 1}});
  EXPECT_EQ(one.count, 1u);
  EXPECT_EQ(one.min, 42);
  EXPECT_EQ(one.max, 42);
  EXPECT_EQ(one.p99, 42);

  // 99 cycles at 20 usecs and 1 at 5000: p99 is 20 (99 of 100 at or below it).
  const DelaySpread tail = delay_spread({{20, 99}, {5000, 1}});
  EXPECT_EQ(tail.count, 100u);
  EXPECT_EQ(tail.p99, 20);
  EXPECT_EQ(tail.max, 5000);

  // 98 of 100 below: p99 moves to the outlier.
  EXPECT_EQ(delay_spread({{20, 98}, {5000, 2}}).p99, 5000);

  // Negative values (the DLL reference can be late) count like any other.
  EXPECT_EQ(delay_spread({{-30, 1}, {10, 1}}).min, -30);
}

LatencyPlot one_series(std::map<int64_t, uint64_t> counts) {
  LatencyPlot p;
  p.series.push_back(LatencySeries{});
  p.series.back().counts = std::move(counts);
  return p;
}

TEST(LatencyAxis, LogOnlyFarBeyondThePeriodAndTheBody) {
  EXPECT_FALSE(latency_axis_needs_log(LatencyPlot{}, 1333));
  EXPECT_FALSE(latency_axis_needs_log(one_series({}), 1333));
  // 99 values at 20 usecs and one at 5000: 10x beyond the body, but not 10x the period.
  EXPECT_FALSE(latency_axis_needs_log(one_series({{20, 99}, {5000, 1}}), 1333.3));
  EXPECT_TRUE(latency_axis_needs_log(one_series({{20, 99}, {13334, 1}}), 1333.3));
  // Period unknown: the body decides (at least 10 usecs).
  EXPECT_TRUE(latency_axis_needs_log(one_series({{20, 99}, {5000, 1}}), 0));
  EXPECT_FALSE(latency_axis_needs_log(one_series({{20, 99}, {200, 1}}), 0));
  EXPECT_FALSE(latency_axis_needs_log(one_series({{0, 99}, {100, 1}}), 0));
  EXPECT_TRUE(latency_axis_needs_log(one_series({{0, 99}, {101, 1}}), 0));
  // 2 of 100 far out are the body's 99th percentile: linear.
  EXPECT_FALSE(latency_axis_needs_log(one_series({{20, 98}, {5000, 2}}), 0));
  // All series together.
  LatencyPlot two = one_series({{20, 99}});
  two.series.push_back(LatencySeries{});
  two.series.back().counts = {{13334, 1}};
  EXPECT_TRUE(latency_axis_needs_log(two, 1333.3));
}

// The rule: a marker per event for a few, counts per second for many or for a cut list.
TEST(TimelineEvents, PerSecondRule) {
  EXPECT_FALSE(draw_per_second(0, 0));
  EXPECT_FALSE(draw_per_second(kMaxEventMarkers, kMaxEventMarkers));
  EXPECT_TRUE(draw_per_second(kMaxEventMarkers + 1, kMaxEventMarkers + 1));
  EXPECT_TRUE(draw_per_second(5, 4));  // the list holds only the first ones
  EXPECT_TRUE(draw_per_second(38037, 10000));
}

TEST(TimelineEvents, CountPerSecond) {
  EXPECT_TRUE(count_per_second({}).empty());
  EXPECT_TRUE(count_per_second({std::nan("")}).empty());
  const std::vector<EventCount> c = count_per_second({2.1, 2.9, 5.0, std::nan(""), 3.999});
  ASSERT_EQ(c.size(), 4u);  // seconds 2..5, the empty second 4 too
  EXPECT_EQ(c[0].from_s, 2);
  EXPECT_EQ(c[0].to_s, 3);
  EXPECT_EQ(c[0].count, 2u);
  EXPECT_EQ(c[1].count, 1u);
  EXPECT_EQ(c[2].count, 0u);
  EXPECT_EQ(c[3].from_s, 5);
  EXPECT_EQ(c[3].count, 1u);
  EXPECT_EQ(format_event_counts(c),
            "from_s,to_s,count\n2.000000,3.000000,2\n3.000000,4.000000,1\n"
            "4.000000,5.000000,0\n5.000000,6.000000,1\n");
  EXPECT_EQ(format_event_counts({}), "from_s,to_s,count\n");
}

// n xruns, all listed, at 0.01 s steps; monitor_events counts them.
RunResult with_xruns(size_t n) {
  RunResult r;
  for (size_t i = 0; i < n; ++i) r.xruns.events.push_back({0.01 * static_cast<double>(i), 0, 1});
  r.xruns.monitor_events = n;
  return r;
}

TEST(TimelineXruns, FewAreMarkersWithTheTrueCount) {
  const TimelineEvents none = timeline_xruns(RunResult{});
  EXPECT_EQ(none.draw, TimelineEvents::Draw::kNothing);
  EXPECT_EQ(none.key, "no xrun notification in the run at the monitor");

  RunResult r = with_xruns(kMaxEventMarkers);
  const TimelineEvents few = timeline_xruns(r);
  EXPECT_EQ(few.draw, TimelineEvents::Draw::kMarkers);
  EXPECT_EQ(few.times_s.size(), kMaxEventMarkers);
  EXPECT_EQ(few.key, "JACK2 xrun notification (200 in the run at the monitor)");

  // One more: counts per second (no system samples here: from the whole list).
  r = with_xruns(kMaxEventMarkers + 1);
  const TimelineEvents many = timeline_xruns(r);
  EXPECT_EQ(many.draw, TimelineEvents::Draw::kPerSecond);
  EXPECT_TRUE(many.times_s.empty());
  ASSERT_EQ(many.seconds.size(), 3u);  // 0.00 .. 2.00 s
  EXPECT_EQ(many.seconds[0].count, 100u);
  EXPECT_EQ(many.seconds[2].count, 1u);
  EXPECT_EQ(many.peak, 100u);
  EXPECT_EQ(many.key, "JACK2 xrun notifications per second (201 in the run at the monitor)");
}

TEST(TimelineXruns, ManyArePerSecondFromTheSamples) {
  RunResult r = with_xruns(150);
  r.xruns.monitor_events = 1234;  // the list holds the first 150
  for (int s = 0; s < 4; ++s) {
    SystemSecond sys;
    sys.t_s = s + 1.003;
    sys.xruns = 300 + s;  // 300 + 301 + 302 + 303 = 1206
    r.system.push_back(sys);
  }
  r.system[2].t_s = std::nan("");  // a sample of unknown time: its interval is unknown
  const TimelineEvents e = timeline_xruns(r);
  EXPECT_EQ(e.draw, TimelineEvents::Draw::kPerSecond);
  ASSERT_EQ(e.seconds.size(), 3u);
  EXPECT_EQ(e.seconds[0].from_s, 0);
  EXPECT_DOUBLE_EQ(e.seconds[0].to_s, 1.003);
  EXPECT_DOUBLE_EQ(e.seconds[2].from_s, 2.003);  // from the previous sample that has a time
  EXPECT_DOUBLE_EQ(e.seconds[2].to_s, 4.003);
  EXPECT_EQ(e.seconds[2].count, 303u);
  EXPECT_EQ(e.peak, 303u);
  // The samples hold 904 of them: the legend says so beside the true total.
  EXPECT_EQ(
      e.key,
      "JACK2 xrun notifications per second (1234 in the run at the monitor; 904 of them in the "
      "seconds drawn)");
  r.system[2].t_s = 3.003;
  r.xruns.monitor_events = 1206;
  EXPECT_EQ(timeline_xruns(r).key,
            "JACK2 xrun notifications per second (1206 in the run at the monitor)");
}

// Without samples that count xruns, a cut list is drawn up to where it ends, and the legend
// says so.
TEST(TimelineXruns, CutListWithoutSamplesSaysWhereItEnds) {
  RunResult r = with_xruns(120);  // 0.00 .. 1.19 s
  r.xruns.monitor_events = 38037;
  SystemSecond sys;
  sys.t_s = 1;  // a sample that counted no xrun (a run.json from before they were counted)
  r.system.push_back(sys);
  const TimelineEvents e = timeline_xruns(r);
  EXPECT_EQ(e.draw, TimelineEvents::Draw::kPerSecond);
  ASSERT_EQ(e.seconds.size(), 2u);
  EXPECT_EQ(e.seconds[1].count, 20u);
  EXPECT_EQ(
      e.key,
      "JACK2 xrun notifications per second, until 1.2 s (the first 120 of 38037: the list ends "
      "there)");

  // Counted, but neither listed nor sampled: nothing to draw, and the legend says that.
  r.xruns.events.clear();
  const TimelineEvents unknown = timeline_xruns(r);
  EXPECT_EQ(unknown.draw, TimelineEvents::Draw::kNothing);
  EXPECT_EQ(unknown.key,
            "JACK2 xrun notifications: 38037 in the run at the monitor, their times are not known");
}

TEST(TimelineGlitches, MarkersOrPerSecondWithTheTrueCount) {
  RunResult r;
  EXPECT_EQ(timeline_glitches(r).key, "");  // no audio check: no entry
  r.audio = AudioResult{};
  EXPECT_EQ(timeline_glitches(r).key, "no audible glitches");
  EXPECT_EQ(timeline_glitches(r).draw, TimelineEvents::Draw::kNothing);
  for (int i = 0; i < 3; ++i) {
    GlitchResult g;
    g.t_s = 0.5 * i;
    r.audio->glitches.push_back(g);
  }
  // Before the tail's totals arrive, the list is what is known.
  TimelineEvents e = timeline_glitches(r);
  EXPECT_EQ(e.draw, TimelineEvents::Draw::kMarkers);
  EXPECT_EQ(e.times_s, (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(e.key, "audible glitch (3 in the run)");
  // The tail counted more than the list holds: counts per second, up to the list's end.
  r.audio->totals.glitches = 23000;
  e = timeline_glitches(r);
  EXPECT_EQ(e.draw, TimelineEvents::Draw::kPerSecond);
  ASSERT_EQ(e.seconds.size(), 2u);
  EXPECT_EQ(e.seconds[0].count, 2u);
  EXPECT_EQ(e.peak, 2u);
  EXPECT_EQ(e.key,
            "audible glitches per second, until 1.0 s (the first 3 of 23000: the "
            "list ends there)");
  r.audio->glitches.clear();
  EXPECT_EQ(timeline_glitches(r).key,
            "audible glitches: 23000 in the run, their times are not known");
}

// A hop of the cycle table with `n` values at each of `values`.
HopSeries hop(const std::string& key, const std::string& kind, int client,
              std::vector<int64_t> values, uint64_t n) {
  HopSeries h;
  h.key = key;
  h.kind = kind;
  h.client = client;
  h.label = client > 0 ? fmt::format("c{:02d} {}", client, kind == "dsp" ? "DSP" : "wake-up")
                       : std::string();
  for (int64_t v : values) h.us.add(v, n);
  return h;
}

// The cycle table of 3 clients over 1000 cycles at a 1333 usecs period; 4 cycles missed their
// deadline (slack below 0).
RunResult hop_result() {
  RunResult r = plotted_result();
  r.period_us = 1333.3333333333333;
  CycleTableResult& t = r.cycle_table;
  t.present = true;
  t.resolution_us = 0.001;
  t.hops.push_back(hop("jackd_wakeup", "jackd_wakeup", 0, {8, 12}, 500));
  for (int c = 1; c <= 3; ++c) {
    t.hops.push_back(hop(fmt::format("wakeup.c{:02d}", c), "client_wakeup", c, {20, 30 * c}, 500));
    t.hops.push_back(hop(fmt::format("dsp.c{:02d}", c), "dsp", c, {200, 210}, 500));
  }
  t.hops.push_back(hop("cycle", "cycle", 0, {700, 1500}, 500));
  t.hops.back().us.add(25000, 1);  // over the histogram's bound: a kept overflow value
  HopSeries slack = hop("slack", "slack", 0, {600}, 996);
  slack.us.add(-170, 4);  // missed: counted, not binned
  t.hops.push_back(slack);
  return r;
}

TEST(LatencyPlot, OneLinePerHopKindFromTheCycleTable) {
  const LatencyPlot p = latency_plot(hop_result());
  EXPECT_TRUE(p.hops);
  EXPECT_EQ(p.what, "Latency of each hop of the cycle, from the interrupt (1 µs bins, log count)");
  EXPECT_EQ(p.xlabel, "latency");
  std::vector<std::string> styles, keys;
  for (const LatencySeries& s : p.series) {
    styles.push_back(s.style);
    keys.push_back(s.key);
  }
  EXPECT_EQ(styles, (std::vector<std::string>{"jackd_wakeup", "client_wakeup",
                                              "client_wakeup_worst", "dsp", "cycle", "slack"}));
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "interrupt -> jackd wake-up: 1000 cycles, max 12 µs",
                      "client wake-up, all 3 clients together: 3000 callbacks, max 90 µs",
                      "c03 wake-up (the worst client): 1000 cycles, max 90 µs",
                      "DSP time, all 3 clients together: 3000 callbacks, max 210 µs",
                      "cycle time (interrupt -> last client's exit): 1001 cycles, max 25000 µs",
                      "slack (last client's exit -> deadline): 1000 cycles, max 600 µs, 4 cycles "
                      "below 0 (deadline missed, not drawn)",
                  }));
  // The merged clients: every client's values in one histogram.
  const LatencySeries& wakeup = p.series[1];
  EXPECT_EQ(wakeup.counts,
            (std::map<int64_t, uint64_t>{{20, 1500}, {30, 500}, {60, 500}, {90, 500}}));
  EXPECT_EQ(wakeup.count, 3000u);
  EXPECT_EQ(p.series[3].counts, (std::map<int64_t, uint64_t>{{200, 1500}, {210, 1500}}));
  EXPECT_EQ(p.series[4].counts.at(25000), 1u);  // kept above the bound: drawn
  // Slack: the negative values are counted, not drawn.
  const LatencySeries& slack = p.series[5];
  EXPECT_EQ(slack.counts, (std::map<int64_t, uint64_t>{{600, 996}}));
  EXPECT_EQ(slack.count, 1000u);
  EXPECT_EQ(slack.below_zero, 4u);
}

// Backends without jackd's wake-up have no such hop; one client has no "all together" line.
TEST(LatencyPlot, OnlyTheHopsTheTableHas) {
  RunResult r = hop_result();
  std::vector<HopSeries> kept;
  for (const HopSeries& h : r.cycle_table.hops) {
    if (h.kind != "jackd_wakeup" && h.client <= 1) kept.push_back(h);
  }
  r.cycle_table.hops = kept;
  const LatencyPlot p = latency_plot(r);
  std::vector<std::string> styles, keys;
  for (const LatencySeries& s : p.series) {
    styles.push_back(s.style);
    keys.push_back(s.key);
  }
  EXPECT_EQ(styles, (std::vector<std::string>{"client_wakeup", "dsp", "cycle", "slack"}));
  EXPECT_EQ(keys[0], "c01 wake-up: 1000 cycles, max 30 µs");
  EXPECT_EQ(keys[1], "c01 DSP: 1000 cycles, max 210 µs");

  // A hop with no values yet says so.
  r.cycle_table.hops[0].us = Histogram();
  EXPECT_EQ(latency_plot(r).series[0].key, "c01 wake-up: no values");
}

// Without the cycle table (older run.json, backends without it): the callback delays against
// the interrupt, which include the DSP time of every client upstream, and the title says so.
TEST(LatencyPlot, FallsBackToTheCallbackDelays) {
  RunResult r = plotted_result();
  r.client_results[0].delay.add(-12, 2);  // a DLL-referenced delay can be negative
  const LatencyPlot p = latency_plot(r);
  EXPECT_FALSE(p.hops);
  EXPECT_NE(p.what.find("Callback delay against the interrupt (includes upstream DSP time"),
            std::string::npos);
  ASSERT_EQ(p.series.size(), 4u);
  EXPECT_EQ(p.series[0].style, "delay_all");
  EXPECT_EQ(p.series[0].count, 123u);
  EXPECT_EQ(p.series[0].counts.at(41), 6u);
  EXPECT_EQ(p.series[0].key,
            "all 3 clients together: 123 callbacks, max 7400 µs, 2 below 0 µs (not drawn)");
  EXPECT_EQ(p.series[1].key, "client 1: 42 cycles, max 43 µs, 2 below 0 µs (not drawn)");
  EXPECT_EQ(p.series[3].counts.at(7400), 1u);

  // The table is there but holds no hop: the delays too.
  r.cycle_table.present = true;
  EXPECT_FALSE(latency_plot(r).hops);
  // One client: its line only.
  RunResult one = plotted_result();
  one.client_results.resize(1);
  const LatencyPlot single = latency_plot(one);
  ASSERT_EQ(single.series.size(), 1u);
  EXPECT_EQ(single.series[0].style, "delay_1");
  EXPECT_TRUE(latency_plot(RunResult{}).series.empty());
}

TEST(PlotInputs, LatencyArgumentsFromTheCycleTable) {
  const RunResult r = hop_result();
  const PlotInputs in = plot_inputs(r, "/tmp/p");
  ASSERT_EQ(in.args.size(), 3u);
  const std::vector<std::string>& a = in.args[1];
  ASSERT_EQ(a.size(), 8u);
  EXPECT_EQ(a[3], "1333.333");
  // 2 + 4 + 2 + 2 + 3 + 1 drawn points; 25000 is beyond 10x the period: a log time axis; the
  // table's resolution (1 ns).
  EXPECT_EQ(a[4], "14 1 0.001");
  EXPECT_EQ(a[5], "jackd_wakeup client_wakeup client_wakeup_worst dsp cycle slack");
  EXPECT_EQ(std::count(a[6].begin(), a[6].end(), '\t'), 5);
  EXPECT_EQ(a[6].substr(0, a[6].find('\t')), "interrupt -> jackd wake-up: 1000 cycles, max 12 µs");
  EXPECT_EQ(a[7], "latency");
  // Blocks in the order of the styles: jackd's first, slack last.
  const std::string& data = in.data[3].bytes;
  EXPECT_EQ(data.substr(0, data.find("\n\n\n")), "8 500\n\n12 500");
  EXPECT_EQ(data.substr(data.rfind("\n\n\n") + 3), "600 996\n");
}

TEST(FormatXrunTimes, HeaderThenOnePerLine) {
  EXPECT_EQ(format_xrun_times({}), "t_s\n");
  EXPECT_EQ(format_xrun_times({0.863839, 29.5}), "t_s\n0.863839\n29.500000\n");
}

TEST(HistogramBlocks, GapAndBlocks) {
  EXPECT_EQ(histogram_max_gap_us(0), 1);
  EXPECT_EQ(histogram_max_gap_us(-3), 1);
  EXPECT_EQ(histogram_max_gap_us(20.833333333333332), 32);  // ceil(31.25)
  EXPECT_EQ(histogram_max_gap_us(0.2), 1);

  EXPECT_EQ(format_histogram_blocks({}, 1), "");
  // Consecutive bins stay joined; a jump of more than max_gap breaks the line.
  EXPECT_EQ(format_histogram_blocks({{{0, 5}, {1, 7}, {2, 1}, {40, 2}}}, 1),
            "0 5\n1 7\n2 1\n\n40 2\n");
  EXPECT_EQ(format_histogram_blocks({{{0, 5}, {20, 7}, {41, 1}, {100, 2}}}, 32),
            "0 5\n20 7\n41 1\n\n100 2\n");
  // Blocks in order, two blank lines apart; an empty histogram still has its block.
  EXPECT_EQ(format_histogram_blocks({{{-3, 1}}, {}, {{7, 2}}}, 1), "-3 1\n\n\nNaN NaN\n\n\n7 2\n");
}

}  // namespace
}  // namespace xrunlab

namespace xrunlab {
namespace {

ExplainedCycle explained_hop(const std::string& hop, int64_t window_ns, int64_t asleep_ns,
                             std::vector<TaskTime> blockers, bool traced = true) {
  ExplainedCycle c;
  c.cycle = 7;
  HopExplanation& h = c.hops.emplace_back();
  h.hop.hop_key = hop;
  h.traced = traced;
  h.hop.rel_start_ns = 1000;
  h.hop.rel_end_ns = 1000 + window_ns;
  h.asleep_ns = asleep_ns;
  h.blockers = std::move(blockers);
  return c;
}

TEST(ExplainNote, NamesTheHopAsTheSummaryDoesAndWhatTookMostOfItsWindow) {
  TaskTime busy;
  busy.comm = "busy";
  busy.pid = 42;
  busy.ns = 350000;
  const std::vector<TaskTime> loop = {busy};
  EXPECT_EQ(explain_note(explained_hop("wakeup.c03", 600000, 0, loop)),
            "c03's wake-up: busy pid 42 350 us");
  EXPECT_EQ(explain_note(explained_hop("jackd_wakeup", 600000, 400000, loop)),
            "jackd's wake-up: woken late")
      << "asleep for most of the window: the timer was late, not a blocker";
  EXPECT_EQ(explain_note(explained_hop("dsp.c01", 800000, 0, loop)), "c01's DSP: nothing competed")
      << "a blocker holding less than half the window is not the cause";
  EXPECT_EQ(explain_note(explained_hop("dsp.c01", 800000, 0, loop, false)), "c01's DSP: no trace");
  ExplainedCycle self = explained_hop("jackd_wakeup", 3000000, 70000, {});
  self.hops[0].self_ns = 2690000;
  EXPECT_EQ(explain_note(self), "jackd's wake-up: itself on its CPU 2690 us");
  EXPECT_EQ(explain_note(ExplainedCycle{}), "");
}

// The run's one count: the cycle table's xrun events, each the first of its consecutive missed
// rows, drawn when the table kept every missed row; else the monitor's, with the run's count in
// the legend.
TEST(TimelineXruns, TheCycleTablesEventsWhenItKeptEveryMissedRow) {
  RunResult r;
  r.xrun_cycles.present = true;
  r.xrun_cycles.events = 2;
  r.cycle_table.present = true;
  for (const auto& [id, t] :
       std::vector<std::pair<uint64_t, double>>{{10, 0.5}, {11, 0.51}, {40, 2.25}}) {
    CycleRow row;
    row.id = id;
    row.t_s = t;
    r.cycle_table.missed_rows.push_back(row);
  }
  r.cycle_table.missed_rows_total = 3;
  r.xruns.monitor_events = 5;  // the monitor saw more: not what is drawn
  for (int i = 0; i < 5; ++i) r.xruns.events.push_back({0.5 * i, 0, 1});
  TimelineEvents e = timeline_xruns(r);
  EXPECT_EQ(e.draw, TimelineEvents::Draw::kMarkers);
  EXPECT_EQ(e.times_s, (std::vector<double>{0.5, 2.25}));
  EXPECT_EQ(e.key, "xrun event (2 in the run: the cycle table's)");
  // The table kept only the first missed rows: the monitor's, and the run's count beside them.
  r.cycle_table.missed_rows_total = 3000;
  e = timeline_xruns(r);
  EXPECT_EQ(e.key, "JACK2 xrun notification (5 in the run at the monitor; the run's count: 2)");
  // Rows that do not make the counted events (a model made by hand): not drawn as them.
  r.cycle_table.missed_rows_total = 3;
  r.xrun_cycles.events = 3;
  EXPECT_NE(timeline_xruns(r).key.find("at the monitor"), std::string::npos);
  r.xrun_cycles.events = 0;
  r.cycle_table.missed_rows.clear();
  r.cycle_table.missed_rows_total = 0;
  EXPECT_EQ(timeline_xruns(r).key, "no xrun event in the run (the cycle table's)");
}

}  // namespace
}  // namespace xrunlab
