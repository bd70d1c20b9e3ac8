// SPDX-License-Identifier: GPL-2.0-or-later
// The headroom's statistics and what they say, on hand-made ramps (the ramps' runs are real in
// the runner's tests): the median's distribution-free interval and its exact coverage,
// censored ramps, the hop that broke most often, the table, the answers, the JSON, the plot's
// data, the ramp's pace, and run.json's "ramp" section read back.
#include "engine/campaign/headroom.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

RampOutcome ramp(int clients, uint32_t period, std::optional<double> first, double reached,
                 const std::string& broke = "") {
  RampOutcome r;
  r.clients = clients;
  r.period = period;
  r.first_xrun_pct = first;
  r.reached_pct = reached;
  if (!broke.empty()) {
    r.broke.emplace();
    r.broke->label = broke;
  }
  return r;
}

// Ramps that dropped out at `loads` (in this order), each broken by the label at its index.
std::vector<RampOutcome> ramps_at(int clients, uint32_t period, const std::vector<double>& loads,
                                  const std::vector<std::string>& broke = {}) {
  std::vector<RampOutcome> out;
  for (size_t i = 0; i < loads.size(); ++i) {
    out.push_back(ramp(clients, period, loads[i], loads[i], i < broke.size() ? broke[i] : ""));
    out.back().rep = static_cast<int>(i) + 1;
  }
  return out;
}

// Coverage 1 - 2 P(B <= k-1), B ~ Binomial(n, 1/2), by hand:
//   n = 5:  P(B <= 0) = 1/32: k = 1 gives 1 - 2/32 = 0.9375 (< 95 %: min..max, said so)
//   n = 6:  P(B <= 0) = 1/64: k = 1 gives 0.96875; P(B <= 1) = 7/64: k = 2 gives 0.78125
//   n = 10: P(B <= 1) = (1 + 10)/1024: k = 2 gives 1 - 22/1024 = 0.978515625;
//           P(B <= 2) = 56/1024: k = 3 gives 0.890625
//   n = 20: P(B <= 5) = (1 + 20 + 190 + 1140 + 4845 + 15504)/2^20 = 21700/1048576: k = 6
//           gives 1 - 43400/1048576; P(B <= 6) adds 38760: k = 7 gives 0.8847...
TEST(HeadroomInterval, TheRanksAndTheirExactCoverage) {
  EXPECT_EQ(median_interval_ranks(0).k, 0u);
  EXPECT_EQ(median_interval_ranks(1).k, 0u);  // one ramp: no interval
  EXPECT_EQ(median_interval_ranks(2).k, 1u);
  EXPECT_DOUBLE_EQ(median_interval_ranks(2).coverage, 0.5);
  EXPECT_DOUBLE_EQ(median_interval_ranks(4).coverage, 0.875);
  const MedianRanks five = median_interval_ranks(5);
  EXPECT_EQ(five.k, 1u);
  EXPECT_DOUBLE_EQ(five.coverage, 0.9375);
  const MedianRanks six = median_interval_ranks(6);
  EXPECT_EQ(six.k, 1u);
  EXPECT_DOUBLE_EQ(six.coverage, 0.96875);
  const MedianRanks ten = median_interval_ranks(10);
  EXPECT_EQ(ten.k, 2u);
  EXPECT_DOUBLE_EQ(ten.coverage, 0.978515625);
  const MedianRanks twenty = median_interval_ranks(20);
  EXPECT_EQ(twenty.k, 6u);
  EXPECT_DOUBLE_EQ(twenty.coverage, 1.0 - 43400.0 / 1048576.0);
}

TEST(HeadroomInterval, CellsUseTheOrderStatistics) {
  // n = 5, given out of order: min..max at 93.75 %.
  const HeadroomCell five = summarise_cell(14, 128, ramps_at(14, 128, {74, 68, 77, 71, 70}));
  EXPECT_EQ(five.ramps, 5);
  EXPECT_EQ(five.censored, 0);
  EXPECT_EQ(five.median, 71.0);
  EXPECT_EQ(five.ci_low, 68.0);
  EXPECT_EQ(five.ci_high, 77.0);
  EXPECT_DOUBLE_EQ(five.ci_coverage, 0.9375);
  // n = 6: (x_(1), x_(6)) at 96.875 %; the median between x_(3) and x_(4).
  const HeadroomCell six = summarise_cell(14, 256, ramps_at(14, 256, {66, 60, 90, 63, 65, 62}));
  EXPECT_EQ(six.median, 64.0);
  EXPECT_EQ(six.ci_low, 60.0);
  EXPECT_EQ(six.ci_high, 90.0);
  EXPECT_DOUBLE_EQ(six.ci_coverage, 0.96875);
  // n = 10: (x_(2), x_(9)).
  const HeadroomCell ten =
      summarise_cell(1, 64, ramps_at(1, 64, {50, 41, 59, 52, 44, 55, 47, 58, 40, 53}));
  EXPECT_EQ(ten.min, 40.0);
  EXPECT_EQ(ten.ci_low, 41.0);
  EXPECT_EQ(ten.ci_high, 58.0);
  EXPECT_EQ(ten.max, 59.0);
  EXPECT_EQ(ten.median, 51.0);  // (50 + 52) / 2
  EXPECT_DOUBLE_EQ(ten.ci_coverage, 0.978515625);
  // One ramp: a median, no interval.
  const HeadroomCell one = summarise_cell(1, 64, ramps_at(1, 64, {42}));
  EXPECT_EQ(one.median, 42.0);
  EXPECT_FALSE(one.ci_low.has_value());
  EXPECT_FALSE(one.ci_high.has_value());
  EXPECT_EQ(one.ci_coverage, 0.0);
  EXPECT_EQ(headroom_answer_at(one), "42 % (1 ramp)");
}

TEST(HeadroomCells, OnlyTheCellsRampsCountAndAnEmptyCellHasNothing) {
  std::vector<RampOutcome> all = ramps_at(14, 128, {70, 72, 74});
  for (const RampOutcome& r : ramps_at(1, 128, {90, 91})) all.push_back(r);
  for (const RampOutcome& r : ramps_at(14, 256, {80})) all.push_back(r);
  const HeadroomCell c = summarise_cell(14, 128, all);
  EXPECT_EQ(c.ramps, 3);
  EXPECT_EQ(c.median, 72.0);
  const HeadroomCell none = summarise_cell(14, 64, all);
  EXPECT_EQ(none.ramps, 0);
  EXPECT_FALSE(none.median.has_value());
  EXPECT_FALSE(none.ci_low.has_value());
  EXPECT_EQ(headroom_answer_at(none), "");
  HeadroomSpec s;
  s.periods = {128, 256};
  s.clients = {14, 1};
  const std::vector<HeadroomCell> cells = summarise_cells(s, all);
  ASSERT_EQ(cells.size(), 4u);  // 14 x {128, 256}, then 1 x {128, 256}
  EXPECT_EQ(cells[0].ramps, 3);
  EXPECT_EQ(cells[1].ramps, 1);
  EXPECT_EQ(cells[2].clients, 1);
  EXPECT_EQ(cells[2].ramps, 2);
  EXPECT_EQ(cells[3].ramps, 0);
}

TEST(HeadroomCells, CensoredRampsCountAtTheirReachedLoadAsALowerBound) {
  std::vector<RampOutcome> r = ramps_at(14, 1024, {95, 98, 97}, {"c03 DSP", "c03 DSP", "x"});
  r.push_back(ramp(14, 1024, std::nullopt, 100));
  r.push_back(ramp(14, 1024, std::nullopt, 100));
  const HeadroomCell c = summarise_cell(14, 1024, r);
  EXPECT_EQ(c.ramps, 5);
  EXPECT_EQ(c.censored, 2);
  EXPECT_EQ(c.median, 98.0);  // 95 97 98 100 100
  EXPECT_EQ(c.min, 95.0);
  EXPECT_EQ(c.max, 100.0);
  EXPECT_EQ(c.ci_low, 95.0);
  EXPECT_EQ(c.ci_high, 100.0);
  EXPECT_EQ(c.broke_most, "c03 DSP");
  EXPECT_EQ(c.broke_most_count, 2);
  EXPECT_EQ(headroom_answer_at(c), "at least 98 % [95..100, 94 %]");
  // Every ramp censored: the median is the reached load.
  const HeadroomCell full =
      summarise_cell(1, 64, {ramp(1, 64, std::nullopt, 100), ramp(1, 64, std::nullopt, 100)});
  EXPECT_EQ(full.censored, 2);
  EXPECT_EQ(full.median, 100.0);
  EXPECT_EQ(full.broke_most, "");
  EXPECT_EQ(headroom_answer_at(full), "at least 100 % [100..100, 50 %]");
}

TEST(HeadroomCells, TheMostBrokenHopAndTies) {
  // 2 x jackd's wake-up, 2 x c03 DSP, 1 x c01 wake-up: a tie, the one seen first wins.
  const HeadroomCell tie = summarise_cell(
      14, 128,
      ramps_at(14, 128, {70, 71, 72, 73, 74},
               {"c03 DSP", "jackd's wake-up", "jackd's wake-up", "c01 wake-up", "c03 DSP"}));
  EXPECT_EQ(tie.broke_most, "c03 DSP");
  EXPECT_EQ(tie.broke_most_count, 2);
  ASSERT_EQ(tie.broke_counts.size(), 3u);
  EXPECT_EQ(tie.broke_counts[0], (std::pair<std::string, int>("c03 DSP", 2)));
  EXPECT_EQ(tie.broke_counts[1], (std::pair<std::string, int>("jackd's wake-up", 2)));
  EXPECT_EQ(tie.broke_counts[2], (std::pair<std::string, int>("c01 wake-up", 1)));
  // A ramp without a recorded break counts for nothing.
  const HeadroomCell most = summarise_cell(
      14, 128, ramps_at(14, 128, {70, 71, 72, 73}, {"c01 wake-up", "", "c02 DSP", "c02 DSP"}));
  EXPECT_EQ(most.broke_most, "c02 DSP");
  EXPECT_EQ(most.broke_most_count, 2);
  ASSERT_EQ(most.broke_counts.size(), 2u);
  EXPECT_EQ(most.broke_counts[0].first, "c02 DSP");
}

TEST(HeadroomCells, MeasuredAndNominalAreMediansOverTheRampsThatHaveThem) {
  std::vector<RampOutcome> r = ramps_at(14, 128, {70, 71, 72});
  r[0].measured_pct = 73;
  r[0].nominal_pct = 69;
  r[1].measured_pct = 75;
  r[1].nominal_pct = 70;
  const HeadroomCell c = summarise_cell(14, 128, r);
  EXPECT_EQ(c.measured_pct, 74.0);
  EXPECT_EQ(c.nominal_pct, 69.5);
}

// The spec of the wording tests: 14 and 1 clients; 14 clients have 5 ramps at 128 frames, 6 at
// 256, 5 (2 censored) at 1024, none at 64 and 512 (a cell without usable ramps).
struct Sample {
  HeadroomSpec spec;
  std::vector<RampOutcome> ramps;
  std::vector<HeadroomCell> cells;
};
Sample sample() {
  Sample s;
  s.spec.periods = {64, 128, 256, 512, 1024};
  s.spec.clients = {14, 1};
  std::vector<RampOutcome>& r = s.ramps;
  r = ramps_at(14, 128, {74, 68, 77, 71, 70},
               {"jackd's wake-up", "jackd's wake-up", "c03 DSP", "jackd's wake-up", "c03 DSP"});
  r[0].measured_pct = 73.2;
  r[0].nominal_pct = 70;
  for (const RampOutcome& o : ramps_at(14, 256, {66, 60, 90, 63, 65, 62})) r.push_back(o);
  for (const RampOutcome& o : ramps_at(14, 1024, {95, 98, 97}, {"c03 DSP", "c03 DSP", "x"})) {
    r.push_back(o);
  }
  r.push_back(ramp(14, 1024, std::nullopt, 100));
  r.push_back(ramp(14, 1024, std::nullopt, 100));
  for (const RampOutcome& o : ramps_at(1, 128, {88})) r.push_back(o);
  s.cells = summarise_cells(s.spec, s.ramps);
  s.cells.erase(s.cells.begin() + 3);  // 14 clients at 512: no cell at all (not measured)
  return s;
}

TEST(HeadroomReport, TheAnswersAreOneLinePerPeriodForTheFirstClientCount) {
  const Sample s = sample();
  EXPECT_EQ(headroom_answers(s.spec, s.cells),
            "64 frames (1.3 ms): no usable ramp (see the table)\n"
            "128 frames (2.7 ms): 71 % [68..77, 94 %] of the period before the first dropout; "
            "most often broken by jackd's wake-up (3 of 5 ramps)\n"
            "256 frames (5.3 ms): 64 % [60..90] of the period before the first dropout\n"
            "1024 frames (21.3 ms): at least 98 % [95..100, 94 %] of the period before the "
            "first dropout (2 of 5 ramps ran to the ramp's end without one); most often broken "
            "by c03 DSP (2 of 3 ramps)\n");
}

// "Most often" only for a hop that broke more often than any other and more than once.
TEST(HeadroomReport, MostOftenIsSaidOnlyOfAHopThatBrokeMoreOftenThanEveryOther) {
  HeadroomSpec spec;
  spec.periods = {128};
  spec.clients = {2};
  auto answer = [&](const std::vector<std::string>& broke) {
    std::vector<double> loads(broke.size(), 50.0);
    const std::vector<RampOutcome> r = ramps_at(2, 128, loads, broke);
    const std::string line = headroom_answers(spec, summarise_cells(spec, r));
    return line.substr(line.find("dropout") + 7);
  };
  EXPECT_EQ(answer({"c01 DSP", "c02 DSP", "c01 wake-up"}),
            "; a different hop broke in each of the 3 ramps\n");
  EXPECT_EQ(answer({"c01 DSP"}), "; broken by c01 DSP\n");
  EXPECT_EQ(answer({"c01 DSP", "c02 DSP", "c02 DSP", "c01 DSP", "x"}),
            "; broken as often by c01 DSP as by c02 DSP (2 of 5 each)\n");
  EXPECT_EQ(answer({"c01 DSP", "c02 DSP", "c02 DSP"}),
            "; most often broken by c02 DSP (2 of 3 ramps)\n");
}

TEST(HeadroomReport, TheTableHasOneAlignedRowPerCell) {
  const Sample s = sample();
  const std::string t = headroom_table(s.spec, s.cells);
  // K: 30 cycles at 64 frames (0.040 x 48000 / 64), 15 at 128, 7.5 -> 8 at 256, 4 at 512, 1024.
  EXPECT_EQ(t.substr(0, t.find('\n')),
            "Ramp: +1 % of the period every 30 cycles at 64 frames (40 ms), 15 at 128 (40 ms), 8 "
            "at 256 (42.7 ms), 4 at 512 (42.7 ms), 4 at 1024 (85.3 ms), until the first xrun or "
            "100 %");
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < t.size()) {
    const size_t nl = t.find('\n', at);
    lines.push_back(t.substr(at, nl - at));
    at = nl + 1;
  }
  ASSERT_EQ(lines.size(), 1u + 1u + 9u + 5u) << t;  // ramp, header, 9 cells, the legend
  EXPECT_EQ(lines[1],
            "  period    ms  clients  ramps  no xrun  headroom %          interval  min..max  "
            "measured/nominal %  broke most often");
  EXPECT_EQ(lines[2],
            "      64   1.3       14      0        0           -                 -         -  "
            "                 -  -");
  EXPECT_EQ(lines[3],
            "     128   2.7       14      5        0          71   68..77 (93.8 %)    68..77  "
            "           73.2/70  jackd's wake-up 3/5");
  EXPECT_EQ(lines[4],
            "     256   5.3       14      6        0          64   60..90 (96.9 %)    60..90  "
            "               -/-  -");
  EXPECT_EQ(lines[5],
            "    1024  21.3       14      5        2       >= 98  95..100 (93.8 %)   95..100  "
            "               -/-  c03 DSP 2/3");
  EXPECT_EQ(lines[7],
            "     128   2.7        1      1        0          88                 -    88..88  "
            "               -/-  -");
  EXPECT_EQ(lines[11].rfind("  headroom %: the clients' total DSP load", 0), 0u) << lines[11];
  for (const std::string& l : lines) EXPECT_LE(l.size(), 200u) << l;
  // One K for every period: said once, with each period's step in ms.
  HeadroomSpec fixed = s.spec;
  fixed.every_cycles = 4;
  const std::string f = headroom_table(fixed, s.cells);
  EXPECT_EQ(f.substr(0, f.find('\n')),
            "Ramp: +1 % of the period every 4 cycles (5.3 ms at 64 frames, 10.7 ms at 128, 21.3 "
            "ms at 256, 42.7 ms at 512, 85.3 ms at 1024), until the first xrun or 100 %");
}

TEST(HeadroomReport, TheJsonHasTheSettingsTheCellsTheRampsAndTheDefinitions) {
  Sample s = sample();
  s.ramps[0].run_dir = "runs/c14-p128-r1";
  s.ramps[0].broke->key = "jackd_wakeup";
  s.ramps[0].broke->kind = "jackd_wakeup";
  s.ramps[0].broke->late_us = 120.5;
  const nlohmann::json j = headroom_json(s.spec, s.cells, s.ramps);
  EXPECT_EQ(j["name"], "headroom");
  EXPECT_EQ(j["settings"], headroom_settings_json(s.spec));
  EXPECT_EQ(j["rate"], 48000);
  ASSERT_EQ(j["ramp_steps"].size(), 5u);
  EXPECT_EQ(j["ramp_steps"][0]["every_cycles"], 30);
  EXPECT_DOUBLE_EQ(j["ramp_steps"][0]["longest_s"].get<double>(), 4.0);
  ASSERT_EQ(j["cells"].size(), 9u);
  const nlohmann::json& c = j["cells"][1];  // 14 clients, 128 frames
  EXPECT_EQ(c["period"], 128);
  EXPECT_EQ(c["period_text"], "128 frames at 48 kHz (2.7 ms)");
  EXPECT_EQ(c["median_pct"], 71.0);
  EXPECT_EQ(c["ci_low_pct"], 68.0);
  EXPECT_EQ(c["ci_high_pct"], 77.0);
  EXPECT_EQ(c["ci_coverage"], 0.9375);
  EXPECT_EQ(c["broke_most"], "jackd's wake-up");
  EXPECT_EQ(c["broke_counts"][1]["label"], "c03 DSP");
  EXPECT_EQ(c["broke_counts"][1]["ramps"], 2);
  EXPECT_EQ(c["answer"], "71 % [68..77, 94 %]");
  EXPECT_TRUE(j["cells"][0]["median_pct"].is_null());  // 64 frames: no ramp
  EXPECT_TRUE(j["cells"][0]["ci_coverage"].is_null());
  ASSERT_EQ(j["ramps"].size(), s.ramps.size());
  EXPECT_EQ(j["ramps"][0]["run_dir"], "runs/c14-p128-r1");
  EXPECT_EQ(j["ramps"][0]["first_xrun_pct"], 74.0);
  EXPECT_EQ(j["ramps"][0]["censored"], false);
  EXPECT_EQ(j["ramps"][0]["broke"]["late_us"], 120.5);
  EXPECT_EQ(j["ramps"][14]["censored"], true);
  EXPECT_TRUE(j["ramps"][14]["first_xrun_pct"].is_null());
  EXPECT_TRUE(j["ramps"][14]["broke"].is_null());
  for (const char* d :
       {"headroom_pct", "censored", "interval", "measured_pct", "nominal_pct", "broke"}) {
    EXPECT_TRUE(j["definitions"][d].is_string()) << d;
  }
  EXPECT_EQ(j["answers"], headroom_answers(s.spec, s.cells));
}

TEST(HeadroomReport, ThePlotDataHasOneBlockPerClientCount) {
  const Sample s = sample();
  EXPECT_EQ(headroom_plot_data(s.spec, s.cells),
            "# 14 clients: period median ci_low ci_high min max ramps censored\n"
            "128 71 68 77 68 77 5 0\n"
            "256 64 60 90 60 90 6 0\n"
            "1024 98 95 100 95 100 5 2\n"
            "\n\n"
            "# 1 client: period median ci_low ci_high min max ramps censored\n"
            "128 88 88 88 88 88 1 0\n");
  // A client count without ramps is a block of one undefined row (gnuplot would not count an
  // empty one): index 1 stays the second client count.
  HeadroomSpec three = s.spec;
  three.clients = {14, 8, 1};
  const std::string d = headroom_plot_data(three, s.cells);
  EXPECT_NE(d.find("\n\n\n# 8 clients: period median ci_low ci_high min max ramps censored\n"
                   "NaN NaN NaN NaN NaN NaN 0 0\n\n\n# 1 client:"),
            std::string::npos)
      << d;
}

TEST(HeadroomRamp, EveryCyclesDefaultsTo40MsAndAtLeast4) {
  EXPECT_EQ(ramp_every_cycles(64, 48000), 30);    // 0.040 x 48000 / 64 = 30
  EXPECT_EQ(ramp_every_cycles(128, 48000), 15);   // 15
  EXPECT_EQ(ramp_every_cycles(256, 48000), 8);    // 7.5, rounded up
  EXPECT_EQ(ramp_every_cycles(512, 48000), 4);    // 3.75 -> 4
  EXPECT_EQ(ramp_every_cycles(1024, 48000), 4);   // 1.875 -> 2, at least 4
  EXPECT_EQ(ramp_every_cycles(64, 44100), 28);    // 27.56 -> 28
  EXPECT_EQ(ramp_every_cycles(16, 192000), 480);  // 480
  EXPECT_EQ(ramp_every_cycles(0, 48000), 4);
  HeadroomSpec s;
  EXPECT_EQ(every_cycles_at(s, 64), 30);
  s.every_cycles = 10;
  EXPECT_EQ(every_cycles_at(s, 64), 10);
  EXPECT_EQ(every_cycles_at(s, 1024), 10);
}

TEST(HeadroomRamp, TheLongestRampIsEveryStepToHundredPercent) {
  HeadroomSpec s;
  EXPECT_DOUBLE_EQ(ramp_longest_s(s, 64), 4.0);                         // 100 x 30 x 64 / 48000
  EXPECT_DOUBLE_EQ(ramp_longest_s(s, 1024), 100 * 4 * 1024 / 48000.0);  // 8.533 s
  s.step_pct = 3;                                                       // 34 steps reach 100 %
  EXPECT_DOUBLE_EQ(ramp_longest_s(s, 64), 34 * 30 * 64 / 48000.0);
  s.step_pct = 0.1;  // 1000 steps, not 1001
  EXPECT_DOUBLE_EQ(ramp_longest_s(s, 64), 1000 * 30 * 64 / 48000.0);
  s.step_pct = 1;
  s.every_cycles = 10;
  EXPECT_DOUBLE_EQ(ramp_longest_s(s, 480), 10.0);  // 100 x 10 x 480 / 48000
}

// A completed run.json's parts that the reader needs, with `ramp` as its "ramp" section.
nlohmann::json run_json(const nlohmann::json& ramp_section) {
  nlohmann::json j = {{"schema_version", 2},
                      {"status", "completed"},
                      {"settings", {{"clients", 14}, {"ports", 4}, {"frames", 128}}}};
  if (!ramp_section.is_null()) j["ramp"] = ramp_section;
  return j;
}

TEST(HeadroomRunJson, ARampWithAFirstXrun) {
  const nlohmann::json run = run_json(nlohmann::json::parse(R"({
    "step_pct": 1.0, "every_cycles": 30, "ns_per_stage": 123.4,
    "ended": "first_xrun", "reached_pct": 71.0,
    "first_xrun": {"cycle": 12345, "t_s": 3.21, "step": 71, "load_pct": 71.0,
                   "measured_pct": 73.2, "nominal_pct": 70.0,
                   "broke": {"key": "dsp.c03", "kind": "dsp", "client": 3, "label": "c03 DSP",
                             "late_us": 120.5, "cause": "preempted by kworker/1:2"}}})"));
  std::string why;
  const std::optional<RampOutcome> o = ramp_outcome_from_run_json(run, &why);
  ASSERT_TRUE(o.has_value()) << why;
  EXPECT_EQ(o->clients, 14);
  EXPECT_EQ(o->period, 128u);
  EXPECT_EQ(o->rep, 0);  // not in run.json: the runner sets it
  EXPECT_EQ(o->first_xrun_pct, 71.0);
  EXPECT_EQ(o->reached_pct, 71.0);
  EXPECT_EQ(o->measured_pct, 73.2);
  EXPECT_EQ(o->nominal_pct, 70.0);
  ASSERT_TRUE(o->broke.has_value());
  EXPECT_EQ(o->broke->key, "dsp.c03");
  EXPECT_EQ(o->broke->kind, "dsp");
  EXPECT_EQ(o->broke->client, 3);
  EXPECT_EQ(o->broke->label, "c03 DSP");
  EXPECT_EQ(o->broke->late_us, 120.5);
  EXPECT_EQ(o->broke->cause, "preempted by kworker/1:2");
  // measured, nominal and broke may be absent.
  const nlohmann::json bare =
      run_json({{"ended", "first_xrun"}, {"reached_pct", 40}, {"first_xrun", {{"load_pct", 40}}}});
  const std::optional<RampOutcome> b = ramp_outcome_from_run_json(bare, &why);
  ASSERT_TRUE(b.has_value()) << why;
  EXPECT_EQ(b->first_xrun_pct, 40.0);
  EXPECT_FALSE(b->measured_pct.has_value());
  EXPECT_FALSE(b->nominal_pct.has_value());
  EXPECT_FALSE(b->broke.has_value());
}

TEST(HeadroomRunJson, AFullRampIsCensored) {
  const nlohmann::json run = run_json({{"step_pct", 1.0},
                                       {"every_cycles", 4},
                                       {"ended", "full"},
                                       {"reached_pct", 100.0},
                                       {"measured_pct", 96.5},
                                       {"nominal_pct", 100.0}});
  std::string why;
  const std::optional<RampOutcome> o = ramp_outcome_from_run_json(run, &why);
  ASSERT_TRUE(o.has_value()) << why;
  EXPECT_FALSE(o->first_xrun_pct.has_value());
  EXPECT_EQ(o->reached_pct, 100.0);
  EXPECT_EQ(o->measured_pct, 96.5);
  EXPECT_EQ(o->nominal_pct, 100.0);
  EXPECT_FALSE(o->broke.has_value());
}

TEST(HeadroomRunJson, UnusableRunsSayWhyInOneLine) {
  auto why_of = [](const nlohmann::json& run) {
    std::string why;
    EXPECT_FALSE(ramp_outcome_from_run_json(run, &why).has_value()) << run.dump();
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    return why;
  };
  EXPECT_EQ(why_of(run_json({{"ended", "stopped"}, {"reached_pct", 33}})),
            "the ramp stopped at 33 % before its first xrun or 100 % (the run ended otherwise)");
  EXPECT_EQ(why_of(run_json(nullptr)),
            "run.json has no 'ramp' section (the run was not a headroom ramp)");
  nlohmann::json failed = run_json({{"ended", "full"}, {"reached_pct", 100}});
  failed["status"] = "failed";
  EXPECT_EQ(why_of(failed), "the run's status is 'failed', not completed");
  nlohmann::json no_status = failed;
  no_status.erase("status");
  EXPECT_EQ(why_of(no_status), "run.json has no status (the run did not finish)");
  EXPECT_EQ(why_of(run_json({{"ended", "first_xrun"}, {"reached_pct", 50}})),
            "the ramp ended at its first xrun but has no 'ramp.first_xrun'");
  EXPECT_EQ(why_of(run_json({{"ended", "sideways"}, {"reached_pct", 50}})),
            "'ramp.ended' is 'sideways', not first_xrun, full or stopped");
  EXPECT_EQ(why_of(run_json({{"ended", "full"}})), "run.json: no 'ramp.reached_pct'");
  EXPECT_EQ(why_of(run_json({{"ended", "full"}, {"reached_pct", "100"}})),
            "run.json: 'ramp.reached_pct' is not a number (it is string)");
  EXPECT_EQ(why_of(run_json({{"ended", "first_xrun"},
                             {"reached_pct", 50},
                             {"first_xrun", {{"load_pct", 50}, {"broke", {{"client", 1.5}}}}}})),
            "run.json: 'ramp.first_xrun.broke.client' is not an integer (it is number)");
  nlohmann::json no_frames = run_json({{"ended", "full"}, {"reached_pct", 100}});
  no_frames["settings"].erase("frames");
  EXPECT_EQ(why_of(no_frames), "run.json: no 'settings.frames'");
  EXPECT_EQ(why_of(nlohmann::json::array()), "run.json is not a JSON object (it is array)");
  // Without a place for the reason, still nullopt.
  EXPECT_FALSE(ramp_outcome_from_run_json(run_json(nullptr), nullptr).has_value());
}

TEST(HeadroomSettings, TheDefaultNameFollowsTheSettings) {
  HeadroomSpec a;
  HeadroomSpec b = a;
  EXPECT_EQ(default_headroom_name(a), default_headroom_name(b));
  EXPECT_EQ(default_headroom_name(a).rfind("headroom-", 0), 0u);
  EXPECT_EQ(default_headroom_name(a).size(), std::string("headroom-").size() + 8);
  b.name = "other";
  b.rate = 44100;  // set by run_args, which the name already hashes
  EXPECT_EQ(default_headroom_name(a), default_headroom_name(b));
  for (auto change : std::vector<void (*)(HeadroomSpec&)>{
           [](HeadroomSpec& s) { s.step_pct = 2; }, [](HeadroomSpec& s) { s.every_cycles = 8; },
           [](HeadroomSpec& s) {
             s.clients = {1, 14};
           },
           [](HeadroomSpec& s) { s.explain = true; },
           [](HeadroomSpec& s) {
             s.run_args = {"--policy", "rr"};
           }}) {
    HeadroomSpec c = a;
    change(c);
    EXPECT_NE(default_headroom_name(a), default_headroom_name(c)) << headroom_settings_json(c);
  }
}

TEST(HeadroomSettings, ASpecThatCannotRampIsRefusedInOneLine) {
  EXPECT_NO_THROW(check_headroom_spec(HeadroomSpec{}));
  for (auto bad : std::vector<void (*)(HeadroomSpec&)>{
           [](HeadroomSpec& s) { s.periods.clear(); },
           [](HeadroomSpec& s) {
             s.periods = {128, 64};
           },
           [](HeadroomSpec& s) {
             s.periods = {0, 64};
           },
           [](HeadroomSpec& s) {
             s.clients = {14, 1, 14};
           },
           [](HeadroomSpec& s) { s.clients = {0}; }, [](HeadroomSpec& s) { s.ports = 0; },
           [](HeadroomSpec& s) { s.repetitions = 0; }, [](HeadroomSpec& s) { s.step_pct = 0; },
           [](HeadroomSpec& s) { s.step_pct = 101; }, [](HeadroomSpec& s) { s.every_cycles = -1; },
           [](HeadroomSpec& s) { s.rate = 0; }}) {
    HeadroomSpec s;
    bad(s);
    try {
      check_headroom_spec(s);
      ADD_FAILURE() << headroom_settings_json(s);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_EQ(std::string(e.what()).rfind("headroom: ", 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace xrunlab
