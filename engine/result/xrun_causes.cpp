// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/xrun_causes.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace xrunlab {

XrunCause cause_of(const std::vector<const XrunLogLine*>& lines) {
  if (lines.empty()) return {"unnamed", ""};
  for (const XrunLogLine* l : lines) {
    if (l->driver) return {"driver", ""};
  }
  for (const XrunLogLine* l : lines) {
    if (l->late_itself) return {"client", l->client};
  }
  return {"not_started", ""};
}

void XrunAttribution::count(const XrunCause& c, bool chain) {
  auto it =
      std::find_if(causes.begin(), causes.end(), [&](const CauseCount& n) { return n.cause == c; });
  if (it == causes.end()) {
    causes.push_back({c, 0, 0, false});
    it = causes.end() - 1;
  }
  ++(chain ? it->chain : it->outside);
}

void merge_attribution(XrunAttribution& into, const XrunAttribution& more) {
  into.outside_events += more.outside_events;
  for (const OutsideXrun& o : more.outside) {
    if (into.outside.size() >= XrunAttribution::kOutsideKept) break;
    into.outside.push_back(o);
  }
  for (const CauseCount& c : more.causes) {
    auto it = std::find_if(into.causes.begin(), into.causes.end(),
                           [&](const CauseCount& n) { return n.cause == c.cause; });
    if (it == into.causes.end()) {
      into.causes.push_back(c);
    } else {
      it->chain += c.chain;
      it->outside += c.outside;
    }
  }
}

namespace {

struct OutsideGroup {
  OutsideXrun event;
  uint64_t last_cycle = 0;
  std::vector<const XrunLogLine*> lines;
};

// The unmatched callbacks, grouped by arrival cycle.
std::vector<OutsideGroup> group_callbacks(const std::vector<XrunRun>& runs,
                                          const CallbackArrivals& callbacks, uint64_t lag) {
  std::vector<std::pair<uint64_t, double>> loose;  // (cycle, t_s)
  for (size_t i = 0; i < callbacks.cycles.size(); ++i) {
    const std::optional<uint64_t>& a = callbacks.cycles[i];
    if (!a || event_of_arrival_cycle(runs, *a, lag)) continue;
    loose.emplace_back(*a, i < callbacks.t_s.size() ? callbacks.t_s[i] : 0.0);
  }
  std::sort(loose.begin(), loose.end());
  std::vector<OutsideGroup> groups;
  for (const auto& [cycle, t] : loose) {
    if (groups.empty() || cycle > groups.back().last_cycle + kOutsideGapCycles) {
      OutsideGroup g;
      g.event.t_s = t;
      g.event.cycle = cycle;
      groups.push_back(g);
    }
    OutsideGroup& g = groups.back();
    g.last_cycle = cycle;
    g.event.t_s = std::min(g.event.t_s, t);
    ++g.event.callbacks;
  }
  return groups;
}

// Each unmatched line joins the callback group nearest in time within `bound_s`; the others form
// groups of their own (lines less than kOutsideGapCycles periods apart are one).
void add_loose_lines(std::vector<OutsideGroup>& groups,
                     const std::vector<const XrunLogLine*>& loose, double bound_s,
                     double period_s) {
  std::stable_sort(groups.begin(), groups.end(), [](const OutsideGroup& x, const OutsideGroup& y) {
    return x.event.t_s < y.event.t_s;
  });
  const auto callback_groups = static_cast<std::ptrdiff_t>(groups.size());
  std::vector<const XrunLogLine*> alone;
  for (const XrunLogLine* l : loose) {
    const auto begin = groups.begin();
    const auto end = groups.begin() + callback_groups;
    const auto next = std::lower_bound(
        begin, end, l->t_s, [](const OutsideGroup& g, double t) { return g.event.t_s < t; });
    OutsideGroup* best = nullptr;
    double best_d = bound_s;
    for (auto it : {next, next == begin ? end : next - 1}) {
      if (it == end) continue;
      const double d = std::fabs(it->event.t_s - l->t_s);
      if (d <= best_d) {
        best = &*it;
        best_d = d;
      }
    }
    if (best != nullptr) {
      best->lines.push_back(l);
    } else {
      alone.push_back(l);
    }
  }
  std::stable_sort(alone.begin(), alone.end(),
                   [](const XrunLogLine* a, const XrunLogLine* b) { return a->t_s < b->t_s; });
  double last_t = 0;
  bool open = false;
  for (const XrunLogLine* l : alone) {
    if (!open || l->t_s - last_t > static_cast<double>(kOutsideGapCycles) * period_s) {
      OutsideGroup g;
      g.event.t_s = l->t_s;
      groups.push_back(g);
      open = true;
    }
    groups.back().lines.push_back(l);
    last_t = l->t_s;
  }
}

}  // namespace

XrunAttribution attribute_xruns(const std::vector<XrunRun>& runs, const CallbackArrivals& callbacks,
                                const std::vector<XrunLogLine>& lines, double period_ms,
                                std::optional<uint64_t> first_cycle) {
  XrunAttribution a;
  const uint64_t lag = report_lag_cycles(period_ms);
  const double period_s = period_ms / 1e3;
  std::vector<std::vector<const XrunLogLine*>> of_event(runs.size());
  std::vector<const XrunLogLine*> loose;
  for (const XrunLogLine& l : lines) {
    if (const auto e = event_of_arrival_time(runs, l.t_s, period_ms)) {
      of_event[*e].push_back(&l);
    } else {
      loose.push_back(&l);
    }
  }
  for (const auto& event_lines : of_event) a.count(cause_of(event_lines), /*chain=*/true);

  std::vector<OutsideGroup> groups = group_callbacks(runs, callbacks, lag);
  add_loose_lines(groups, loose, static_cast<double>(lag) * period_s, period_s);
  std::stable_sort(groups.begin(), groups.end(), [](const OutsideGroup& x, const OutsideGroup& y) {
    return x.event.t_s < y.event.t_s;
  });
  for (OutsideGroup& g : groups) {
    // An xrun of a cycle before the window (see the header comment).
    if (first_cycle &&
        (g.event.cycle ? *g.event.cycle <= *first_cycle : g.event.t_s < 2 * period_s)) {
      continue;
    }
    std::stable_sort(g.lines.begin(), g.lines.end(),
                     [](const XrunLogLine* x, const XrunLogLine* y) { return x->t_s < y->t_s; });
    g.event.lines = g.lines.size();
    g.event.cause = cause_of(g.lines);
    a.count(g.event.cause, /*chain=*/false);
    ++a.outside_events;
    if (a.outside.size() < XrunAttribution::kOutsideKept) a.outside.push_back(g.event);
  }
  return a;
}

}  // namespace xrunlab
