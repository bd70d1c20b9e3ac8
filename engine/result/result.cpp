// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/result.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace xrunlab {

MetricSummary summarize(const Histogram& h) {
  MetricSummary m;
  m.count = h.count();
  m.min_us = h.min();
  m.max_us = h.max();
  m.mean_us = h.mean();
  m.p50 = h.percentile(50.0);
  m.p99 = h.percentile(99.0);
  m.p999 = h.percentile(99.9);
  return m;
}

namespace {

void add_counts(Histogram& h, const telemetry::ValueCounts& counts) {
  for (const auto& [value, n] : counts) h.add(value, n);
}

}  // namespace

void add_to(SystemSums& sums, const SystemSecond& s) {
  ++sums.n;
  sums.user_pct += s.user_pct;
  sums.nice_pct += s.nice_pct;
  sums.system_pct += s.system_pct;
  sums.iowait_pct += s.iowait_pct;
  sums.irq_pct += s.irq_pct;
  sums.softirq_pct += s.softirq_pct;
  sums.intr_per_s += s.intr_per_s;
  sums.ctxt_per_s += s.ctxt_per_s;
  if (s.dsp_load_pct) {
    sums.dsp_load_pct += *s.dsp_load_pct;
    ++sums.dsp_n;
  }
  if (s.cpu_accounted_pct && *s.cpu_accounted_pct < 90.0) {
    ++sums.short_accounted;
    sums.least_accounted = std::min(sums.least_accounted, *s.cpu_accounted_pct);
  }
}

void add_second(ClientResult& c, const telemetry::Second& s, size_t worst_keep) {
  add_counts(c.delay, s.delay);
  add_counts(c.delay_dll, s.delay_dll);
  add_counts(c.signal, s.signal);
  c.unreferenced += s.unreferenced;
  add_counts(c.duration, s.duration);
  add_counts(c.cycle, s.cycle);
  c.cycles += s.cycles;
  c.over_spare += s.over_spare;
  c.over_1000 += s.over_1000;
  c.late += s.late;
  c.injected += s.injected;

  ClientSecond row;
  row.second = s.second;
  row.cycles = s.cycles;
  // Values counted 0 times (a decoder may pass them on) are no values: a second of only those
  // has no minimum, maximum or mean (not a mean of 0/0).
  long double sum = 0;
  uint64_t n = 0;
  for (const auto& [v, k] : s.delay) {
    if (k == 0) continue;
    if (n == 0) row.delay_min_us = v;
    row.delay_max_us = v;
    sum += static_cast<long double>(v) * k;
    n += k;
  }
  if (n > 0) row.delay_mean_us = static_cast<double>(sum / n);
  auto max_counted = [](const telemetry::ValueCounts& counts) -> std::optional<int64_t> {
    for (auto it = counts.rbegin(); it != counts.rend(); ++it) {
      if (it->second > 0) return it->first;
    }
    return std::nullopt;
  };
  row.duration_max_us = max_counted(s.duration);
  row.cycle_max_us = max_counted(s.cycle);
  row.over_spare = s.over_spare;
  row.over_1000 = s.over_1000;
  row.late = s.late;
  c.seconds.push_back(row);

  auto worse = [](const telemetry::WorstCycle& a, const telemetry::WorstCycle& b) {
    return a.delay_us != b.delay_us ? a.delay_us > b.delay_us : a.cycle_us > b.cycle_us;
  };
  c.worst.insert(c.worst.end(), s.worst.begin(), s.worst.end());
  std::stable_sort(c.worst.begin(), c.worst.end(), worse);
  if (c.worst.size() > worst_keep) c.worst.resize(worst_keep);
}

namespace {

// The latest finite time of a cut list plus the match window (-infinity when it lists none);
// infinity for a whole list.
template <typename T>
double judged_until(const std::vector<T>& listed, bool cut) {
  if (!cut) return std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();
  for (const T& e : listed) {
    if (std::isfinite(e.t_s)) last = std::max(last, e.t_s);
  }
  return last + AudioResult::kMatchWindowMs / 1000.0;
}

// A time that a scope's limit leaves out. An infinite limit leaves out nothing (a whole list is
// judged whatever its times).
bool beyond(double t_s, double until_s) {
  if (until_s == std::numeric_limits<double>::infinity()) return false;
  return !(t_s <= until_s);
}

}  // namespace

GlitchMatchScope glitch_match_scope(const std::vector<XrunEvent>& xruns, bool xruns_cut,
                                    const AudioResult& a) {
  GlitchMatchScope s;
  s.glitches_until_s = judged_until(xruns, xruns_cut);
  s.xruns_until_s = judged_until(a.glitches, a.glitches_cut());
  for (const GlitchResult& g : a.glitches) s.glitches += beyond(g.t_s, s.glitches_until_s) ? 0 : 1;
  for (const XrunEvent& x : xruns) s.xruns += beyond(x.t_s, s.xruns_until_s) ? 0 : 1;
  return s;
}

void count_audible_events(AudioResult& a) {
  a.events = 0;
  const uint64_t gap = 2ull * std::max<uint32_t>(a.period_frames, 1);
  for (size_t i = 0; i < a.glitches.size(); ++i) {
    if (i == 0 || a.glitches[i].report.at_frame >
                      a.glitches[i - 1].report.at_frame + a.glitches[i - 1].report.length + gap) {
      ++a.events;
    }
  }
}

void match_glitches(const std::vector<XrunEvent>& xruns, AudioResult& a,
                    const std::vector<LogXrunEvent>& log_events, bool xruns_cut) {
  const GlitchMatchScope scope = glitch_match_scope(xruns, xruns_cut, a);
  a.glitches_without_xrun = 0;
  std::vector<bool> heard(xruns.size(), false);
  for (GlitchResult& g : a.glitches) {
    g.xrun_t_s.reset();
    g.xrun_distance_ms.reset();
    g.matched = false;
    const bool judged = !beyond(g.t_s, scope.glitches_until_s);
    size_t best = xruns.size();
    for (size_t i = 0; i < xruns.size(); ++i) {
      if (best == xruns.size() ||
          std::abs(xruns[i].t_s - g.t_s) < std::abs(xruns[best].t_s - g.t_s)) {
        best = i;
      }
    }
    if (judged && best < xruns.size()) {
      g.xrun_t_s = xruns[best].t_s;
      g.xrun_distance_ms = (g.t_s - xruns[best].t_s) * 1000.0;
      g.matched = std::abs(*g.xrun_distance_ms) <= AudioResult::kMatchWindowMs;
      if (g.matched) heard[best] = true;
    }
    if (judged && !g.matched) ++a.glitches_without_xrun;
    g.late_clients.clear();
    g.driver_xrun = false;
    const LogXrunEvent* near = nullptr;
    for (const LogXrunEvent& e : log_events) {
      if (std::abs(e.t_s - g.t_s) * 1000.0 <= AudioResult::kMatchWindowMs &&
          (near == nullptr || std::abs(e.t_s - g.t_s) < std::abs(near->t_s - g.t_s))) {
        near = &e;
      }
    }
    if (near != nullptr) {
      g.late_clients = near->late_clients;
      g.driver_xrun = near->driver;
    }
  }
  a.xruns_without_glitch = 0;
  for (size_t i = 0; i < xruns.size(); ++i) {
    if (!heard[i] && !beyond(xruns[i].t_s, scope.xruns_until_s)) ++a.xruns_without_glitch;
  }
  count_audible_events(a);
}

namespace {

// A client of the run: one of its clients, or a helper of the same run (the clients' JACK names
// share the run's prefix, "xrunlab-PID-N-").
bool is_run_client(const RunResult& r, const std::string& name) {
  for (const ClientResult& c : r.client_results) {
    if (c.name == name) return true;
    const size_t dash = c.name.rfind('-');
    if (dash != std::string::npos && dash > 0 &&
        name.compare(0, dash + 1, c.name, 0, dash + 1) == 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

void count_against_cycles(RunResult& r, const std::vector<XrunRun>& runs,
                          const FrameCycleMap& frames, const XrunReports& reports,
                          const SettledXruns* settled, const XrunAttribution* settled_causes) {
  XrunCycles& x = r.xrun_cycles;
  x = XrunCycles{};
  r.xrun_causes.reset();
  if (!r.cycle_table.present) return;
  x.present = true;
  for (const XrunRun& run : runs) x.cycles += run.cycles();
  x.events = runs.size();
  if (settled != nullptr) {
    x.cycles += settled->cycles;
    x.events += settled->events;
  }

  const double period_ms = r.period_us / 1e3;
  XrunAttribution causes = settled_causes != nullptr ? *settled_causes : XrunAttribution{};
  merge_attribution(
      causes, attribute_xruns(runs, reports.monitor, reports.log, period_ms, reports.first_cycle));
  for (CauseCount& c : causes.causes) {
    c.run_client = c.cause.kind == "client" && is_run_client(r, c.cause.client);
  }
  x.outside_events = causes.outside_events;
  r.xrun_causes = std::move(causes);

  SourceTally m =
      tally_arrival_cycles(runs, reports.monitor.cycles, reports.monitor_cut, period_ms);
  if (settled != nullptr) m = merge_tallies(settled->monitor, settled->last_t_s, m);
  m.key = "monitor";
  // PipeWire's JACK: its own callbacks (at most one per cycle) and no xrun log at all.
  const bool pipewire = r.backend.is_pipewire();
  m.label = pipewire ? "monitor (PipeWire-JACK xrun callbacks)" : "monitor (JACK2 xrun callbacks)";
  m.unit = "callbacks";
  m.rule = fmt::format(
      "its frame time at arrival is a cycle of the table; it reports the latest "
      "event that began at most one cycle after it (JACK2 reports a driver xrun in "
      "the frame time of the last cycle it processed) and ended at most {} cycles "
      "before it; a later callback is an xrun outside the chain",
      report_lag_cycles(period_ms));
  x.sources.push_back(std::move(m));

  if (!pipewire) {
    std::vector<double> line_t_s;
    line_t_s.reserve(reports.log.size());
    for (const XrunLogLine& line : reports.log) line_t_s.push_back(line.t_s);
    SourceTally l = tally_arrival_times(runs, line_t_s, reports.log_cut, period_ms);
    if (settled != nullptr) l = merge_tallies(settled->log, settled->last_t_s, l);
    l.key = "jackd_log";
    l.label = "jackd's log (xrun lines)";
    l.unit = "lines";
    l.rule = fmt::format(
        "a line has only its arrival time; it reports the latest event whose deadline had "
        "passed, when it came at most {} periods after its last cycle's deadline; a later line "
        "is an xrun outside the chain",
        report_lag_cycles(period_ms));
    x.sources.push_back(std::move(l));
  }

  // A file the check could not work on heard nothing because it listened to nothing: it is no
  // source of xrun reports.
  if (!r.audio || !r.audio->totals.not_checked.empty()) return;
  AudioResult& a = *r.audio;
  SourceTally t;
  if (settled != nullptr && settled->audio) {
    t = settled->audio->tally;
    if (!a.glitches_cut()) {
      // The list was exactly full: every event was its to judge, and none after the last
      // glitch's was heard.
      const uint64_t after = x.events - t.events_judged;
      t.events_judged += after;
      t.events_missed += after;
      t.until_s.reset();
      for (const XrunRun& e : settled->audio->missed_after) {
        if (t.missed.size() >= SourceTally::kMissedNamed) break;
        t.missed.push_back(e);
      }
      for (size_t i = 0; i < runs.size(); ++i) {
        if (t.missed.size() >= SourceTally::kMissedNamed) break;
        if (settled->events + i >= settled->audio->tally.events_judged) t.missed.push_back(runs[i]);
      }
    }
  } else {
    t = count_glitches(a, runs, frames, r.xruns.log_events, a.glitches_cut(), period_ms);
  }
  t.key = "audio";
  t.label = "audible chain (glitches at the tail)";
  t.unit = "glitches";
  t.rule = fmt::format(
      "the frame time of the tail's cycle that heard it is a cycle of the table; an event "
      "explains it when that cycle is in the event or one of the {} after it",
      XrunCycles::kHeardWithinCycles);
  a.matched_by = "cycle";
  a.glitches_without_xrun = t.reports_unmatched;
  a.xruns_without_glitch = t.events_missed;
  count_audible_events(a);
  x.sources.push_back(std::move(t));
}

SourceTally count_glitches(AudioResult& a, const std::vector<XrunRun>& runs,
                           const FrameCycleMap& frames, const std::vector<LogXrunEvent>& log_events,
                           bool cut, double period_ms) {
  std::vector<std::optional<uint64_t>> heard;
  for (const GlitchResult& g : a.glitches) heard.push_back(frames.cycle(g.report.frame));
  std::vector<std::optional<size_t>> event_of;
  SourceTally t = tally_heard_cycles(runs, heard, cut, &event_of);
  // Who was late, by jackd's log: the first logged event that falls to the same xrun event.
  std::vector<const LogXrunEvent*> logged(runs.size(), nullptr);
  for (const LogXrunEvent& e : log_events) {
    if (const auto i = event_of_arrival_time(runs, e.t_s, period_ms); i && logged[*i] == nullptr) {
      logged[*i] = &e;
    }
  }
  a.matched_by = "cycle";
  for (size_t i = 0; i < a.glitches.size(); ++i) {
    GlitchResult& g = a.glitches[i];
    g.cycle = heard[i];
    g.xrun_cycle.reset();
    g.xrun_t_s.reset();
    g.xrun_distance_ms.reset();
    g.late_clients.clear();
    g.driver_xrun = false;
    g.matched = event_of[i].has_value();
    if (!g.matched) continue;
    const XrunRun& run = runs[*event_of[i]];
    g.xrun_cycle = run.first;
    g.xrun_t_s = run.t_s;
    g.xrun_distance_ms = (g.t_s - run.t_s) * 1000.0;
    if (const LogXrunEvent* e = logged[*event_of[i]]) {
      g.late_clients = e->late_clients;
      g.driver_xrun = e->driver;
    }
  }
  return t;
}

void finalize(RunResult& r) {
  Histogram delay, delay_dll, duration, cycle;
  r.delay_over_spare = r.delay_over_1000 = r.injected = 0;
  for (ClientResult& c : r.client_results) {
    c.summary = {summarize(c.delay), summarize(c.delay_dll), summarize(c.signal),
                 summarize(c.duration), summarize(c.cycle)};
    delay.merge(c.delay);
    delay_dll.merge(c.delay_dll);
    duration.merge(c.duration);
    cycle.merge(c.cycle);
    r.delay_over_spare += c.over_spare;
    r.delay_over_1000 += c.over_1000;
    r.injected += c.injected;
  }
  r.delay = summarize(delay);
  r.delay_dll = summarize(delay_dll);
  r.duration = summarize(duration);
  r.cycle = summarize(cycle);

  // With the cycle table, count_against_cycles tied the glitches to their cycles already.
  if (r.audio && r.audio->matched_by != "cycle" && r.audio->totals.not_checked.empty()) {
    match_glitches(r.xruns.events, *r.audio, r.xruns.log_events, r.xruns.events_cut());
  }
  if (r.jack_test.definitions == "jack1-rules") {
    // jack_test's definitions (docs/jack_test-fields.md): Timeout Count = jackd's lines saying
    // "timed out"; XRUN Count = the driver's xruns only (the card's own record where there is
    // one, else jackd's log); the Delay Counts by JACK1's rules from jackd's wake-ups. JACK2's
    // client-late xruns are not jack_test's XRUN Count: the own block shows them, labelled.
    r.timeout_count = r.xruns.log_timed_out_lines;
    r.xrun_count = r.xruns.card_xruns.value_or(r.xruns.log_driver_xruns);
    // PipeWire writes no xrun log: its JACK's xrun callback is its driver's xrun count (a cycle
    // the graph did not finish in time), so the monitor's events are XRUN Count there.
    if (r.backend.is_pipewire()) {
      r.xrun_count = r.xruns.monitor_events;
    }
    r.delay_over_spare = r.jack_test.delay_over_spare;
    r.delay_over_1000 = r.jack_test.delay_over_1000;
  } else {
    // Older runs (definitions "callback-delay"): what xrunlab counted before; kept so a
    // re-rendered old run.json says what it said.
    r.timeout_count = r.xruns.late_clients.size();
    // Client-late xruns reach the monitor. The ALSA driver's xruns do too; the dummy driver's
    // only appear in jackd's log.
    r.xrun_count =
        r.xruns.monitor_events + (r.driver_xruns_reach_monitor ? 0 : r.xruns.log_driver_xruns);
  }

  SystemSums sums = r.system_flushed;
  for (const SystemSecond& s : r.system) add_to(sums, s);
  r.avg_user = r.avg_nice = r.avg_system = r.avg_iowait = r.avg_irq = r.avg_softirq = 0;
  r.avg_intr = r.avg_ctxt = 0;
  r.avg_dsp_load.reset();
  if (sums.n > 0) {
    const double n = static_cast<double>(sums.n);
    r.avg_user = sums.user_pct / n;
    r.avg_nice = sums.nice_pct / n;
    r.avg_system = sums.system_pct / n;
    r.avg_iowait = sums.iowait_pct / n;
    r.avg_irq = sums.irq_pct / n;
    r.avg_softirq = sums.softirq_pct / n;
    r.avg_intr = sums.intr_per_s / n;
    r.avg_ctxt = sums.ctxt_per_s / n;
  }
  if (sums.dsp_n > 0) r.avg_dsp_load = sums.dsp_load_pct / static_cast<double>(sums.dsp_n);
  const uint64_t short_seconds = sums.short_accounted;
  const double least = sums.least_accounted;
  const std::string prefix = "CPU accounting: ";
  r.warnings.erase(std::remove_if(r.warnings.begin(), r.warnings.end(),
                                  [&](const std::string& w) { return w.rfind(prefix, 0) == 0; }),
                   r.warnings.end());
  if (short_seconds > 0) {
    r.warnings.push_back(
        prefix + "in " + std::to_string(short_seconds) + " of " + std::to_string(sums.n) +
        " seconds /proc/stat accounted less than 90% of the elapsed CPU time (down to " +
        std::to_string(static_cast<int>(least)) +
        "%); the Average CPU lines are unreliable on this system (tick-based accounting)");
  }
}

}  // namespace xrunlab
