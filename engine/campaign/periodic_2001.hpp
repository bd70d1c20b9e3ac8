// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The campaign section "periodic-2001" (the periodic-2001 preset asks for it): the 2001
// scheduler-latency test. A periodic SCHED_FIFO task woke every millisecond with absolute
// clock_nanosleep and kept its worst delay, on an idle machine and beside N CPU hogs (the
// run-queue length); a timed non-realtime benchmark, run with and without it, gave its cost.
//
// Here the periodic task is the run's cyclictest baseline (--baseline cyclictest: absolute
// clock_nanosleep, SCHED_FIFO at the clients' priority, one wake-up per JACK period, which the
// preset makes 1 ms: 64 frames at 64 kHz), its latency the wake-up's delay after the deadline.
// Per hog count (a case whose loads are only `cpu:N`, or none: N = 0), over the case's runs:
// cyclictest's p50/p99/max (medians, the max's worst too), the p99's and max's excess over the
// unloaded case (the scheduler's share, in 2001's terms), and beside them on the same axis the
// audio graph's figures: interrupt -> jackd wake-up p99, jack_test's Delay Maximum, the slack's
// 1st percentile. The benchmark: the cases with a `bench` load, one with the periodic task and
// one without (no --baseline); its mean job time (run metric bench_job_ms) in each, the slowdown
// (median with / median without - 1) and the campaign's verdict on the difference, which says
// when the runs cannot resolve it. Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_report.hpp"
#include "engine/report/plot_format.hpp"
#include "engine/stats/describe.hpp"
#include "engine/stats/verdict.hpp"

namespace xrunlab {

struct Periodic2001Row {
  std::string case_label;
  int hogs = 0;  // the cpu:N hogs beside the task (the run-queue length the 2001 test set)
  size_t runs = 0;
  std::vector<double> p50, p99, max;  // cyclictest's, per run with the figure
  stats::Description p50_d, p99_d, max_d;
  std::optional<double> p99_over_unloaded, max_over_unloaded;  // medians, minus 0 hogs' medians
  std::optional<double> wakeup_p99, delay_max, slack_p1;       // medians over the runs
  std::vector<double> wakeup_p99_runs, delay_max_runs;
};

struct Periodic2001Bench {
  std::string alone_label, with_label;  // the bench cases without and with the periodic task
  std::vector<double> alone_ms, with_ms;
  std::optional<double> alone_median_ms, with_median_ms;
  std::optional<double> slowdown_pct;  // median with / median alone - 1, in %
  stats::Verdict verdict;              // with vs alone, by bench_job_ms
};

struct Periodic2001 {
  std::vector<Periodic2001Row> rows;  // by hog count
  std::optional<Periodic2001Bench> bench;
};

// The hog count of a case's `xrunlab run` arguments: 0 without --load, N for loads that are all
// cpu:N (summed; plain `cpu` is 1), nullopt for any other load.
std::optional<int> hogs_of(const std::vector<std::string>& run_args);

Periodic2001 periodic_2001(const CampaignReport& r);

// The section's text; "" without a row or benchmark.
std::string format_periodic_2001(const Periodic2001& p);

nlohmann::json periodic_2001_json(const Periodic2001& p);

// latency-vs-runqueue.png (.svg) in `dir` from latency-vs-runqueue.csv: every run's cyclictest
// p50, p99 and max against the hog count (the medians joined), and beside them the audio
// graph's jackd wake-up p99 and Delay Maximum. Returns "" or why there is no picture.
std::string draw_periodic_2001_plot(const Periodic2001& p, const std::string& campaign,
                                    const std::string& script_dir, const std::string& dir,
                                    PlotFormat format);

}  // namespace xrunlab
