// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The machine, once a second of the measurement window: /proc/stat (CPU shares, interrupt and
// context-switch rates, how much of the elapsed CPU time the kernel accounted), JACK's DSP
// load and the xrun events of that second. Runs on the run's thread; non-realtime.
#include <cstdint>
#include <functional>
#include <optional>

#include "engine/result/result.hpp"
#include "engine/system/proc_stat.hpp"

namespace xrunlab {

// Pure: the second that ends at t_s (seconds since the window start) from two /proc/stat
// snapshots. `ticks_per_s` is what the kernel should account per wall second on all CPUs
// (CLK_TCK x number of CPUs); cpu_accounted_pct compares the ticks it did account with that.
// Without both snapshots the /proc/stat fields stay 0 and cpu_accounted_pct empty.
SystemSecond system_second(const std::optional<ProcStatSnapshot>& prev,
                           const std::optional<ProcStatSnapshot>& cur, double t_s,
                           double ticks_per_s);

class SystemSampler {
 public:
  using Reader = std::function<std::optional<ProcStatSnapshot>()>;
  // `t0_us`: the window start (JACK time); `xruns_total`: the monitor's count now. Takes the
  // first snapshot now.
  SystemSampler(
      uint64_t t0_us, uint64_t xruns_total, Reader read = [] { return read_proc_stat(); });
  // The interval since the previous sample, ending at until_us (JACK time): /proc/stat, JACK's
  // DSP load as given, and the monitor's xrun events since the previous sample (from the
  // running total `xruns_total`).
  SystemSecond sample(uint64_t until_us, double dsp_load_pct, uint64_t xruns_total);

 private:
  uint64_t t0_us_;
  Reader read_;
  std::optional<ProcStatSnapshot> prev_;
  uint64_t prev_xruns_ = 0;
  double ticks_per_s_;
};

}  // namespace xrunlab
