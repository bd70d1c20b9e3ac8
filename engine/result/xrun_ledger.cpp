// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/xrun_ledger.hpp"

#include <algorithm>
#include <utility>

namespace xrunlab {

namespace {

void add_into(SourceTally& into, const SourceTally& t) {
  into = merge_tallies(into, std::nullopt, t);
}

}  // namespace

void XrunLedger::add_callbacks(std::vector<XrunCallback>&& callbacks, bool cut) {
  if (callbacks_cut_) return;  // a cut list holds only its first reports
  for (const XrunCallback& c : callbacks) {
    if (callbacks_.size() >= kMaxPending) {
      callbacks_cut_ = true;
      return;
    }
    callbacks_.push_back(c);
  }
  callbacks_cut_ = cut;
}

void XrunLedger::add_log_lines(const std::vector<XrunLogLine>& lines, bool cut) {
  if (log_cut_) return;
  for (const XrunLogLine& l : lines) {
    if (log_.size() >= kMaxPending) {
      log_cut_ = true;
      return;
    }
    log_.push_back(l);
  }
  log_cut_ = cut;
}

bool XrunLedger::freeze_audio(const CycleJoiner& joiner, AudioResult& audio,
                              const std::vector<LogXrunEvent>& log_events, double before_s,
                              size_t glitches_limit, double period_ms) {
  if (settled_.audio) return true;
  if (settled_.events > 0 || audio.glitches.size() < glitches_limit) return false;
  const std::vector<XrunRun>& runs = joiner.xrun_runs();
  const std::optional<uint64_t> last_id = joiner.xrun_runs_builder().last_id();
  if (!last_id) return false;
  // The events the glitches judge: up to the last one any of them falls to, each of them
  // placed by the rows read so far.
  size_t judged = 0;
  for (const GlitchResult& g : audio.glitches) {
    const std::optional<uint64_t> cycle = joiner.frames().cycle(g.report.frame);
    if (!cycle) continue;
    if (*cycle > *last_id) return false;
    if (const auto e = event_of_heard_cycle_or_before(runs, *cycle)) {
      judged = std::max(judged, *e + 1);
    }
  }
  // The event after them has begun and its deadline passed: they are complete, and every log
  // event that falls to them has arrived.
  if (judged >= runs.size() || runs[judged].deadline_t_s > before_s) return false;
  SettledXruns::Audio a;
  a.tally = count_glitches(audio, runs, joiner.frames(), log_events, /*cut=*/true, period_ms);
  settled_.audio = std::move(a);
  return true;
}

size_t XrunLedger::settle(CycleJoiner& joiner, double before_s, double period_ms) {
  if (callbacks_cut_ || log_cut_) return 0;
  if (audio_ && !settled_.audio) return 0;
  const std::vector<XrunRun>& runs = joiner.xrun_runs();
  // n: the events whose deadline is at or before `before_s`; k = n - 1 is the latest of them.
  const auto past = std::upper_bound(runs.begin(), runs.end(), before_s,
                                     [](double v, const XrunRun& r) { return v < r.deadline_t_s; });
  const size_t n = static_cast<size_t>(past - runs.begin());
  if (n < 2) return 0;
  const size_t k = n - 1;
  const uint64_t first_k = runs[k].first;
  const double deadline_k = runs[k].deadline_t_s;
  const std::vector<XrunRun> done(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(k));

  // The callbacks that fall before event k (or before every event), and those before the table
  // (never counted): settled. The rest wait.
  CallbackArrivals arrivals;
  std::vector<XrunCallback> keep;
  for (const XrunCallback& c : callbacks_) {
    if (c.t_us > until_us_) continue;
    const std::optional<uint64_t> cycle = joiner.frames().cycle(c.frame);
    if (!cycle) continue;
    if (*cycle + 1 < first_k) {
      arrivals.cycles.push_back(cycle);
      arrivals.t_s.push_back(t_s_of(c.t_us));
    } else {
      keep.push_back(c);
    }
  }
  std::vector<XrunLogLine> lines, keep_lines;
  std::vector<double> line_t_s;
  for (XrunLogLine& l : log_) {
    if (l.t_s < deadline_k) {
      line_t_s.push_back(l.t_s);
      lines.push_back(std::move(l));
    } else {
      keep_lines.push_back(std::move(l));
    }
  }

  add_into(settled_.monitor, tally_arrival_cycles(done, arrivals.cycles, false, period_ms));
  add_into(settled_.log, tally_arrival_times(done, line_t_s, false, period_ms));
  merge_attribution(settled_causes_, attribute_xruns(done, arrivals, lines, period_ms,
                                                     joiner.xrun_runs_builder().first_id()));
  if (settled_.audio) {  // events the glitch list did not judge: named in case it was not cut
    SettledXruns::Audio& a = *settled_.audio;
    for (size_t i = 0; i < done.size(); ++i) {
      if (a.tally.missed.size() + a.missed_after.size() >= SourceTally::kMissedNamed) break;
      if (settled_.events + i >= a.tally.events_judged) a.missed_after.push_back(done[i]);
    }
  }
  settled_.events += k;
  for (const XrunRun& r : done) settled_.cycles += r.cycles();
  settled_.last_t_s = done.back().t_s;
  callbacks_ = std::move(keep);
  log_ = std::move(keep_lines);
  joiner.forget_xrun_events(k);
  return k;
}

XrunReports XrunLedger::pending(const CycleJoiner& joiner, bool horizon) const {
  XrunReports out;
  const std::optional<uint64_t> last_id = joiner.xrun_runs_builder().last_id();
  const std::optional<double> last_t = joiner.xrun_runs_builder().last_t_s();
  const std::vector<XrunRun>& runs = joiner.xrun_runs();
  const double period_ms = static_cast<double>(joiner.period_ns()) / 1e6;
  const uint64_t lag = report_lag_cycles(period_ms);
  for (const XrunCallback& c : callbacks_) {
    if (c.t_us > until_us_) continue;
    const std::optional<uint64_t> cycle = joiner.frames().cycle(c.frame);
    if (horizon && cycle && (!last_id || *cycle > *last_id)) continue;
    // After the window's last row: a report of an event of the window, or of a cycle after
    // the window (not the window's: no event outside the chain).
    if (!horizon && cycle && last_id && *cycle > *last_id + 1 &&
        !event_of_arrival_cycle(runs, *cycle, lag)) {
      continue;
    }
    out.monitor.cycles.push_back(cycle);
    out.monitor.t_s.push_back(t_s_of(c.t_us));
  }
  out.monitor_cut = callbacks_cut_;
  for (const XrunLogLine& l : log_) {
    if (horizon && (!last_t || l.t_s > *last_t)) continue;
    if (!horizon && last_t && l.t_s > *last_t + 2 * period_ms / 1e3 &&
        !event_of_arrival_time(runs, l.t_s, period_ms)) {
      continue;
    }
    out.log.push_back(l);
  }
  out.log_cut = log_cut_;
  out.first_cycle = joiner.xrun_runs_builder().first_id();
  return out;
}

}  // namespace xrunlab
