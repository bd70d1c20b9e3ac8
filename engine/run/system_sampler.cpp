// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/system_sampler.hpp"

#include <unistd.h>

#include <utility>

namespace xrunlab {

SystemSecond system_second(const std::optional<ProcStatSnapshot>& prev,
                           const std::optional<ProcStatSnapshot>& cur, double t_s,
                           double ticks_per_s) {
  SystemSecond s;
  s.t_s = t_s;
  if (!prev || !cur) return s;
  const SystemSample d = diff_proc_stat(*prev, *cur, t_s);
  s.user_pct = d.user_pct;
  s.nice_pct = d.nice_pct;
  s.system_pct = d.system_pct;
  s.iowait_pct = d.iowait_pct;
  s.irq_pct = d.irq_pct;
  s.softirq_pct = d.softirq_pct;
  s.intr_per_s = d.intr_per_s;
  s.ctxt_per_s = d.ctxt_per_s;
  const double wall_s = static_cast<double>(cur->taken_us - prev->taken_us) / 1e6;
  const double ticks = static_cast<double>(cur->cpu.total() - prev->cpu.total());
  const double expected = wall_s * ticks_per_s;
  if (expected > 0) s.cpu_accounted_pct = 100.0 * ticks / expected;
  return s;
}

SystemSampler::SystemSampler(uint64_t t0_us, uint64_t xruns_total, Reader read)
    : t0_us_(t0_us),
      read_(std::move(read)),
      prev_(read_()),
      prev_xruns_(xruns_total),
      ticks_per_s_(static_cast<double>(::sysconf(_SC_CLK_TCK)) *
                   static_cast<double>(::sysconf(_SC_NPROCESSORS_ONLN))) {}

SystemSecond SystemSampler::sample(uint64_t until_us, double dsp_load_pct, uint64_t xruns_total) {
  std::optional<ProcStatSnapshot> cur = read_();
  SystemSecond s =
      system_second(prev_, cur, static_cast<double>(until_us - t0_us_) / 1e6, ticks_per_s_);
  s.dsp_load_pct = dsp_load_pct;
  s.xruns = xruns_total - prev_xruns_;
  prev_xruns_ = xruns_total;
  prev_ = cur;
  return s;
}

}  // namespace xrunlab
