#include "engine/report/plot_data.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace xrunlab {
namespace {

using nlohmann::json;

const json* member(const json& o, const char* key) {
  if (!o.is_object()) return nullptr;
  const auto it = o.find(key);
  return it == o.end() ? nullptr : &*it;
}

std::string string_at(const json& o, const char* key) {
  const json* v = member(o, key);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

double number_at(const json& o, const char* key) {
  const json* v = member(o, key);
  if (v == nullptr || !v->is_number()) return 0;
  const double d = v->get<double>();
  return std::isfinite(d) && d > 0 ? d : 0;
}

}  // namespace

PlotContext plot_context_from_json(const json& run) {
  PlotContext c;
  if (!run.is_object()) {
    c.note = "run.json is not a JSON object";
    return c;
  }
  if (const json* s = member(run, "scheduling")) c.policy = string_at(*s, "label");
  if (const json* loads = member(run, "loads"); loads != nullptr && loads->is_array()) {
    for (const json& l : *loads) {
      std::string spec = string_at(l, "spec");
      if (spec.empty()) spec = string_at(l, "kind");
      if (spec.empty()) continue;
      c.loads += (c.loads.empty() ? "" : ", ") + spec;
    }
    if (c.loads.empty()) c.loads = "none";
  }
  if (const json* s = member(run, "settings")) {
    c.period_us = number_at(*s, "period_us");
    c.spare_us = number_at(*s, "spare_time_us");
  }
  if (const json* m = member(run, "measurement"))
    c.resolution_us = number_at(*m, "delay_resolution_us");
  if (const json* x = member(run, "xruns")) {
    if (const json* events = member(*x, "events"); events != nullptr && events->is_array()) {
      c.xruns_known = true;
      for (const json& e : *events) {
        const json* t = member(e, "t_s");
        if (t == nullptr || !t->is_number()) continue;
        const double v = t->get<double>();
        if (std::isfinite(v)) c.xruns_s.push_back(v);
      }
    }
  }
  if (const json* a = member(run, "audio"); a != nullptr && a->is_object()) {
    if (const json* list = member(*a, "glitch_list"); list != nullptr && list->is_array()) {
      c.glitches_known = true;
      for (const json& g : *list) {
        const json* t = member(g, "t_s");
        if (t != nullptr && t->is_number() && std::isfinite(t->get<double>())) {
          c.glitches_s.push_back(t->get<double>());
        }
      }
    }
  }
  return c;
}

PlotContext read_plot_context(const std::string& run_json_path) {
  std::ifstream in(run_json_path, std::ios::binary);
  if (!in) {
    PlotContext c;
    c.note =
        fmt::format("{} not found: no xrun markers, policy or loads in the plots", run_json_path);
    return c;
  }
  try {
    return plot_context_from_json(json::parse(in));
  } catch (const std::exception& e) {
    PlotContext c;
    c.note = fmt::format("cannot parse {}: {}", run_json_path, e.what());
    return c;
  }
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

}  // namespace xrunlab
