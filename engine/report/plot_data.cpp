#include "engine/report/plot_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

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

}  // namespace

std::string plot_title(const RunResult& r) {
  return fmt::format("{}: {} clients x {} ports, {} frames @ {} Hz, {}, {}",
                     json_text(r.spec, "label", "run"), r.clients, r.ports, r.frames, r.rate,
                     json_text(r.backend, "name", "dummy"), r.status);
}

PlotContext plot_context(const RunResult& r) {
  PlotContext c;
  c.policy = r.scheduling;
  if (r.loads.is_array()) {
    for (const nlohmann::json& l : r.loads) {
      std::string spec = json_text(l, "spec");
      if (spec.empty()) spec = json_text(l, "kind");
      if (spec.empty()) continue;
      c.loads += (c.loads.empty() ? "" : ", ") + spec;
    }
    if (c.loads.empty()) c.loads = "none";
  }
  c.period_us = known(r.period_us);
  c.spare_us = known(r.spare_us);
  c.resolution_us = known(r.delay_resolution_us);
  for (const XrunEvent& e : r.xruns.events) {
    if (std::isfinite(e.t_s)) c.xruns_s.push_back(e.t_s);
  }
  c.xruns_total = r.xruns.events_total();
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
  if (c.xruns_total == 0) {
    e.key = "no xruns in the run";
    return e;
  }
  const size_t listed = r.xruns.events.size();  // times that are not finite included
  if (!draw_per_second(c.xruns_total, listed)) {
    e.draw = TimelineEvents::Draw::kMarkers;
    e.times_s = c.xruns_s;
    e.key = fmt::format("xrun ({} in the run)", c.xruns_total);
    return e;
  }
  e.draw = TimelineEvents::Draw::kPerSecond;
  e.seconds = sampled_xruns(r.system);
  uint64_t sampled = 0;
  for (const EventCount& s : e.seconds) sampled += s.count;
  if (sampled > 0) {
    e.key = sampled == c.xruns_total
                ? fmt::format("xruns per second ({} in the run)", c.xruns_total)
                : fmt::format(
                      "xruns per second ({} in the run; {} of them in the "
                      "seconds drawn)",
                      c.xruns_total, sampled);
  } else {
    // No sample counted them (a model without system samples): the event list, cut or whole.
    e.seconds = count_per_second(c.xruns_s);
    const std::string until = list_end(c.xruns_s, listed, c.xruns_total);
    e.key = until.empty() ? fmt::format("xruns per second ({} in the run)", c.xruns_total)
                          : "xruns per second" + until;
  }
  if (e.seconds.empty()) {  // counted, never listed nor sampled
    e.draw = TimelineEvents::Draw::kNothing;
    e.key = fmt::format("xruns: {} in the run, their times are not known", c.xruns_total);
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
  for (const ClientResult& c : r.client_results) {
    for (const auto& [value, count] : c.delay.nonzero()) {
      ++s.histogram_points;
      s.delay_counts[value] += count;
      s.delay_by_client[c.index][value] += count;
    }
  }
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

bool delay_axis_needs_log(const DelaySpread& s) {
  if (s.count == 0) return false;
  return s.max > 10 * std::max<int64_t>(s.p99, 10);
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

PlotInputs plot_inputs(const RunResult& r, const std::string& dir) {
  namespace fs = std::filesystem;
  auto in_dir = [&](const char* name) { return (fs::path(dir) / name).string(); };
  const PlotContext context = plot_context(r);
  const PlotSeries series = plot_series(r);
  const std::vector<int> picked = pick_clients(series.clients);
  const TimelineEvents xruns = timeline_xruns(r);
  const TimelineEvents glitches = timeline_glitches(r);
  // Block 0: all clients together; then one block per drawn client (histogram.gp's index).
  std::vector<std::map<int64_t, uint64_t>> histograms = {series.delay_counts};
  for (int c : picked) {
    const auto it = series.delay_by_client.find(c);
    histograms.push_back(it == series.delay_by_client.end() ? std::map<int64_t, uint64_t>{}
                                                            : it->second);
  }
  std::string title = plot_title(r);
  if (const std::string more = context_title(context); !more.empty()) title += "\n" + more;
  const std::string picked_text = join(picked);
  const std::string period = usecs(context.period_us);
  auto events_file = [](const TimelineEvents& e) {
    return e.draw == TimelineEvents::Draw::kPerSecond ? format_event_counts(e.seconds)
                                                      : format_xrun_times(e.times_s);
  };
  auto draw = [](const TimelineEvents& e) { return static_cast<int>(e.draw); };

  PlotInputs in;
  in.data = {
      {"timeseries.csv", format_timeseries_csv(r)},
      {"xruns.dat", events_file(xruns)},
      {"glitches.dat", events_file(glitches)},
      {"histogram.dat",
       format_histogram_blocks(histograms, histogram_max_gap_us(context.resolution_us))},
  };
  in.scripts = {"timeline", "histogram"};
  in.args = {
      {in_dir("timeseries.csv"), in_dir("xruns.dat"), in_dir("timeline.png"), title, period,
       picked_text,
       fmt::format("{} {} {} {} {} {}", series.clients.size(), series.delay_points,
                   series.system_points, draw(xruns), draw(glitches),
                   std::max(xruns.peak, glitches.peak)),
       in_dir("glitches.dat"), xruns.key + "\t" + glitches.key},
      {in_dir("histogram.dat"), in_dir("histogram.png"), title, period, usecs(context.spare_us),
       picked_text, std::to_string(series.clients.size()), std::to_string(series.histogram_points),
       fmt::format("{} {}", delay_axis_needs_log(delay_spread(series.delay_counts)) ? 1 : 0,
                   usecs(context.resolution_us))},
  };
  return in;
}

}  // namespace xrunlab
