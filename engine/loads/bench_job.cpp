// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/bench_job.hpp"

#include <algorithm>
#include <optional>

namespace xrunlab::load_tool {

uint64_t bench_job(uint64_t seed) {
  uint64_t x = seed | 1u;
  for (uint64_t i = 0; i < kBenchJobIterations; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x = x * 0x2545F4914F6CDD1Dull + i;
  }
  return x;
}

BenchReport bench_report(const std::vector<BenchWorkerFigures>& workers) {
  BenchReport r;
  r.figures.job_iterations = kBenchJobIterations;
  uint64_t wall_ns = 0, cpu_ns = 0, longest_ns = 0;
  std::optional<uint64_t> min_ns;
  for (const BenchWorkerFigures& w : workers) {
    if (w.jobs == 0) continue;
    r.figures.jobs += w.jobs;
    wall_ns += w.wall_ns_sum;
    cpu_ns += w.cpu_ns_sum;
    longest_ns = std::max(longest_ns, w.wall_ns_sum);
    if (w.wall_ns_min > 0) min_ns = std::min(min_ns.value_or(w.wall_ns_min), w.wall_ns_min);
  }
  r.units = r.figures.jobs;
  r.units_s = static_cast<double>(longest_ns) / 1e9;
  if (r.figures.jobs == 0) return r;
  const auto jobs = static_cast<double>(r.figures.jobs);
  r.figures.job_wall_ms_mean = static_cast<double>(wall_ns) / jobs / 1e6;
  r.figures.job_cpu_ms_mean = static_cast<double>(cpu_ns) / jobs / 1e6;
  if (min_ns) r.figures.job_wall_ms_min = static_cast<double>(*min_ns) / 1e6;
  return r;
}

}  // namespace xrunlab::load_tool
