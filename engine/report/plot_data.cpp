// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/plot_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string_view>
#include <utility>

#include "engine/report/cycle_plot.hpp"
#include "engine/report/report_csv.hpp"
#include "engine/report/report_text.hpp"

namespace xrunlab {
namespace {

// A positive finite number, else 0 (unknown).
double known(double v) {
  return std::isfinite(v) && v > 0 ? v : 0;
}

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int i : v) out += (out.empty() ? "" : " ") + std::to_string(i);
  return out;
}

// A length in usecs as a script argument: 3 decimals, "0" for unknown.
std::string usecs(double v) {
  return known(v) > 0 ? fmt::format("{:.3f}", v) : "0";
}

// The cycle table's xrun events from its missed rows, when it kept them all and they make
// exactly the events the result counted: each run of consecutive rows is one event, at its first
// row's time.
bool table_xrun_events(const RunResult& r, PlotContext& c) {
  const CycleTableResult& t = r.cycle_table;
  if (!r.xrun_cycles.present || !t.present || t.missed_rows.size() != t.missed_rows_total) {
    return false;
  }
  std::vector<double> times;
  std::optional<uint64_t> previous;
  for (const CycleRow& row : t.missed_rows) {
    if (!previous || row.id != *previous + 1) times.push_back(row.t_s);
    previous = row.id;
  }
  if (times.size() != r.xrun_cycles.events) return false;
  // The events outside the chain, when their list is whole.
  if (r.xrun_cycles.outside_events > 0) {
    if (!r.xrun_causes || r.xrun_causes->outside.size() != r.xrun_cycles.outside_events) {
      return false;
    }
    for (const OutsideXrun& o : r.xrun_causes->outside) times.push_back(o.t_s);
    std::sort(times.begin(), times.end());
  }
  c.xruns_by_table = true;
  for (const double t_s : times) {
    if (std::isfinite(t_s)) c.xruns_s.push_back(t_s);
  }
  c.xruns_total = r.xrun_cycles.total_events();
  c.outside_events = r.xrun_cycles.outside_events;
  return true;
}

}  // namespace

std::string plot_title(const RunResult& r) {
  return fmt::format("{}: {} clients x {} ports, {} frames @ {} Hz, {}, {}",
                     r.spec ? r.spec->label : "run", r.clients, r.ports, r.frames, r.rate,
                     r.backend.name.empty() ? "dummy" : r.backend.name, run_status_name(r.status));
}

PlotContext plot_context(const RunResult& r) {
  PlotContext c;
  c.policy = r.scheduling;
  if (r.loads) {
    for (const LoadRecord& l : *r.loads) {
      const std::string& spec = l.spec.empty() ? l.kind : l.spec;
      if (spec.empty()) continue;
      c.loads += (c.loads.empty() ? "" : ", ") + spec;
    }
    if (c.loads.empty()) c.loads = "none";
  }
  c.period_us = known(r.period_us);
  c.spare_us = known(r.spare_us);
  c.resolution_us = known(r.delay_resolution_us);
  if (!table_xrun_events(r, c)) {
    for (const XrunEvent& e : r.xruns.events) {
      if (std::isfinite(e.t_s)) c.xruns_s.push_back(e.t_s);
    }
    c.xruns_total = r.xruns.events_total();
    if (r.xrun_cycles.present) c.table_events = r.xrun_cycles.total_events();
  }
  if (r.audio) {
    c.glitches_known = true;
    for (const GlitchResult& g : r.audio->glitches) {
      if (std::isfinite(g.t_s)) c.glitches_s.push_back(g.t_s);
    }
    c.glitches_total = r.audio->glitches_total();
  }
  return c;
}

bool draw_per_second(uint64_t total, size_t kept) {
  return total > kMaxEventMarkers || kept < total;
}

std::vector<EventCount> count_per_second(const std::vector<double>& times_s) {
  std::map<int64_t, uint64_t> by_second;
  for (double t : times_s) {
    if (std::isfinite(t)) ++by_second[static_cast<int64_t>(std::floor(t))];
  }
  std::vector<EventCount> out;
  if (by_second.empty()) return out;
  for (int64_t s = by_second.begin()->first; s <= by_second.rbegin()->first; ++s) {
    const auto it = by_second.find(s);
    out.push_back({static_cast<double>(s), static_cast<double>(s + 1),
                   it == by_second.end() ? 0 : it->second});
  }
  return out;
}

namespace {

uint64_t peak_of(const std::vector<EventCount>& counts) {
  uint64_t peak = 0;
  for (const EventCount& c : counts) peak = std::max(peak, c.count);
  return peak;
}

// The system samples' xrun counts, one stretch per sample: [previous sample, t_s], the first
// from the window start. Samples whose time is not finite or not after the previous one are
// left out (their interval is unknown).
std::vector<EventCount> sampled_xruns(const std::vector<SystemSecond>& system) {
  std::vector<EventCount> out;
  double from = 0;
  for (const SystemSecond& s : system) {
    if (!std::isfinite(s.t_s) || s.t_s <= from) continue;
    out.push_back({from, s.t_s, s.xruns});
    from = s.t_s;
  }
  return out;
}

// "..., until 53.1 s (the first 10000 of 38037: the list ends there)" for counts taken from a
// list (`listed` long, `times` its finite times) that holds only the first events; "" for a
// whole list.
std::string list_end(const std::vector<double>& times, size_t listed, uint64_t total) {
  if (listed >= total || times.empty()) return "";
  return fmt::format(", until {:.1f} s (the first {} of {}: the list ends there)",
                     *std::max_element(times.begin(), times.end()), listed, total);
}

}  // namespace

TimelineEvents timeline_xruns(const RunResult& r) {
  const PlotContext c = plot_context(r);
  TimelineEvents e;
  // The legend says which count it draws: the run's (the cycle table's xrun events), or JACK2's
  // notifications with the run's count beside them.
  const std::string whose =
      c.xruns_by_table ? (c.outside_events == 0
                              ? std::string(": the cycle table's")
                              : fmt::format(": {} in the chain by the cycle table, {} outside it",
                                            c.xruns_total - c.outside_events, c.outside_events))
      : c.table_events ? fmt::format(" at the monitor; the run's count: {}", *c.table_events)
                       : std::string(" at the monitor");
  const std::string what = c.xruns_by_table ? "xrun event" : "JACK2 xrun notification";
  if (c.xruns_total == 0) {
    e.key = c.xruns_by_table ? "no xrun event in the run (the cycle table's)"
                             : "no xrun notification in the run" + whose;
    return e;
  }
  const size_t listed = c.xruns_by_table ? c.xruns_s.size() : r.xruns.events.size();
  if (!draw_per_second(c.xruns_total, listed)) {
    e.draw = TimelineEvents::Draw::kMarkers;
    e.times_s = c.xruns_s;
    e.key = fmt::format("{} ({} in the run{})", what, c.xruns_total, whose);
    return e;
  }
  e.draw = TimelineEvents::Draw::kPerSecond;
  // The table's events are all listed; the monitor's per second come from the system samples.
  e.seconds = c.xruns_by_table ? count_per_second(c.xruns_s) : sampled_xruns(r.system);
  uint64_t sampled = 0;
  for (const EventCount& s : e.seconds) sampled += s.count;
  if (sampled > 0) {
    e.key = sampled == c.xruns_total
                ? fmt::format("{}s per second ({} in the run{})", what, c.xruns_total, whose)
                : fmt::format("{}s per second ({} in the run{}; {} of them in the seconds drawn)",
                              what, c.xruns_total, whose, sampled);
  } else {
    // No sample counted them (a model without system samples): the event list, cut or whole.
    e.seconds = count_per_second(c.xruns_s);
    const std::string until = list_end(c.xruns_s, listed, c.xruns_total);
    e.key = until.empty()
                ? fmt::format("{}s per second ({} in the run{})", what, c.xruns_total, whose)
                : what + "s per second" + until;
  }
  if (e.seconds.empty()) {  // counted, never listed nor sampled
    e.draw = TimelineEvents::Draw::kNothing;
    e.key =
        fmt::format("{}s: {} in the run{}, their times are not known", what, c.xruns_total, whose);
  }
  e.peak = peak_of(e.seconds);
  return e;
}

TimelineEvents timeline_glitches(const RunResult& r) {
  const PlotContext c = plot_context(r);
  TimelineEvents e;
  if (!c.glitches_known) return e;
  if (c.glitches_total == 0) {
    e.key = "no audible glitches";
    return e;
  }
  const size_t listed = r.audio->glitches.size();  // times that are not finite included
  if (!draw_per_second(c.glitches_total, listed)) {
    e.draw = TimelineEvents::Draw::kMarkers;
    e.times_s = c.glitches_s;
    e.key = fmt::format("audible glitch ({} in the run)", c.glitches_total);
    return e;
  }
  e.draw = TimelineEvents::Draw::kPerSecond;
  e.seconds = count_per_second(c.glitches_s);
  if (e.seconds.empty()) {  // counted, never listed
    e.draw = TimelineEvents::Draw::kNothing;
    e.key =
        fmt::format("audible glitches: {} in the run, their times are not known", c.glitches_total);
    return e;
  }
  e.peak = peak_of(e.seconds);
  const std::string until = list_end(c.glitches_s, listed, c.glitches_total);
  e.key = until.empty()
              ? fmt::format("audible glitches per second ({} in the run)", c.glitches_total)
              : "audible glitches per second" + until;
  return e;
}

std::string format_event_counts(const std::vector<EventCount>& counts) {
  std::string out = "from_s,to_s,count\n";
  for (const EventCount& c : counts) {
    out += fmt::format("{:.6f},{:.6f},{}\n", c.from_s, c.to_s, c.count);
  }
  return out;
}

std::string context_title(const PlotContext& c) {
  std::string out;
  if (!c.policy.empty()) out += "policy: " + c.policy;
  if (!c.loads.empty()) out += (out.empty() ? "" : "    ") + ("loads: " + c.loads);
  return out;
}

std::vector<int> pick_clients(std::vector<int> clients) {
  std::sort(clients.begin(), clients.end());
  clients.erase(std::unique(clients.begin(), clients.end()), clients.end());
  if (clients.size() <= 3) return clients;
  return {clients.front(), clients[(clients.size() - 1) / 2], clients.back()};
}

PlotSeries plot_series(const RunResult& r) {
  PlotSeries s;
  std::set<int> clients;
  for (const TimeseriesSecond& t : timeseries_seconds(r)) {
    for (const auto& [index, row] : t.clients) clients.insert(index);
    if (t.all.delay_max_us) ++s.delay_points;
    if (t.system != nullptr) ++s.system_points;
  }
  s.clients.assign(clients.begin(), clients.end());
  return s;
}

DelaySpread delay_spread(const std::map<int64_t, uint64_t>& counts) {
  DelaySpread s;
  for (const auto& [value, n] : counts) s.count += n;
  if (s.count == 0) return s;
  s.min = counts.begin()->first;
  s.max = counts.rbegin()->first;
  // At least 99% of the cycles: ceil(0.99 * count) without floating point.
  const uint64_t needed = (s.count * 99 + 99) / 100;
  uint64_t seen = 0;
  for (const auto& [value, n] : counts) {
    seen += n;
    if (seen >= needed) {
      s.p99 = value;
      break;
    }
  }
  return s;
}

std::string format_xrun_times(const std::vector<double>& times_s) {
  std::string out = "t_s\n";
  for (double t : times_s) out += fmt::format("{:.6f}\n", t);
  return out;
}

int64_t histogram_max_gap_us(double resolution_us) {
  if (!std::isfinite(resolution_us) || resolution_us <= 0) return 1;
  return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(std::min(resolution_us, 1e6) * 1.5)));
}

std::string format_histogram_blocks(const std::vector<std::map<int64_t, uint64_t>>& histograms,
                                    int64_t max_gap_us) {
  std::string out;
  for (size_t i = 0; i < histograms.size(); ++i) {
    if (i > 0) out += "\n\n";
    if (histograms[i].empty()) {
      out += "NaN NaN\n";
      continue;
    }
    bool first = true;
    int64_t previous = 0;
    for (const auto& [value, count] : histograms[i]) {
      if (!first && value - previous > max_gap_us) out += "\n";
      out += fmt::format("{} {}\n", value, count);
      first = false;
      previous = value;
    }
  }
  return out;
}

namespace {

// One latency series from a histogram: what is drawn and its legend entry, "<what>: <count>
// <unit>, max <max> µs" and what is not drawn.
LatencySeries latency_series(std::string style, const std::string& what, const char* unit,
                             const Histogram& h, bool slack = false) {
  LatencySeries s;
  s.style = std::move(style);
  for (const auto& [value, count] : h.nonzero()) {
    if (value >= 0) s.counts[value] += count;  // below 0: counted in the key, not drawn
  }
  s.count = h.count();
  s.max = h.max();
  s.below_zero = h.underflow_count();
  s.above_bound = h.overflow_dropped();
  if (s.count == 0) {
    s.key = what + ": no values";
    return s;
  }
  s.key = fmt::format("{}: {} {}, max {}", what, s.count, unit,
                      s.max ? fmt::format("{} µs", *s.max) : std::string("not known"));
  if (s.below_zero > 0) {
    s.key += slack ? fmt::format(", {} {} below 0 (deadline missed, not drawn)", s.below_zero, unit)
                   : fmt::format(", {} below 0 µs (not drawn)", s.below_zero);
  }
  if (s.above_bound > 0) {
    s.key +=
        fmt::format(", {} over {} µs (values not kept, not drawn)", s.above_bound, h.bound_us());
  }
  return s;
}

// The hops of one kind merged into one histogram; nullopt when the table has none of that kind.
std::optional<Histogram> merged_hops(const std::vector<const HopSeries*>& hops) {
  if (hops.empty()) return std::nullopt;
  Histogram h = hops.front()->us;
  for (size_t i = 1; i < hops.size(); ++i) h.merge(hops[i]->us);
  return h;
}

// A client hop's name: its label, else "c01 <what>".
std::string hop_name(const HopSeries& h, const char* what) {
  return h.label.empty() ? fmt::format("c{:02d} {}", h.client, what) : h.label;
}

void add_hop_series(LatencyPlot& p, const CycleTableResult& t) {
  auto of_kind = [&](std::string_view kind) {
    std::vector<const HopSeries*> out;
    for (const HopSeries& h : t.hops) {
      if (h.kind == kind) out.push_back(&h);
    }
    return out;
  };
  // Per-cycle hops (one value per cycle) in one line each.
  auto single = [&](const char* kind, const std::string& what, bool slack = false) {
    if (const auto h = merged_hops(of_kind(kind))) {
      p.series.push_back(latency_series(kind, what, "cycles", *h, slack));
    }
  };
  // Per-client hops: all clients merged (one value per client and cycle), and with more than
  // one client the worst one alone.
  auto per_client = [&](const char* kind, const char* what, const char* hop_what) {
    const std::vector<const HopSeries*> hops = of_kind(kind);
    const auto h = merged_hops(hops);
    if (!h) return;
    if (hops.size() == 1) {
      p.series.push_back(latency_series(kind, hop_name(*hops.front(), hop_what), "cycles", *h));
      return;
    }
    p.series.push_back(latency_series(
        kind, fmt::format("{}, all {} clients together", what, hops.size()), "callbacks", *h));
    if (std::string_view(kind) != "client_wakeup") return;
    const HopSeries* worst = nullptr;
    for (const HopSeries* s : hops) {
      if (s->us.max() &&
          (worst == nullptr || !worst->us.max() || *s->us.max() > *worst->us.max())) {
        worst = s;
      }
    }
    if (worst != nullptr) {
      p.series.push_back(latency_series(std::string(kind) + "_worst",
                                        hop_name(*worst, hop_what) + " (the worst client)",
                                        "cycles", worst->us));
    }
  };
  single("jackd_wakeup", "interrupt -> jackd wake-up");
  per_client("client_wakeup", "client wake-up", "wake-up");
  per_client("dsp", "DSP time", "DSP");
  // The cycle's origin as its hop names it: the interrupt (a card), else the server's wake-up.
  std::string cycle_what = "cycle time (interrupt -> last client's exit)";
  if (const std::vector<const HopSeries*> c = of_kind("cycle"); !c.empty()) {
    const size_t k = c.front()->label.find(" (cycle time)");
    if (k != std::string::npos) cycle_what = "cycle time (" + c.front()->label.substr(0, k) + ")";
  }
  single("cycle", cycle_what);
  single("slack", "slack (last client's exit -> deadline)", true);
}

}  // namespace

LatencyPlot latency_plot(const RunResult& r) {
  LatencyPlot p;
  if (r.cycle_table.present && !r.cycle_table.hops.empty()) {
    p.hops = true;
    p.what = "Latency of each hop of the cycle, from the interrupt (1 µs bins, log count)";
    p.xlabel = "latency";
    add_hop_series(p, r.cycle_table);
    return p;
  }
  p.what =
      "Callback delay against the interrupt (includes upstream DSP time; 1 µs bins, log count)";
  p.xlabel = "callback delay against the interrupt";
  const std::vector<int> picked = pick_clients(plot_series(r).clients);
  if (r.client_results.size() > 1) {
    Histogram all;
    for (const ClientResult& c : r.client_results) all.merge(c.delay);
    p.series.push_back(
        latency_series("delay_all", fmt::format("all {} clients together", r.client_results.size()),
                       "callbacks", all));
  }
  for (size_t i = 0; i < picked.size(); ++i) {
    const ClientResult* client = nullptr;
    for (const ClientResult& c : r.client_results) {
      if (c.index == picked[i]) client = &c;
    }
    p.series.push_back(latency_series(fmt::format("delay_{}", i + 1),
                                      fmt::format("client {}", picked[i]), "cycles",
                                      client != nullptr ? client->delay : Histogram()));
  }
  return p;
}

bool latency_axis_needs_log(const LatencyPlot& p, double period_us) {
  std::map<int64_t, uint64_t> all;
  for (const LatencySeries& s : p.series) {
    for (const auto& [value, count] : s.counts) all[value] += count;
  }
  const DelaySpread spread = delay_spread(all);
  if (spread.count == 0) return false;
  const double body = std::max({static_cast<double>(spread.p99), known(period_us), 10.0});
  return static_cast<double>(spread.max) > 10 * body;
}

std::string explain_note(const ExplainedCycle& cycle) {
  if (cycle.hops.empty()) return "";
  const HopExplanation& h = cycle.hops[0];
  const std::string& hop = h.hop.hop_key;
  std::string note = hop;
  if (hop == "jackd_wakeup") {
    note = "jackd's wake-up";
  } else if (hop.rfind("wakeup.", 0) == 0) {
    note = hop.substr(7) + "'s wake-up";
  } else if (hop.rfind("dsp.", 0) == 0) {
    note = hop.substr(4) + "'s DSP";
  }
  note += ": ";
  if (!h.traced) return note + "no trace";
  const int64_t window = h.hop.rel_end_ns - h.hop.rel_start_ns;
  if (2 * h.asleep_ns >= window && window > 0) return note + "woken late";
  if (!h.blockers.empty() && 2 * h.blockers[0].ns >= window) {
    const TaskTime& b = h.blockers[0];
    return note +
           fmt::format("{} pid {} {:.0f} us", b.comm, b.pid, static_cast<double>(b.ns) / 1000.0);
  }
  if (2 * h.self_ns >= window && window > 0) {
    return note +
           fmt::format("itself on its CPU {:.0f} us", static_cast<double>(h.self_ns) / 1000.0);
  }
  return note + "nothing competed";
}

PlotInputs plot_inputs(const RunResult& r, const std::string& dir, PlotFormat format) {
  namespace fs = std::filesystem;
  auto in_dir = [&](const std::string& name) { return (fs::path(dir) / name).string(); };
  const PlotContext context = plot_context(r);
  const PlotSeries series = plot_series(r);
  const std::vector<int> picked = pick_clients(series.clients);
  const TimelineEvents xruns = timeline_xruns(r);
  const TimelineEvents glitches = timeline_glitches(r);
  const LatencyPlot latency = latency_plot(r);
  std::vector<std::map<int64_t, uint64_t>> histograms;
  std::string styles, keys;
  size_t latency_points = 0;
  for (const LatencySeries& s : latency.series) {
    histograms.push_back(s.counts);
    latency_points += s.counts.size();
    styles += (styles.empty() ? "" : " ") + s.style;
    keys += (keys.empty() ? "" : "\t") + s.key;
  }
  std::string title = plot_title(r);
  if (const std::string more = context_title(context); !more.empty()) title += "\n" + more;
  const std::string period = usecs(context.period_us);
  auto events_file = [](const TimelineEvents& e) {
    return e.draw == TimelineEvents::Draw::kPerSecond ? format_event_counts(e.seconds)
                                                      : format_xrun_times(e.times_s);
  };
  auto draw = [](const TimelineEvents& e) { return static_cast<int>(e.draw); };
  // The latency plot's time steps: the cycle table's (1 ns: 1 usec bins), else the delays'.
  const double resolution =
      latency.hops ? known(r.cycle_table.resolution_us) : context.resolution_us;

  // --explain: each explained row's latest hop in a few words (its largest blocker).
  std::map<uint64_t, std::string> notes;
  if (r.explain) {
    for (const ExplainedCycle& c : r.explain->cycles) {
      const std::string note = explain_note(c);
      if (!note.empty()) notes[c.cycle] = note;
    }
  }
  const CyclePlotData cycles = cycle_plot_data(r.cycle_table, 12, 8, notes);

  PlotInputs in;
  in.data = {
      {"timeseries.csv", format_timeseries_csv(r)},
      {"xruns.dat", events_file(xruns)},
      {"glitches.dat", events_file(glitches)},
      {"latency.dat", format_histogram_blocks(histograms, histogram_max_gap_us(resolution))},
      {"cycles.dat", cycles.text},
  };
  in.scripts = {"timeline", "latency", "cycles"};
  in.args = {
      {in_dir("timeseries.csv"), in_dir("xruns.dat"), in_dir(plot_file("timeline", format)), title,
       period, join(picked),
       fmt::format("{} {} {} {} {} {}", series.clients.size(), series.delay_points,
                   series.system_points, draw(xruns), draw(glitches),
                   std::max(xruns.peak, glitches.peak)),
       in_dir("glitches.dat"), xruns.key + "\t" + glitches.key},
      {in_dir("latency.dat"), in_dir(plot_file("latency", format)), title + "\n" + latency.what,
       period,
       fmt::format("{} {} {}", latency_points,
                   latency_axis_needs_log(latency, context.period_us) ? 1 : 0, usecs(resolution)),
       styles, keys, latency.xlabel},
      {in_dir("cycles.dat"), in_dir(plot_file("cycles", format)),
       title + fmt::format("\nthe {} worst cycles by slack, then cycles that missed (of {} "
                           "missed in the run); hops in chain order",
                           std::min<size_t>(r.cycle_table.worst.size(), 12),
                           r.cycle_table.missed_rows_total),
       period, std::to_string(cycles.rows)},
  };
  return in;
}

}  // namespace xrunlab
