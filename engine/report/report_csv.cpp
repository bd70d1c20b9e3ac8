// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/report_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

constexpr std::string_view kTimeseriesHeader =
    "second,client,cycles,delay_min_us,delay_mean_us,delay_max_us,duration_max_us,cycle_max_us,"
    "over_spare,over_1000,late,user_pct,nice_pct,system_pct,iowait_pct,irq_pct,softirq_pct,"
    "intr_per_s,ctxt_per_s,dsp_load_pct,xruns\n";
constexpr std::string_view kNoSystem = ",,,,,,,,,,";  // the ten system cells, empty
constexpr std::string_view kHistogramHeader = "client,metric,value_us,count";
// histogram.csv's metrics, in the order each client's rows come.
constexpr std::array<std::string_view, 4> kMetrics = {"delay", "delay_dll", "duration", "cycle"};
constexpr std::string_view kUnderflow = "_underflow";
constexpr std::string_view kOverflowDropped = "_overflow_dropped";

std::string real(double v) {
  return fmt::format("{:.3f}", v);
}
std::string cell(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "";
}
std::string cell(const std::optional<double>& v) {
  return v ? real(*v) : "";
}

std::optional<int64_t> max_of(const std::optional<int64_t>& a, const std::optional<int64_t>& b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

std::string client_columns(const ClientSecond& s) {
  return fmt::format("{},{},{},{},{},{},{},{},{}", s.cycles, cell(s.delay_min_us),
                     cell(s.delay_mean_us), cell(s.delay_max_us), cell(s.duration_max_us),
                     cell(s.cycle_max_us), s.over_spare, s.over_1000, s.late);
}

// The "all" row of one second, from the clients' rows of that second.
ClientSecond aggregate(const std::vector<std::pair<int, const ClientSecond*>>& rows) {
  ClientSecond all;
  double weighted = 0;
  uint64_t weight = 0;
  for (const auto& [index, s] : rows) {
    all.second = s->second;
    all.cycles += s->cycles;
    if (s->delay_min_us) {
      all.delay_min_us =
          all.delay_min_us ? std::min(*all.delay_min_us, *s->delay_min_us) : *s->delay_min_us;
    }
    all.delay_max_us = max_of(all.delay_max_us, s->delay_max_us);
    all.duration_max_us = max_of(all.duration_max_us, s->duration_max_us);
    all.cycle_max_us = max_of(all.cycle_max_us, s->cycle_max_us);
    if (s->delay_mean_us && s->cycles > 0) {
      weighted += *s->delay_mean_us * static_cast<double>(s->cycles);
      weight += s->cycles;
    }
    all.over_spare += s->over_spare;
    all.over_1000 += s->over_1000;
    all.late += s->late;
  }
  if (weight > 0) all.delay_mean_us = weighted / static_cast<double>(weight);
  return all;
}

std::string system_columns(const SystemSecond& s) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{}", real(s.user_pct), real(s.nice_pct),
                     real(s.system_pct), real(s.iowait_pct), real(s.irq_pct), real(s.softirq_pct),
                     real(s.intr_per_s), real(s.ctxt_per_s), cell(s.dsp_load_pct), s.xruns);
}

void histogram_rows(std::string& out, int client, std::string_view metric, const Histogram& h) {
  for (const auto& [value, count] : h.nonzero()) {
    out += fmt::format("{},{},{},{}\n", client, metric, value, count);
  }
  if (h.underflow_count() > 0) {
    out += fmt::format("{},{}_underflow,,{}\n", client, metric, h.underflow_count());
  }
  if (h.overflow_dropped() > 0) {
    out += fmt::format("{},{}_overflow_dropped,,{}\n", client, metric, h.overflow_dropped());
  }
}

}  // namespace

std::optional<int64_t> system_second_of(double t_s) {
  if (!std::isfinite(t_s) || t_s < 0.5) return std::nullopt;
  return static_cast<int64_t>(std::floor(t_s - 0.5));
}

std::vector<TimeseriesSecond> timeseries_seconds(const RunResult& r) {
  // second -> (client index, row), in client order; std::map keeps the seconds ascending.
  std::map<int64_t, TimeseriesSecond> by_second;
  for (const ClientResult& c : r.client_results) {
    for (const ClientSecond& s : c.seconds) by_second[s.second].clients.emplace_back(c.index, &s);
  }
  for (const SystemSecond& s : r.system) {
    if (const auto second = system_second_of(s.t_s)) {
      TimeseriesSecond& t = by_second[*second];  // an "all" row even without client rows
      if (t.system == nullptr) t.system = &s;
    }
  }
  std::vector<TimeseriesSecond> out;
  out.reserve(by_second.size());
  for (auto& [second, t] : by_second) {
    t.second = second;
    std::stable_sort(t.clients.begin(), t.clients.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    t.all = aggregate(t.clients);
    out.push_back(std::move(t));
  }
  return out;
}

std::string format_timeseries_csv(const RunResult& r) {
  std::string out(kTimeseriesHeader);
  for (const TimeseriesSecond& t : timeseries_seconds(r)) {
    for (const auto& [index, s] : t.clients) {
      out += fmt::format("{},{},{}{}\n", t.second, index, client_columns(*s), kNoSystem);
    }
    out += fmt::format(
        "{},all,{},{}\n", t.second, client_columns(t.all),
        t.system != nullptr ? system_columns(*t.system) : std::string(kNoSystem.substr(1)));
  }
  return out;
}

std::string format_histogram_csv(const RunResult& r) {
  std::string out = std::string(kHistogramHeader) + "\n";
  for (const ClientResult& c : r.client_results) {
    histogram_rows(out, c.index, kMetrics[0], c.delay);
    histogram_rows(out, c.index, kMetrics[1], c.delay_dll);
    histogram_rows(out, c.index, kMetrics[2], c.duration);
    histogram_rows(out, c.index, kMetrics[3], c.cycle);
  }
  return out;
}

namespace {

template <typename Int>
bool parse_integer(std::string_view s, Int& out) {
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return !s.empty() && ec == std::errc() && ptr == end;
}

// One metric of one client as histogram.csv has it.
struct MetricRows {
  std::vector<std::pair<int64_t, uint64_t>> values;
  uint64_t underflow = 0, overflow_dropped = 0;
  // Rows with a value > Histogram::kDefaultBoundUs: histogram.csv lists each kept overflow
  // value in a row of its own, so the histogram keeps that many. Rows, not their counts: one row
  // counting 400 million of one value had made it keep 400 million copies (found by fuzzing).
  uint64_t above_bound = 0;

  Histogram histogram() const {
    // Room for every value above the bound, so each one is kept as histogram.csv lists it.
    Histogram h(Histogram::kDefaultBoundUs,
                std::max<size_t>(Histogram::kDefaultOverflowKeep, above_bound));
    for (const auto& [value, count] : values) h.add(value, count);
    h.add_unknown(underflow, overflow_dropped);
    return h;
  }
};

}  // namespace

std::optional<std::map<int, ClientHistograms>> parse_histogram_csv(std::string_view text,
                                                                   std::string* why) {
  auto fail = [&](size_t line, const std::string& what) {
    if (why != nullptr) *why = fmt::format("line {}: {}", line, what);
    return std::nullopt;
  };
  const std::vector<std::string_view> rows = lines(text);
  if (rows.empty() || rows.front() != kHistogramHeader) {
    return fail(1, fmt::format("the header is not '{}'", kHistogramHeader));
  }
  std::map<int, std::array<MetricRows, kMetrics.size()>> parsed;
  for (size_t i = 1; i < rows.size(); ++i) {
    const size_t line = i + 1;
    if (rows[i].empty()) continue;
    const std::vector<std::string_view> cells = split(rows[i], ',');
    if (cells.size() != 4) return fail(line, fmt::format("{} cells, not 4", cells.size()));
    int client = 0;
    uint64_t count = 0;
    if (!parse_integer(cells[0], client)) return fail(line, "the client is not an integer");
    if (!parse_integer(cells[3], count)) return fail(line, "the count is not an integer");
    std::string_view metric = cells[1];
    enum class Kind { kValue, kUnderflow, kOverflowDropped } kind = Kind::kValue;
    if (ends_with(metric, kUnderflow)) {
      kind = Kind::kUnderflow;
      metric.remove_suffix(kUnderflow.size());
    } else if (ends_with(metric, kOverflowDropped)) {
      kind = Kind::kOverflowDropped;
      metric.remove_suffix(kOverflowDropped.size());
    }
    const auto m = std::find(kMetrics.begin(), kMetrics.end(), metric);
    if (m == kMetrics.end()) return fail(line, fmt::format("unknown metric '{}'", cells[1]));
    MetricRows& to = parsed[client][static_cast<size_t>(m - kMetrics.begin())];
    if (kind != Kind::kValue) {
      if (!cells[2].empty()) return fail(line, fmt::format("{} has a value", cells[1]));
      (kind == Kind::kUnderflow ? to.underflow : to.overflow_dropped) += count;
      continue;
    }
    int64_t value = 0;
    if (!parse_integer(cells[2], value)) return fail(line, "the value is not an integer");
    to.values.emplace_back(value, count);
    if (value > static_cast<int64_t>(Histogram::kDefaultBoundUs)) ++to.above_bound;
  }
  std::map<int, ClientHistograms> out;
  for (const auto& [client, metrics] : parsed) {
    out.emplace(client, ClientHistograms{metrics[0].histogram(), metrics[1].histogram(),
                                         metrics[2].histogram(), metrics[3].histogram()});
  }
  return out;
}

}  // namespace xrunlab
