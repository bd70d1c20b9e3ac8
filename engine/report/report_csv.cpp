#include "engine/report/report_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

namespace xrunlab {
namespace {

constexpr std::string_view kTimeseriesHeader =
    "second,client,cycles,delay_min_us,delay_mean_us,delay_max_us,duration_max_us,cycle_max_us,"
    "over_spare,over_1000,late,user_pct,nice_pct,system_pct,iowait_pct,irq_pct,softirq_pct,"
    "intr_per_s,ctxt_per_s,dsp_load_pct,xruns\n";
constexpr std::string_view kNoSystem = ",,,,,,,,,,";  // the ten system cells, empty

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

std::string format_timeseries_csv(const RunResult& r) {
  // second -> (client index, row), in client order; std::map keeps the seconds ascending.
  std::map<int64_t, std::vector<std::pair<int, const ClientSecond*>>> by_second;
  for (const ClientResult& c : r.client_results) {
    for (const ClientSecond& s : c.seconds) by_second[s.second].emplace_back(c.index, &s);
  }
  std::map<int64_t, const SystemSecond*> system;
  for (const SystemSecond& s : r.system) {
    if (const auto second = system_second_of(s.t_s)) {
      system.emplace(*second, &s);
      by_second[*second];  // an "all" row even without client rows
    }
  }

  std::string out(kTimeseriesHeader);
  for (auto& [second, rows] : by_second) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [index, s] : rows) {
      out += fmt::format("{},{},{}{}\n", second, index, client_columns(*s), kNoSystem);
    }
    const auto sys = system.find(second);
    out += fmt::format(
        "{},all,{},{}\n", second, client_columns(aggregate(rows)),
        sys != system.end() ? system_columns(*sys->second) : std::string(kNoSystem.substr(1)));
  }
  return out;
}

std::string format_histogram_csv(const RunResult& r) {
  std::string out = "client,metric,value_us,count\n";
  for (const ClientResult& c : r.client_results) {
    histogram_rows(out, c.index, "delay", c.delay);
    histogram_rows(out, c.index, "delay_dll", c.delay_dll);
    histogram_rows(out, c.index, "duration", c.duration);
    histogram_rows(out, c.index, "cycle", c.cycle);
  }
  return out;
}

}  // namespace xrunlab
