#include "engine/report/plot_data.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/system/atomic_file.hpp"

namespace xrunlab {
namespace {

using nlohmann::json;

json full_run() {
  return json::parse(R"json({
    "scheduling": {"label": "SCHED_FIFO 70 (server) / 65 (clients)", "threads_start": []},
    "loads": [{"spec": "compile", "kind": "compile"}, {"kind": "hackbench"}, {"spec": 3}],
    "settings": {"clients": 14, "period_us": 1333.3333333333333,
                 "spare_time_us": 1000.0},
    "measurement": {"delay_resolution_us": 20.833333333333332},
    "xruns": {"events": [{"t_s": 0.863839, "frame": 130496, "callbacks": 14},
                         {"t_s": "late"}, {"frame": 3}, {"t_s": 29.5}]}
  })json");
}

TEST(PlotContext, ReadsEveryField) {
  const PlotContext c = plot_context_from_json(full_run());
  EXPECT_EQ(c.policy, "SCHED_FIFO 70 (server) / 65 (clients)");
  EXPECT_EQ(c.loads, "compile, hackbench");  // the kind when there is no spec; junk skipped
  EXPECT_DOUBLE_EQ(c.period_us, 1333.3333333333333);
  EXPECT_DOUBLE_EQ(c.spare_us, 1000.0);
  EXPECT_EQ(c.xruns_s, (std::vector<double>{0.863839, 29.5}));
  EXPECT_TRUE(c.xruns_known);
  EXPECT_DOUBLE_EQ(c.resolution_us, 20.833333333333332);
  EXPECT_EQ(c.note, "");
  EXPECT_EQ(context_title(c),
            "policy: SCHED_FIFO 70 (server) / 65 (clients)    loads: compile, hackbench");
}

// Runs before the loads existed have no "loads" key: the title does not claim "none".
TEST(PlotContext, OlderOrEmptyRunJson) {
  json run = full_run();
  run.erase("loads");
  EXPECT_EQ(plot_context_from_json(run).loads, "");
  run["loads"] = json::array();
  EXPECT_EQ(plot_context_from_json(run).loads, "none");

  const PlotContext empty = plot_context_from_json(json::object());
  EXPECT_EQ(empty.policy, "");
  EXPECT_EQ(empty.period_us, 0);
  EXPECT_TRUE(empty.xruns_s.empty());
  EXPECT_FALSE(empty.xruns_known);  // unknown, not "no xruns"
  EXPECT_EQ(empty.resolution_us, 0);
  EXPECT_EQ(context_title(empty), "");

  const PlotContext wrong = plot_context_from_json(json::array({1, 2}));
  EXPECT_NE(wrong.note, "");
  EXPECT_TRUE(wrong.xruns_s.empty());

  // Mistyped or impossible values stay unknown.
  run["settings"] = {{"period_us", "1333"}, {"spare_time_us", -5}};
  run["xruns"] = json::parse(R"({"events": [{"t_s": 1.0}, {"t_s": null}]})");
  const PlotContext c = plot_context_from_json(run);
  EXPECT_EQ(c.period_us, 0);
  EXPECT_EQ(c.spare_us, 0);
  EXPECT_EQ(c.xruns_s, std::vector<double>{1.0});
}

TEST(PlotContext, ReadsFileAndSaysWhyNot) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(testing::TempDir()) / "xrunlab-plot-data-test";
  fs::create_directories(dir);
  const std::string path = (dir / "run.json").string();
  fs::remove(path);
  PlotContext c = read_plot_context(path);
  EXPECT_NE(c.note.find("not found"), std::string::npos) << c.note;

  write_file_atomic(path, "{\"scheduling\": ");
  c = read_plot_context(path);
  EXPECT_NE(c.note.find("cannot parse"), std::string::npos) << c.note;
  EXPECT_EQ(c.policy, "");

  write_file_atomic(path, full_run().dump());
  c = read_plot_context(path);
  EXPECT_EQ(c.note, "");
  EXPECT_EQ(c.xruns_s.size(), 2u);
  fs::remove_all(dir);
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
