// SPDX-License-Identifier: GPL-2.0-or-later
// The figures campaigns compare and --fail-if checks (engine/report/run_metrics.hpp): taken from
// a run's result (here read back from parts of a run.json) with one definition each, thresholds
// parsed and checked, and the JUnit report.
#include "engine/report/run_metrics.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/base/errors.hpp"
#include "engine/result/run_json.hpp"

namespace xrunlab {
namespace {

using nlohmann::json;

json run_with_slack(uint64_t below_zero, json bins) {
  uint64_t count = below_zero;
  for (const json& b : bins) count += b[1].get<uint64_t>();
  json run;
  run["measurement"]["seconds_ran"] = 30.0;
  run["xrun_cycles"] = {{"events", 6}, {"cycles", 9}};
  run["xruns"]["events_total"] = 7;
  run["totals"] = {{"xrun_count", 2}, {"avg_dsp_load_pct", 41.5}};
  run["jack_test"] = {{"delay_max_us", 268.0}, {"cycle_max_us", 781.0}};
  run["audio"]["glitches"] = 3;
  json wake;
  wake["key"] = "jackd_wakeup";
  wake["summary_us"]["count"] = 100;
  wake["below_zero"] = 0;
  wake["bins"] = json::parse("[[5, 98], [40, 1], [300, 1]]");
  json slack;
  slack["key"] = "slack";
  slack["summary_us"]["count"] = count;
  slack["summary_us"]["min"] = 10;
  slack["below_zero"] = below_zero;
  slack["below_zero_min"] = below_zero > 0 ? json(-700) : json();
  slack["bins"] = std::move(bins);
  run["cycles"]["hops"] = json::array({wake, slack});
  return run;
}

// A run's figure from a part of its run.json, as run.json reads back (run_result_from_json).
std::optional<double> metric(json run, const std::string& name) {
  run["schema_version"] = 2;
  std::string why;
  const std::optional<RunResult> r = run_result_from_json(run, &why);
  EXPECT_TRUE(r) << why;
  return r ? run_metric(*r, name) : std::nullopt;
}

TEST(RunMetrics, EachFigureHasOneDefinition) {
  const json run = run_with_slack(0, json::parse("[[10, 1], [20, 1], [500, 98]]"));
  EXPECT_EQ(metric(run, "xruns"), 6.0) << "the cycle table's events, not the monitor's 7";
  EXPECT_EQ(metric(run, "xrun_rate"), 12.0) << "6 in 30 s";
  EXPECT_EQ(metric(run, "xrun_count"), 2.0);
  EXPECT_EQ(metric(run, "delay_max"), 268.0);
  EXPECT_EQ(metric(run, "cycle_max"), 781.0);
  EXPECT_EQ(metric(run, "dsp_load"), 41.5);
  EXPECT_EQ(metric(run, "glitches"), 3.0);
  EXPECT_EQ(metric(run, "slack_min"), 10.0);
  EXPECT_EQ(metric(run, "slack_p1"), 10.0) << "rank ceil(1 % of 100) = 1";
  EXPECT_EQ(metric(run, "wakeup_p99"), 40.0) << "rank 99 of 100";
  EXPECT_FALSE(metric(run, "nonsense"));
}

TEST(RunMetrics, TheClientsWakeUpP99PoolsEveryClientsCycles) {
  json run = run_with_slack(0, json::parse("[[10, 1]]"));
  EXPECT_FALSE(metric(run, "client_wakeup_p99")) << "no client hop";
  auto client = [](const char* key, json bins) {
    uint64_t count = 0;
    for (const json& b : bins) count += b[1].get<uint64_t>();
    json h;
    h["key"] = key;
    h["kind"] = "client_wakeup";
    h["summary_us"]["count"] = count;
    h["below_zero"] = 0;
    h["bins"] = std::move(bins);
    return h;
  };
  // c01: 99 cycles at 20 us, 1 at 900; c02: 97 at 20, 3 at 300. Pooled, the 200 values'
  // rank ceil(0.99 * 200) = 198 is 300 (196 at 20, then 300 x 3).
  run["cycles"]["hops"].push_back(client("wakeup.c01", json::parse("[[20, 99], [900, 1]]")));
  run["cycles"]["hops"].push_back(client("wakeup.c02", json::parse("[[20, 97], [300, 3]]")));
  EXPECT_EQ(metric(run, "client_wakeup_p99"), 300.0);
  EXPECT_EQ(metric(run, "wakeup_p99"), 40.0) << "jackd's wake-up is its own hop";
  // Pooled, not the worst client's: c01 all at 20, c02 98 at 20 and 2 at 500 (its own p99 is
  // 500); rank 198 of the pooled 200 is 20.
  run["cycles"]["hops"][2] = client("wakeup.c01", json::parse("[[20, 100]]"));
  run["cycles"]["hops"][3] = client("wakeup.c02", json::parse("[[20, 98], [500, 2]]"));
  EXPECT_EQ(metric(run, "client_wakeup_p99"), 20.0);
}

TEST(RunMetrics, TheBaselinesP99OnlyWhereItIsExact) {
  json run = run_with_slack(0, json::parse("[[10, 1]]"));
  EXPECT_FALSE(metric(run, "baseline_p99")) << "no --baseline";
  run["baseline"] = {{"tool", "cyclictest"},
                     {"p50", {{"value_us", 12}, {"exact", true}}},
                     {"p99", {{"value_us", 345}, {"exact", true}}}};
  EXPECT_EQ(metric(run, "baseline_p99"), 345.0);
  EXPECT_EQ(metric(run, "baseline_p50"), 12.0);
  run["baseline"]["p99"]["exact"] = false;  // beyond cyclictest's histogram: a bound
  EXPECT_FALSE(metric(run, "baseline_p99"));
  run["baseline"] = {{"tool", "cyclictest"}, {"error", "cyclictest exited with status 1"}};
  EXPECT_FALSE(metric(run, "baseline_p99"));
}

TEST(RunMetrics, TheDspLoopAgainstItsNominalLengthIn2004sTerms) {
  json run = run_with_slack(0, json::parse("[[10, 1]]"));
  EXPECT_FALSE(metric(run, "dsp_within_100us_pct")) << "no DSP hop";
  auto dsp = [](int client, json bins) {
    uint64_t count = 0;
    for (const json& b : bins) count += b[1].get<uint64_t>();
    json h;
    h["key"] = fmt::format("dsp.c{:02d}", client);
    h["kind"] = "dsp";
    h["client"] = client;
    h["summary_us"]["count"] = count;
    h["below_zero"] = 0;
    h["bins"] = std::move(bins);
    return h;
  };
  // c01, nominal 1000 us: 8 loops at 1000..1100 (within), 2 at 1101 and 2500 (beyond).
  // c02, nominal 500 us: 9 at 450 (within: 50 us short), 1 at 700 (40 % over).
  run["cycles"]["hops"].push_back(
      dsp(1, json::parse("[[1000, 4], [1100, 4], [1101, 1], [2500, 1]]")));
  run["cycles"]["hops"].push_back(dsp(2, json::parse("[[450, 9], [700, 1]]")));
  run["clients"] = json::array({{{"index", 1}, {"name", "c01"}, {"dsp", {{"target_us", 1000.0}}}},
                                {{"index", 2}, {"name", "c02"}, {"dsp", {{"target_us", 500.0}}}}});
  EXPECT_EQ(metric(run, "dsp_within_100us_pct"), 85.0) << "17 of 20 loops";
  EXPECT_EQ(metric(run, "dsp_overhead_max_pct"), 150.0) << "c01's 2500 us against 1000";
  EXPECT_EQ(metric(run, "dsp_max_us"), 2500.0);
  EXPECT_EQ(metric(run, "dsp_nominal_us"), 1000.0);
  EXPECT_EQ(metric(run, "dsp_p50_us"), 700.0) << "the 10th of the 20 loops pooled (lower median)";
}

TEST(RunMetrics, PingLossOnlyWithFiguresAndRequestsSent) {
  json run = run_with_slack(0, json::parse("[[10, 1]]"));
  EXPECT_FALSE(metric(run, "ping_lost_pct")) << "no --ping";
  run["ping"] = {{"rate_hz", 100}, {"sent", 400}, {"lost", 80}, {"lost_pct", 20.0}};
  EXPECT_EQ(metric(run, "ping_lost_pct"), 20.0);
  run["ping"]["sent"] = 0;
  run["ping"]["lost_pct"] = 0.0;
  EXPECT_FALSE(metric(run, "ping_lost_pct")) << "nothing sent: no loss figure, not 0 %";
  run["ping"] = {{"rate_hz", 100}, {"error", "the pinger was not started"}};
  EXPECT_FALSE(metric(run, "ping_lost_pct"));
}

// A load of run.json's "loads" with xrunlab-load's report: `bench` its bench_* keys, or none.
json load_with_report(const std::string& kind, const json& bench) {
  json report = {{"kind", kind}, {"args", {"1"}}};
  for (const auto& [key, value] : bench.items()) report[key] = value;
  return {{"spec", kind}, {"kind", kind}, {"report", report}};
}

TEST(RunMetrics, BenchJobTimesAreTheJobsWeightedMeanOverEveryBenchLoad) {
  json run = run_with_slack(0, json::parse("[[10, 1]]"));
  EXPECT_FALSE(metric(run, "bench_job_ms")) << "a run from before --load: no loads at all";
  run["loads"] = json::array({load_with_report("cpu", json::object())});
  EXPECT_FALSE(metric(run, "bench_job_ms")) << "no bench load";
  EXPECT_FALSE(metric(run, "bench_job_cpu_ms"));
  const json bench_a = {{"bench_jobs", 100},
                        {"bench_job_iterations", 10'000'000},
                        {"bench_job_wall_ms_mean", 30.0},
                        {"bench_job_wall_ms_min", 28.0},
                        {"bench_job_cpu_ms_mean", 29.0}};
  run["loads"].push_back(load_with_report("bench", bench_a));
  EXPECT_EQ(metric(run, "bench_job_ms"), 30.0);
  EXPECT_EQ(metric(run, "bench_job_cpu_ms"), 29.0);
  json bench_b = bench_a;
  bench_b["bench_jobs"] = 300;
  bench_b["bench_job_wall_ms_mean"] = 50.0;
  bench_b["bench_job_cpu_ms_mean"] = 33.0;
  run["loads"].push_back(load_with_report("bench", bench_b));
  EXPECT_DOUBLE_EQ(*metric(run, "bench_job_ms"), 45.0) << "(100 x 30 + 300 x 50) / 400";
  EXPECT_DOUBLE_EQ(*metric(run, "bench_job_cpu_ms"), 32.0) << "(100 x 29 + 300 x 33) / 400";
  const json none = {{"bench_jobs", 0},
                     {"bench_job_iterations", 10'000'000},
                     {"bench_job_wall_ms_mean", nullptr},
                     {"bench_job_wall_ms_min", nullptr},
                     {"bench_job_cpu_ms_mean", nullptr}};
  run["loads"] = json::array({load_with_report("bench", none)});
  EXPECT_FALSE(metric(run, "bench_job_ms")) << "no job finished: no figure, not 0 ms";
  EXPECT_FALSE(metric(run, "bench_job_cpu_ms"));
  run["loads"] = json::array({{{"spec", "bench"}, {"kind", "bench"}, {"report", nullptr}}});
  EXPECT_FALSE(metric(run, "bench_job_ms")) << "the load wrote no report";
}

TEST(RunMetrics, BelowZeroSlackIsItsKeptMinimum) {
  const json run = run_with_slack(2, json::parse("[[10, 98]]"));
  EXPECT_EQ(metric(run, "slack_min"), -700.0);
  EXPECT_EQ(metric(run, "slack_p1"), -700.0) << "rank 1 of 100 lies below zero";
}

TEST(RunMetrics, TheSlacksNegativeBinsGiveExactLowPercentiles) {
  // A slack hop as run.json writes it: `below_zero` counts every negative value, the binned
  // ones (down to -negative_bound_us) and those beyond, which only their count and least value
  // keep.
  auto run = [](uint64_t beyond, uint64_t at_900, uint64_t at_300, uint64_t at_400) {
    json r = run_with_slack(0, json::array());
    json& h = r["cycles"]["hops"][1];
    h["summary_us"]["count"] = beyond + at_900 + at_300 + at_400;
    h["below_zero"] = beyond + at_900 + at_300;
    h["below_zero_min"] = beyond > 0 ? -25000 : -900;
    h["negative_bound_us"] = 20000;
    h["bins"] = json::array({{-900, at_900}, {-300, at_300}, {400, at_400}});
    return r;
  };
  // 100 cycles, 3 beyond the bins: rank 1 is the least value, exact.
  EXPECT_EQ(metric(run(3, 5, 10, 82), "slack_min"), -25000.0);
  EXPECT_EQ(metric(run(3, 5, 10, 82), "slack_p1"), -25000.0);
  // 500 cycles, 6 beyond the bins: rank 5 lies among them, whose values are not kept: absent,
  // not the minimum passed off as the percentile.
  EXPECT_FALSE(metric(run(6, 20, 40, 434), "slack_p1"));
  // 500 cycles, 2 beyond: rank 5 falls in the -900 bin, exact.
  EXPECT_EQ(metric(run(2, 20, 40, 438), "slack_p1"), -900.0);
  // No value beyond the bins: the same rank from the bins alone.
  EXPECT_EQ(metric(run(0, 1, 40, 459), "slack_p1"), -300.0) << "rank 5: 1 at -900, then -300";
}

TEST(RunMetrics, AFigureTheRunDoesNotHaveIsAbsentNotZero) {
  json run = run_with_slack(0, json::parse("[[10, 1]]"));
  run.erase("xrun_cycles");
  run.erase("cycles");
  run["audio"] = nullptr;
  EXPECT_EQ(metric(run, "xruns"), 7.0) << "without a table: the monitor's events";
  EXPECT_FALSE(metric(run, "slack_min"));
  EXPECT_FALSE(metric(run, "wakeup_p99"));
  EXPECT_FALSE(metric(run, "glitches"));
}

TEST(Thresholds, ParseNameOperatorValueAndUnit) {
  const Threshold a = parse_threshold("xruns>0");
  EXPECT_EQ(a.metric, "xruns");
  EXPECT_EQ(a.op, ">");
  EXPECT_EQ(a.value, 0.0);
  const Threshold b = parse_threshold("slack_p1<=0.5ms");
  EXPECT_EQ(b.op, "<=");
  EXPECT_EQ(b.value, 500.0);
  EXPECT_EQ(parse_threshold("delay_max>=2s").value, 2e6);
  EXPECT_EQ(parse_threshold("delay_max==250us").value, 250.0);
  EXPECT_EQ(parse_threshold("dsp_load>80%").value, 80.0);
  // A figure in ms takes its value in ms, or in us or s converted.
  EXPECT_EQ(parse_threshold("bench_job_ms>40").value, 40.0);
  EXPECT_EQ(parse_threshold("bench_job_ms>40ms").value, 40.0);
  EXPECT_DOUBLE_EQ(parse_threshold("bench_job_ms>1500us").value, 1.5);
  EXPECT_DOUBLE_EQ(parse_threshold("bench_job_cpu_ms>0.04s").value, 40.0);
  auto message = [](const std::string& t) {
    try {
      parse_threshold(t);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("xruns"), "--fail-if 'xruns': expected NAME OP VALUE, e.g. xruns>0");
  EXPECT_EQ(message("xruns>"), "--fail-if 'xruns>': no number after >");
  EXPECT_EQ(message("xruns>1us"),
            "--fail-if 'xruns>1us': 'us' is not xruns's unit (a count has none)");
  EXPECT_EQ(message("delay_max>1h"),
            "--fail-if 'delay_max>1h': 'h' is not a time unit (us, ms, s)");
  EXPECT_EQ(message("bench_job_ms>1%"),
            "--fail-if 'bench_job_ms>1%': '%' is not a time unit (us, ms, s)");
  EXPECT_EQ(message("frobs>1").rfind(
                "--fail-if 'frobs>1': 'frobs' is not a figure xrunlab checks (xruns, ", 0),
            0u);
  const std::string p99 = message("slack_p99<500us");
  EXPECT_NE(p99.find("; the slack 99 % of cycles had at least is slack_p1, the low tail's "
                     "percentile"),
            std::string::npos)
      << p99;
}

TEST(Thresholds, ACheckSaysWhatItSawAndANotMeasuredFigureFails) {
  const ThresholdCheck pass = check_threshold(parse_threshold("xruns>0"), 0.0);
  EXPECT_FALSE(pass.crossed);
  EXPECT_EQ(pass.message, "xruns = 0 (xruns>0: passes)");
  const ThresholdCheck fail = check_threshold(parse_threshold("slack_p1<500us"), 312.0);
  EXPECT_TRUE(fail.crossed);
  EXPECT_EQ(fail.message, "slack_p1 = 312 us (slack_p1<500us: fails)");
  const ThresholdCheck none = check_threshold(parse_threshold("wakeup_p99>100us"), std::nullopt);
  EXPECT_TRUE(none.crossed);
  EXPECT_EQ(none.message, "wakeup_p99: not measured, so it cannot pass 'wakeup_p99>100us'");
}

TEST(Junit, OneTestcasePerNameWithItsFailureOrError) {
  JunitCase ok{
      "fifo", "xrunlab.campaign", 2.5, {check_threshold(parse_threshold("xruns>0"), 0.0)}, ""};
  JunitCase bad{
      "iso<&>", "xrunlab.campaign", 3.0, {check_threshold(parse_threshold("xruns>0"), 4.0)}, ""};
  JunitCase err{"dead", "xrunlab.campaign", 0.5, {}, "failed: jackd killed by signal 9"};
  const std::string xml = junit_xml("suite \"x\"", {ok, bad, err});
  EXPECT_NE(xml.find("<testsuite name=\"suite &quot;x&quot;\" tests=\"3\" failures=\"1\" "
                     "errors=\"1\" time=\"6.000\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase name=\"iso&lt;&amp;&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"xruns = 4 (xruns&gt;0: fails)\">"), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<error message=\"failed: jackd killed by signal 9\"/>"), std::string::npos)
      << xml;
  EXPECT_EQ(xml.find("<failure", xml.find("name=\"fifo\"")),
            xml.find("<failure message=\"xruns = 4"))
      << "the passing case has no failure";
}

}  // namespace
}  // namespace xrunlab
