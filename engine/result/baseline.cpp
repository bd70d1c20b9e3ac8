// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/baseline.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace xrunlab {

std::vector<std::string> cyclictest_argv(const std::string& program, int priority, int interval_us,
                                         int seconds, const std::string& json_path) {
  return {program,
          "-m",
          "-q",
          "--laptop",
          "-t",
          "1",
          "-p",
          std::to_string(priority),
          "-i",
          std::to_string(interval_us),
          "-h",
          std::to_string(kBaselineHistogramUs),
          "-D",
          std::to_string(seconds),
          "--json=" + json_path};
}

std::optional<CyclictestResult> read_cyclictest_json(const std::string& text, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<CyclictestResult> {
    if (why != nullptr) *why = w;
    return std::nullopt;
  };
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("thread") || !j["thread"].is_object() ||
      !j["thread"].contains("0") || !j["thread"]["0"].is_object()) {
    return fail("not cyclictest's --json output (no thread 0)");
  }
  const nlohmann::json& t = j["thread"]["0"];
  if (!t.contains("histogram") || !t["histogram"].is_object()) {
    return fail("cyclictest's --json output has no histogram (was it run with -h?)");
  }
  CyclictestResult out;
  Histogram& h = out.us;
  uint64_t in_bins = 0;
  for (const auto& [key, count] : t["histogram"].items()) {
    char* end = nullptr;
    const long long us = std::strtoll(key.c_str(), &end, 10);
    if (end == key.c_str() || *end != '\0' || us < 0 || !count.is_number_unsigned()) {
      return fail("cyclictest's histogram has a bin '" + key + "' that is not a count per us");
    }
    h.add(us, count.get<uint64_t>());
    in_bins += count.get<uint64_t>();
  }
  const uint64_t cycles = t.value("cycles", uint64_t{0});
  if (cycles > in_bins) h.add_unknown(0, cycles - in_bins);  // beyond the histogram's bound
  if (h.empty()) return fail("cyclictest measured no wake-up");
  if (t.contains("max") && t["max"].is_number_integer()) out.max_us = t["max"].get<int64_t>();
  return out;
}

namespace {

nlohmann::json percentile_json(const Histogram& h, double p) {
  const auto v = h.percentile(p);
  if (!v) return nullptr;
  return {{"value_us", v->value_us}, {"exact", v->exact}};
}

nlohmann::json ratio(std::optional<double> run_p99, const Histogram& h) {
  const auto base = h.percentile(99);
  if (!run_p99 || !base || !base->exact || base->value_us <= 0) return nullptr;
  return std::round(*run_p99 / static_cast<double>(base->value_us) * 100.0) / 100.0;
}

nlohmann::json head(const std::vector<std::string>& argv, int priority, int interval_us) {
  return {{"tool", "cyclictest"},
          {"argv", argv},
          {"policy", priority > 0 ? "SCHED_FIFO" : "SCHED_OTHER"},
          {"priority", priority},
          {"interval_us", interval_us},
          {"holds_cpu_dma_latency", false}};
}

}  // namespace

nlohmann::json baseline_json(const std::vector<std::string>& argv, int priority, int interval_us,
                             const CyclictestResult& c, std::optional<double> jackd_wakeup_p99_us,
                             std::optional<double> head_delay_p99_us) {
  const Histogram& h = c.us;
  nlohmann::json j = head(argv, priority, interval_us);
  j["wakeups"] = h.count();
  j["beyond_histogram"] = h.overflow_count();
  j["histogram_bound_us"] = h.bound_us();
  j["p50"] = percentile_json(h, 50);
  j["p99"] = percentile_json(h, 99);
  j["p99_9"] = percentile_json(h, 99.9);
  j["max_us"] = c.max_us ? nlohmann::json(*c.max_us) : nlohmann::json();
  j["ratios_to_p99"] = {{"jackd_wakeup_p99", ratio(jackd_wakeup_p99_us, h)},
                        {"head_client_delay_p99", ratio(head_delay_p99_us, h)}};
  nlohmann::json bins = nlohmann::json::array();
  for (const auto& [us, count] : h.nonzero()) bins.push_back({us, count});
  j["bins"] = std::move(bins);
  return j;
}

nlohmann::json baseline_error_json(const std::vector<std::string>& argv, int priority,
                                   int interval_us, const std::string& why) {
  nlohmann::json j = head(argv, priority, interval_us);
  j["error"] = why;
  return j;
}

}  // namespace xrunlab
