// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/baseline.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace xrunlab {

std::string cyclictest_shm_file(const std::string& shm_dir, pid_t pid) {
  return shm_dir + "/cyclictest" + std::to_string(pid);
}

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

std::optional<double> ratio(std::optional<double> run_p99, const Histogram& h) {
  const auto base = h.percentile(99);
  if (!run_p99 || !base || !base->exact || base->value_us <= 0) return std::nullopt;
  return std::round(*run_p99 / static_cast<double>(base->value_us) * 100.0) / 100.0;
}

BaselineRecord head(const std::vector<std::string>& argv, int priority, int interval_us) {
  BaselineRecord b;
  b.argv = argv;
  b.policy = priority > 0 ? "SCHED_FIFO" : "SCHED_OTHER";
  b.priority = priority;
  b.interval_us = interval_us;
  return b;
}

}  // namespace

BaselineRecord baseline_record(const std::vector<std::string>& argv, int priority, int interval_us,
                               const CyclictestResult& c, std::optional<double> jackd_wakeup_p99_us,
                               std::optional<double> head_delay_p99_us) {
  const Histogram& h = c.us;
  BaselineRecord b = head(argv, priority, interval_us);
  b.wakeups = h.count();
  b.beyond_histogram = h.overflow_count();
  b.histogram_bound_us = h.bound_us();
  b.p50 = h.percentile(50);
  b.p99 = h.percentile(99);
  b.p99_9 = h.percentile(99.9);
  b.max_us = c.max_us;
  b.jackd_wakeup_ratio = ratio(jackd_wakeup_p99_us, h);
  b.head_client_delay_ratio = ratio(head_delay_p99_us, h);
  for (const auto& [us, count] : h.nonzero()) b.bins.emplace_back(us, count);
  return b;
}

BaselineRecord baseline_error_record(const std::vector<std::string>& argv, int priority,
                                     int interval_us, const std::string& why) {
  BaselineRecord b = head(argv, priority, interval_us);
  b.error = why;
  return b;
}

}  // namespace xrunlab
