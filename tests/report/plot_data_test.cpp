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
  EXPECT_EQ(c.glitches_s, std::vector<double>{2.26});
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
  EXPECT_EQ(in.args[0], (std::vector<std::string>{"/tmp/p/timeseries.csv", "/tmp/p/xruns.dat",
                                                  "/tmp/p/timeline.png", title, "5333.333", "1 2 3",
                                                  "3 4 3 2", "/tmp/p/glitches.dat", "1"}));
  // 7400 is over 10 x max(p99 = 43, 10): a log time axis.
  EXPECT_EQ(in.args[1],
            (std::vector<std::string>{"/tmp/p/histogram.dat", "/tmp/p/histogram.png", title,
                                      "5333.333", "4000.000", "1 2 3", "3", "16", "1 20.833"}));

  // No audio check: the glitch count is -1 (unknown), not 0.
  RunResult quiet = r;
  quiet.audio.reset();
  EXPECT_EQ(plot_inputs(quiet, "/tmp/p").args[0].back(), "-1");
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
