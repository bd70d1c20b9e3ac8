// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/xrun_cycles.hpp"

#include <algorithm>
#include <cmath>

namespace xrunlab {

void FrameCycleMap::add(uint64_t id, uint32_t frame) {
  if (anchors_.empty()) {
    anchors_.push_back({id, static_cast<int64_t>(frame), id});
    last_id_ = id;
    last_frame_ = frame;
    return;
  }
  if (id <= last_id_) return;  // rows come in id order; a repeat changes nothing
  const int64_t f = unwrap(frame, last_frame_);
  const int64_t predicted = last_frame_ + static_cast<int64_t>(id - last_id_) * period_;
  if (f != predicted) {
    anchors_.push_back({id, f, id});
  } else {
    anchors_.back().last_id = id;
  }
  last_id_ = id;
  last_frame_ = f;
}

std::optional<uint64_t> FrameCycleMap::cycle(uint32_t frame) const {
  if (anchors_.empty()) return std::nullopt;
  // Unwrapped near the middle of the rows seen, so that frames up to 2^31 away either side map.
  const int64_t f = unwrap(frame, (anchors_.front().frame + last_frame_) / 2);
  auto it = std::upper_bound(anchors_.begin(), anchors_.end(), f,
                             [](int64_t v, const Anchor& a) { return v < a.frame; });
  if (it == anchors_.begin()) return std::nullopt;
  const Anchor& a = *(it - 1);
  const uint64_t id = a.id + static_cast<uint64_t>((f - a.frame) / period_);
  // Past the stretch's last row and before the next stretch: JACK's counter stands still over
  // the cycles it does not process (a stall), so this frame is of the cycle it processed just
  // before the next stretch's first row.
  if (id > a.last_id && it != anchors_.end()) return it->id - 1;
  return id;
}

void FrameCycleMap::drop_before(uint64_t id) {
  // The last stretch that begins at or before `id` maps it (and the gap after it): kept.
  auto it = std::upper_bound(anchors_.begin(), anchors_.end(), id,
                             [](uint64_t v, const Anchor& a) { return v < a.id; });
  if (it == anchors_.begin()) return;
  anchors_.erase(anchors_.begin(), it - 1);
}

void XrunRunBuilder::drop_front(size_t n) {
  runs_.erase(runs_.begin(),
              runs_.begin() + static_cast<std::ptrdiff_t>(std::min(n, runs_.size())));
}

void XrunRunBuilder::add(uint64_t id, bool xrun, std::optional<double> t_s, double period_s) {
  double t = 0;
  bool estimated = false;
  if (t_s) {
    t = *t_s;
    last_time_ = std::make_pair(id, t);
  } else if (last_time_) {
    t = last_time_->second + static_cast<double>(id - last_time_->first) * period_s;
    estimated = true;
  } else {
    estimated = true;
  }
  if (xrun) {
    ++cycles_;
    if (!runs_.empty() && last_id_ && *last_id_ + 1 == id && runs_.back().last + 1 == id) {
      runs_.back().last = id;
    } else {
      runs_.push_back({id, id, t, t + period_s, estimated});
    }
  }
  last_id_ = id;
  if (!first_id_) first_id_ = id;
}

namespace {

// The last run whose key is at or below `v` (`key` is increasing over the runs).
template <typename Key>
std::optional<size_t> last_at_or_below(const std::vector<XrunRun>& runs, Key key, double v) {
  auto it = std::upper_bound(runs.begin(), runs.end(), v,
                             [&](double x, const XrunRun& r) { return x < key(r); });
  if (it == runs.begin()) return std::nullopt;
  return static_cast<size_t>(it - runs.begin()) - 1;
}

// Counts the events reported and names the missed ones, among the first `judged` events.
void settle(SourceTally& t, const std::vector<XrunRun>& runs, const std::vector<bool>& reported,
            size_t judged) {
  t.events_judged = judged;
  for (size_t i = 0; i < judged; ++i) {
    if (reported[i]) {
      ++t.events_reported;
      continue;
    }
    ++t.events_missed;
    if (t.missed.size() < SourceTally::kMissedNamed) t.missed.push_back(runs[i]);
  }
}

// A cut list judges the events up to the one its last report fell to.
size_t judged_events(const std::vector<XrunRun>& runs, bool cut, std::optional<size_t> last_event,
                     SourceTally& t) {
  if (!cut) return runs.size();
  const size_t n = last_event ? *last_event + 1 : 0;
  t.until_s = n > 0 ? runs[n - 1].t_s : 0.0;
  return n;
}

}  // namespace

uint64_t report_lag_cycles(double period_ms) {
  if (!(period_ms > 0)) return kReportLagCycles;
  const auto by_time = static_cast<uint64_t>(std::ceil(kReportLagMs / period_ms));
  return std::max(kReportLagCycles, by_time);
}

std::optional<size_t> event_of_arrival_cycle(const std::vector<XrunRun>& runs, uint64_t cycle,
                                             uint64_t lag_cycles) {
  auto it = std::upper_bound(runs.begin(), runs.end(), cycle + 1,
                             [](uint64_t x, const XrunRun& r) { return x < r.first; });
  if (it == runs.begin()) return std::nullopt;
  const size_t i = static_cast<size_t>(it - runs.begin()) - 1;
  if (cycle > runs[i].last + lag_cycles) return std::nullopt;
  return i;
}

std::optional<size_t> event_of_heard_cycle_or_before(const std::vector<XrunRun>& runs,
                                                     uint64_t cycle) {
  auto it = std::upper_bound(runs.begin(), runs.end(), cycle,
                             [](uint64_t x, const XrunRun& r) { return x < r.first; });
  if (it == runs.begin()) return std::nullopt;
  return static_cast<size_t>(it - runs.begin()) - 1;
}

std::optional<size_t> event_of_arrival_time(const std::vector<XrunRun>& runs, double t_s,
                                            double period_ms) {
  const std::optional<size_t> i = last_at_or_below(
      runs, [](const XrunRun& r) { return r.deadline_t_s; }, t_s);
  if (!i) return std::nullopt;
  // The deadline of its last cycle, and the bound after it.
  const double period_s = period_ms / 1e3;
  const XrunRun& r = runs[*i];
  const double last_deadline = r.deadline_t_s + static_cast<double>(r.cycles() - 1) * period_s;
  if (t_s > last_deadline + static_cast<double>(report_lag_cycles(period_ms)) * period_s) {
    return std::nullopt;
  }
  return i;
}

std::optional<size_t> event_of_heard_cycle(const std::vector<XrunRun>& runs, uint64_t cycle) {
  auto it = std::upper_bound(runs.begin(), runs.end(), cycle,
                             [](uint64_t x, const XrunRun& r) { return x < r.first; });
  if (it == runs.begin()) return std::nullopt;
  const size_t i = static_cast<size_t>(it - runs.begin()) - 1;
  if (cycle > runs[i].last + XrunCycles::kHeardWithinCycles) return std::nullopt;
  return i;
}

SourceTally merge_tallies(const SourceTally& settled, std::optional<double> settled_last_t_s,
                          const SourceTally& rest) {
  SourceTally t = rest;
  t.reports += settled.reports;
  t.reports_unmatched += settled.reports_unmatched;
  t.events_judged += settled.events_judged;
  t.events_reported += settled.events_reported;
  t.events_missed += settled.events_missed;
  t.missed = settled.missed;
  for (const XrunRun& m : rest.missed) {
    if (t.missed.size() >= SourceTally::kMissedNamed) break;
    t.missed.push_back(m);
  }
  const auto larger = [](auto& into, const auto& other) {
    if (other && (!into || *other > *into)) into = other;
  };
  larger(t.lag_max_cycles, settled.lag_max_cycles);
  larger(t.lag_max_ms, settled.lag_max_ms);
  // A cut list whose reports after the settled events fell to none still judged those.
  if (rest.until_s && rest.events_judged == 0 && settled_last_t_s) t.until_s = settled_last_t_s;
  return t;
}

SourceTally tally_arrival_cycles(const std::vector<XrunRun>& runs,
                                 const std::vector<std::optional<uint64_t>>& arrivals, bool cut,
                                 double period_ms) {
  SourceTally t;
  std::vector<bool> reported(runs.size(), false);
  std::optional<size_t> last_event;
  for (const std::optional<uint64_t>& a : arrivals) {
    if (!a) continue;  // before the table: not in the window
    ++t.reports;
    const std::optional<size_t> e = event_of_arrival_cycle(runs, *a, report_lag_cycles(period_ms));
    if (!e) {
      ++t.reports_unmatched;
      continue;
    }
    reported[*e] = true;
    last_event = std::max(last_event.value_or(0), *e);
    const uint64_t deadline = runs[*e].first + 1;
    const uint64_t lag = *a > deadline ? *a - deadline : 0;
    if (!t.lag_max_cycles || lag > *t.lag_max_cycles) t.lag_max_cycles = lag;
  }
  if (t.lag_max_cycles) t.lag_max_ms = static_cast<double>(*t.lag_max_cycles) * period_ms;
  settle(t, runs, reported, judged_events(runs, cut, last_event, t));
  return t;
}

SourceTally tally_arrival_times(const std::vector<XrunRun>& runs, const std::vector<double>& t_s,
                                bool cut, double period_ms) {
  SourceTally t;
  std::vector<bool> reported(runs.size(), false);
  std::optional<size_t> last_event;
  for (const double at : t_s) {
    ++t.reports;
    const std::optional<size_t> e = event_of_arrival_time(runs, at, period_ms);
    if (!e) {
      ++t.reports_unmatched;
      continue;
    }
    reported[*e] = true;
    last_event = std::max(last_event.value_or(0), *e);
    const double lag = (at - runs[*e].deadline_t_s) * 1000.0;
    if (!t.lag_max_ms || lag > *t.lag_max_ms) t.lag_max_ms = lag;
  }
  settle(t, runs, reported, judged_events(runs, cut, last_event, t));
  return t;
}

SourceTally tally_heard_cycles(const std::vector<XrunRun>& runs,
                               const std::vector<std::optional<uint64_t>>& heard, bool cut,
                               std::vector<std::optional<size_t>>* events_of) {
  SourceTally t;
  std::vector<bool> reported(runs.size(), false);
  std::optional<size_t> last_event;
  if (events_of != nullptr) events_of->assign(heard.size(), std::nullopt);
  for (size_t i = 0; i < heard.size(); ++i) {
    ++t.reports;
    if (!heard[i]) {  // not a cycle of the table: nothing explains it
      ++t.reports_unmatched;
      continue;
    }
    // A cut list still judges up to its last glitch, explained or not.
    if (const auto before = event_of_heard_cycle_or_before(runs, *heard[i])) {
      last_event = std::max(last_event.value_or(0), *before);
    }
    const std::optional<size_t> e = event_of_heard_cycle(runs, *heard[i]);
    if (!e) {
      ++t.reports_unmatched;
      continue;
    }
    reported[*e] = true;
    if (events_of != nullptr) (*events_of)[i] = e;
  }
  settle(t, runs, reported, judged_events(runs, cut, last_event, t));
  return t;
}

}  // namespace xrunlab
