// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/history/history_row.hpp"

#include <fmt/format.h>

#include "engine/base/text.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/report/run_record.hpp"
#include "engine/result/result.hpp"
#include "engine/result/run_identity.hpp"

namespace xrunlab {

const std::array<HistoryFigure, kHistoryFigureCount>& history_figures() {
  static const std::array<HistoryFigure, kHistoryFigureCount> figures = {{
      {"xrun_count", "xrun_count", "XRUN Count", "", true,
       "jack_test's XRUN Count: the xruns JACK's driver reported"},
      {"xruns", "xruns", "xrun events by cycle", "", true,
       "runs of consecutive cycles that missed their deadline, ran out of chain order or had a "
       "client that did not run (the cycle table's), plus those outside the chain; without a "
       "table, the monitor's JACK2 xrun events"},
      {"xrun_rate", "xrun_rate", "xrun events per minute", "/min", true,
       "xrun events by cycle per minute of the measured window"},
      {"delay_max_us", "delay_max", "Delay Maximum", "us", true,
       "jack_test's Delay Maximum: JACK1's rules applied to jackd's wake-ups, usecs"},
      {"cycle_max_us", "cycle_max", "Cycle Maximum", "us", true,
       "jack_test's Cycle Maximum: JACK1's sampled maximum of wake-up to the chain's end, usecs"},
      {"dsp_load_pct", "dsp_load", "Average DSP Load", "%", true,
       "jack_test's Average DSP Load, JACK1's rolling cpu_load averaged over the run, %"},
      {"slack_p1_us", "slack_p1", "slack p1", "us", false,
       "the slack (deadline minus the chain's end) 1 % of complete cycles were at or below, "
       "usecs"},
      {"wakeup_p99_us", "wakeup_p99", "jackd wake-up p99", "us", true,
       "interrupt to jackd's wake-up, 99th percentile, usecs (the card's record)"},
      {"client_wakeup_p99_us", "client_wakeup_p99", "client wake-up p99", "us", true,
       "a client's wake-up after its upstream finished, 99th percentile over every client's "
       "cycles, usecs"},
      {"baseline_p99_us", "baseline_p99", "baseline p99", "us", true,
       "cyclictest beside the run (--baseline cyclictest), 99th percentile, usecs"},
      {"glitches", "glitches", "glitches", "", true,
       "audible glitches the chain's tail found in the audio (--audio-check)"},
  }};
  return figures;
}

const HistoryFigure* find_history_figure(const std::string& name) {
  for (const HistoryFigure& f : history_figures()) {
    if (name == f.metric || name == f.column) return &f;
  }
  return nullptr;
}

size_t history_figure_index(const HistoryFigure& f) {
  return static_cast<size_t>(&f - history_figures().data());
}

namespace {

std::optional<int64_t> whole(const std::optional<double>& v) {
  if (!v) return std::nullopt;
  return static_cast<int64_t>(*v);
}

// What both kinds of source share: the record's where, what and jack_test's fields.
void fill_from_record(HistoryRow& row, const RunRecord& rec) {
  row.started_utc = rec.started_utc;
  row.status = rec.status;
  row.label = rec.label;
  row.host = rec.host;
  row.kernel = rec.kernel;
  row.kernel_measured = rec.kernel;
  row.backend = rec.backend;
  row.policy = rec.policy;
  row.loads = rec.loads;
  row.period = whole(rec.frames);
  row.clients = whole(rec.clients);
  row.ports = whole(rec.ports);
  row.seconds = rec.seconds;
  row.definitions = rec.definitions;
  row.imported = rec.imported;
}

}  // namespace

HistoryRow history_row_of(const RunResult& run, const std::string& folder) {
  HistoryRow row;
  row.run_id = run_identity(run);
  row.source = folder;
  fill_from_record(row, record_of(run));
  if (run.host) {
    row.kernel_version = run.host->kernel.version;
    row.preempt = run.host->kernel.preempt;
    row.cmdline = run.host->kernel.cmdline;
    row.jack_version = run.host->jackd_version;
  }
  row.xrunlab_version = run.xrunlab_version;
  if (run.rate > 0) row.rate = run.rate;
  for (const HistoryFigure& f : history_figures()) {
    row.figures[history_figure_index(f)] = run_metric(run, f.metric);
  }
  return row;
}

HistoryRow history_row_of(const RunRecord& record, size_t index) {
  HistoryRow row;
  fill_from_record(row, record);
  row.source = record.source;
  row.run_id = fmt::format("import-{:016x}", fnv1a_64(record.source + '\n' + record.label + '\n' +
                                                      std::to_string(index)));
  // Only jack_test's fields: an old summary has none of xrunlab's own.
  auto set = [&](const char* metric, const std::optional<double>& v) {
    row.figures[history_figure_index(*find_history_figure(metric))] = v;
  };
  set("xrun_count", record.xrun_count);
  if (!record.maxima_are_means) {  // a consolidated block's maxima are means: not these figures
    set("delay_max", record.delay_max_us);
    set("cycle_max", record.cycle_max_us);
  }
  set("dsp_load", record.dsp_load_pct);
  return row;
}

std::string history_setting_key(const HistoryRow& r) {
  return fmt::format("{}\n{}\n{}\n{}\n{}\n{}\n{}\n{}", r.host, r.backend, r.policy,
                     r.period.value_or(0), r.rate.value_or(0), r.clients.value_or(0),
                     r.ports.value_or(0), r.loads);
}

std::string history_setting_text(const HistoryRow& r) {
  std::string s = r.policy.empty() ? std::string("policy not recorded") : r.policy;
  if (!r.backend.empty()) s += ", " + r.backend;
  if (r.period) s += fmt::format(", {} frames", *r.period);
  if (r.rate) s += fmt::format(" at {} Hz", *r.rate);
  if (r.clients) {
    s += fmt::format(", {} clients", *r.clients);
    if (r.ports) s += fmt::format(" x {} ports", *r.ports);
  }
  s += r.loads.empty() ? std::string(", no load") : ", load " + r.loads;
  if (!r.host.empty()) s += ", on " + r.host;
  return s;
}

}  // namespace xrunlab
