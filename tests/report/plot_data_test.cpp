#include "engine/report/plot_data.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/report/report_csv.hpp"

namespace xrunlab {
namespace {

using nlohmann::json;

// Three clients over four seconds at 256 frames / 48 kHz (dummy backend resolution); client 3
// has a bad second 2; two xruns and one audible glitch; two loads.
RunResult plotted_result() {
  RunResult r;
  r.spec = {{"label", "fifo-3"}};
  r.backend = {{"name", "dummy"}};
  r.status = "completed";
  r.clients = 3;
  r.ports = 2;
  r.frames = 256;
  r.rate = 48000;
  r.period_us = 5333.333333333333;
  r.spare_us = 4000;
  r.delay_resolution_us = 20.833333333333332;
  r.scheduling = "SCHED_FIFO 70 (server) / 65 (clients)";
  r.loads = json::array(
      {{{"spec", "compile"}, {"kind", "compile"}}, {{"kind", "hackbench"}}, {{"spec", 3}}});
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
  r.spec = nullptr;
  r.backend = {{"name", "vcard"}};
  r.status = "incomplete";
  EXPECT_EQ(plot_title(r), "run: 3 clients x 2 ports, 256 frames @ 48000 Hz, vcard, incomplete");
  r.backend = json::object();  // a result that names no backend: from before --backend
  EXPECT_EQ(plot_title(r), "run: 3 clients x 2 ports, 256 frames @ 48000 Hz, dummy, incomplete");
}

TEST(PlotContext, ReadsEveryField) {
  const PlotContext c = plot_context(plotted_result());
  EXPECT_EQ(c.policy, "SCHED_FIFO 70 (server) / 65 (clients)");
  EXPECT_EQ(c.loads, "compile, hackbench");  // the kind when there is no spec; junk skipped
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
  r.loads = nullptr;
  EXPECT_EQ(plot_context(r).loads, "");
  r.loads = json::array();
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

TEST(PlotSeries, FromSecondsAndHistograms) {
  const RunResult r = plotted_result();
  const PlotSeries s = plot_series(r);
  EXPECT_EQ(s.clients, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(s.delay_points, 4u);
  EXPECT_EQ(s.system_points, 3u);
  // Per client: 2 values at 5 + index (4 x 8 cycles), 40..43 (2 each); client 3 also 7400.
  EXPECT_EQ(s.histogram_points, 3u * 5 + 1);
  EXPECT_EQ(s.delay_by_client.at(3).at(7400), 1u);
  EXPECT_EQ(s.delay_by_client.at(2).at(7), 32u);
  EXPECT_EQ(s.delay_counts.at(41), 6u);
  uint64_t total = 0;
  for (const auto& [value, n] : s.delay_counts) total += n;
  EXPECT_EQ(total, r.delay.count);

  const PlotSeries none = plot_series(RunResult{});
  EXPECT_TRUE(none.clients.empty());
  EXPECT_EQ(none.delay_points + none.system_points + none.histogram_points, 0u);
}

// What gnuplot is given, argument by argument (scripts/timeline.gp and histogram.gp).
TEST(PlotInputs, DataFilesAndArguments) {
  const RunResult r = plotted_result();
  const PlotInputs in = plot_inputs(r, "/tmp/p");
  ASSERT_EQ(in.data.size(), 4u);
  EXPECT_EQ(in.data[0].name, "timeseries.csv");
  EXPECT_EQ(in.data[0].bytes, format_timeseries_csv(r));
  EXPECT_EQ(in.data[1].name, "xruns.dat");
  EXPECT_EQ(in.data[1].bytes, "t_s\n2.250000\n2.750000\n");
  EXPECT_EQ(in.data[2].name, "glitches.dat");
  EXPECT_EQ(in.data[2].bytes, "t_s\n2.260000\n");
  EXPECT_EQ(in.data[3].name, "histogram.dat");
  EXPECT_EQ(in.data[3].bytes.substr(0, 20),
            "6 32\n7 32\n8 32\n40 6\n");  // 8 -> 40: within a tick and a half
  EXPECT_EQ(in.scripts, (std::vector<std::string>{"timeline", "histogram"}));
  const std::string title =
      "fifo-3: 3 clients x 2 ports, 256 frames @ 48000 Hz, dummy, completed\n"
      "policy: SCHED_FIFO 70 (server) / 65 (clients)    loads: compile, hackbench";
  ASSERT_EQ(in.args.size(), 2u);
  // Few xruns and glitches: a marker each (draw 1), the legend with the run's counts.
  EXPECT_EQ(in.args[0], (std::vector<std::string>{
                            "/tmp/p/timeseries.csv", "/tmp/p/xruns.dat", "/tmp/p/timeline.png",
                            title, "5333.333", "1 2 3", "3 4 3 1 1 0", "/tmp/p/glitches.dat",
                            "xrun (3 in the run)\taudible glitch (1 in the run)"}));
  // 7400 is over 10 x max(p99 = 43, 10): a log time axis.
  EXPECT_EQ(in.args[1],
            (std::vector<std::string>{"/tmp/p/histogram.dat", "/tmp/p/histogram.png", title,
                                      "5333.333", "4000.000", "1 2 3", "3", "16", "1 20.833"}));

  // No audio check: no glitch legend entry, nothing drawn.
  RunResult quiet = r;
  quiet.audio.reset();
  const PlotInputs q = plot_inputs(quiet, "/tmp/p");
  EXPECT_EQ(q.args[0][6], "3 4 3 1 0 0");
  EXPECT_EQ(q.args[0][8], "xrun (3 in the run)\t");
}

// A busy run (issue 12): 38037 xruns, the first 10000 listed over the first 53 s. The timeline
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
  EXPECT_EQ(in.args[0][8], "xruns per second (38037 in the run)\taudible glitch (1 in the run)");
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
  EXPECT_FALSE(delay_axis_needs_log(none));

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
  EXPECT_TRUE(delay_axis_needs_log(tail));

  // 98 of 100 below: p99 moves to the outlier, the body is not squeezed by a lone value.
  const DelaySpread two = delay_spread({{20, 98}, {5000, 2}});
  EXPECT_EQ(two.p99, 5000);
  EXPECT_FALSE(delay_axis_needs_log(two));

  // Negative values (the DLL reference can be late) count like any other.
  EXPECT_EQ(delay_spread({{-30, 1}, {10, 1}}).min, -30);
}

TEST(DelaySpread, LogAxisThreshold) {
  DelaySpread s;
  s.count = 1000;
  s.p99 = 400;
  s.max = 4000;  // exactly 10x: linear
  EXPECT_FALSE(delay_axis_needs_log(s));
  s.max = 4001;
  EXPECT_TRUE(delay_axis_needs_log(s));
  // A tiny p99 counts as 10 usecs: 0..90 usecs stays linear.
  s.p99 = 0;
  s.max = 90;
  EXPECT_FALSE(delay_axis_needs_log(s));
  s.max = 101;
  EXPECT_TRUE(delay_axis_needs_log(s));
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
  EXPECT_EQ(none.key, "no xruns in the run");

  RunResult r = with_xruns(kMaxEventMarkers);
  const TimelineEvents few = timeline_xruns(r);
  EXPECT_EQ(few.draw, TimelineEvents::Draw::kMarkers);
  EXPECT_EQ(few.times_s.size(), kMaxEventMarkers);
  EXPECT_EQ(few.key, "xrun (200 in the run)");

  // One more: counts per second (no system samples here: from the whole list).
  r = with_xruns(kMaxEventMarkers + 1);
  const TimelineEvents many = timeline_xruns(r);
  EXPECT_EQ(many.draw, TimelineEvents::Draw::kPerSecond);
  EXPECT_TRUE(many.times_s.empty());
  ASSERT_EQ(many.seconds.size(), 3u);  // 0.00 .. 2.00 s
  EXPECT_EQ(many.seconds[0].count, 100u);
  EXPECT_EQ(many.seconds[2].count, 1u);
  EXPECT_EQ(many.peak, 100u);
  EXPECT_EQ(many.key, "xruns per second (201 in the run)");
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
  EXPECT_EQ(e.key, "xruns per second (1234 in the run; 904 of them in the seconds drawn)");
  r.system[2].t_s = 3.003;
  r.xruns.monitor_events = 1206;
  EXPECT_EQ(timeline_xruns(r).key, "xruns per second (1206 in the run)");
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
  EXPECT_EQ(e.key,
            "xruns per second, until 1.2 s (the first 120 of 38037: the list ends "
            "there)");

  // Counted, but neither listed nor sampled: nothing to draw, and the legend says that.
  r.xruns.events.clear();
  const TimelineEvents unknown = timeline_xruns(r);
  EXPECT_EQ(unknown.draw, TimelineEvents::Draw::kNothing);
  EXPECT_EQ(unknown.key, "xruns: 38037 in the run, their times are not known");
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
