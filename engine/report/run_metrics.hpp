// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The figures of one run that campaigns compare and thresholds (--fail-if) check, each taken
// from the run's result (a RunResult, as the run left it or as run.json reads back) with one
// definition, named for what it is:
//
//   xruns        the cycle table's xrun events (runs of cycles that missed their deadline, ran
//                out of chain order or had a client that did not run; docs/measurement.md,
//                "Xrun events by cycle"); without a table, the monitor's JACK2 xrun events
//   xrun_rate    xruns per minute of the measured window
//   xrun_count   jack_test's XRUN Count (the driver's xruns)
//   delay_max    jack_test's Delay Maximum, usecs (JACK1's rules on jackd's wake-ups)
//   cycle_max    jack_test's Cycle Maximum, usecs (JACK1's sampled maximum)
//   slack_min    the smallest slack of a complete cycle, usecs (negative: a missed deadline)
//   slack_p1     the slack 1 % of complete cycles were at or below, usecs
//   wakeup_p99   interrupt -> jackd wake-up, 99th percentile, usecs (the card's record)
//   client_wakeup_p99  a client's wake-up after its upstream finished (jackd's wake-up for the
//                first client, the previous client's exit for the others) -> its callback's
//                entry, 99th percentile over every client's cycles pooled, usecs: the
//                scheduling latency the clients' policy gives
//   baseline_p99 the timer baseline's (cyclictest beside the run) 99th percentile, usecs
//   baseline_max cyclictest's own maximum beside the run, usecs (exact beyond its histogram too)
//   dsp_within_100us_pct  the 2004 realtime-preempt figure: the clients' DSP loops (each
//                client's DSP hop of the cycle table) within 100 us of their calibrated nominal
//                length, % of every client's cycles
//   dsp_overhead_max_pct  the longest DSP loop's excess over its nominal length, % of nominal
//                (the worst client's)
//   dsp_max_us   the longest DSP loop, usecs; dsp_nominal_us its nominal length (the clients')
//   ping_lost_pct  --ping's echo requests without an answer within its wait, % of those sent
//   bench_job_ms  the mean wall time of a benchmark job (--load bench), ms, over every bench
//                load's jobs (weighted by jobs); bench_job_cpu_ms the same of the workers' CPU
//                time per job
//   glitches     audible glitches at the chain's tail
//   dsp_load     jack_test's Average DSP Load, %
//
// A figure a run does not have (no cycle table, no audio check) is absent, never 0.
// Non-realtime.
#include <optional>
#include <string>
#include <vector>

#include "engine/stats/describe.hpp"
#include "engine/stats/verdict.hpp"

namespace xrunlab {

struct RunMetric {
  std::string name;   // as --fail-if and the campaign tables name it
  std::string label;  // for people: "xrun events per minute"
  std::string unit;   // "us", "/min", "%", "" (a count)
  bool lower_is_better = true;
};

const std::vector<RunMetric>& run_metrics();
const RunMetric* find_run_metric(const std::string& name);

// The figure as the statistics name it in their sentences: its label, unit and direction;
// "fewer"/"more" for counts and rates, "lower"/"higher" for times and loads.
stats::Metric stats_metric(const RunMetric& m);
// A sample of the figure over runs, as the campaign and history tables give it: "31 [28..35]
// 20..40" (median [quartiles] min..max); "-" for no runs.
std::string describe_cell(const stats::Description& d);

struct RunResult;

// The figure `name` of a run, or nullopt when the run does not have it.
std::optional<double> run_metric(const RunResult& run, const std::string& name);

// --fail-if NAME OP VALUE[UNIT]: e.g. "xruns>0", "slack_p1<500us", "delay_max>=2ms".
struct Threshold {
  std::string text;    // as given
  std::string metric;  // a run_metrics() name
  std::string op;      // > >= < <= ==
  double value = 0;    // in the metric's unit
};

// Throws Error(kUsage) naming the text and what is wrong (an unknown metric lists them).
Threshold parse_threshold(const std::string& text);

struct ThresholdCheck {
  Threshold threshold;
  std::optional<double> value;  // the run's (or case's) figure; absent: not measured
  bool crossed = false;         // the condition holds: the run fails
  std::string message;          // "xruns = 3 (> 0)" or "slack_p1 not measured"
};

ThresholdCheck check_threshold(const Threshold& t, std::optional<double> value);

// JUnit XML for CI systems: one <testcase> per name, failing with the crossed thresholds.
struct JunitCase {
  std::string name;
  std::string classname;
  double seconds = 0;
  std::vector<ThresholdCheck> checks;
  std::string error;  // the run did not complete: an <error>
};
std::string junit_xml(const std::string& suite, const std::vector<JunitCase>& cases);

}  // namespace xrunlab
