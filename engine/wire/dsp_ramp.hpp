// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The DSP ramp in the process callback's units (xrunlab-client --dsp-ramp): how many DSP stages
// a cycle runs, as a function of the cycle's id alone. Every client of a run computes it from
// the same id (the cycle table's key: the vcard boundary, or JACK's frame time / period) and
// the same cycle `from` (the engine's "ramp CYCLE" line), so all clients step in the same
// cycle, and a cycle's load does not depend on when a client woke or on cycles it missed.
//
// Step n (0 before `from`, then 1 + (id - from) / every) runs base + floor(n x step_q16 / 2^16)
// stages, at most `max`: the step is kept in 1/65536 stages so that a step of 7.3 stages adds
// 73 stages over 10 steps, not 70. Header-only; everything here may run in realtime code.
#include <algorithm>
#include <cmath>
#include <cstdint>

namespace xrunlab {

struct DspRampStages {
  uint32_t base = 0;      // the stages of --dsp-load: before the ramp's first cycle
  uint64_t step_q16 = 0;  // stages added per step, times 65536 (> 0)
  uint32_t every = 1;     // cycles per step (>= 1)
  uint32_t max = 0;       // never more than this

  // The ramp's step in cycle `id` when it starts in cycle `from`: 0 before it, then 1, 2, ...
  // Realtime: pure arithmetic.
  uint64_t step_at(uint64_t id, uint64_t from) const noexcept {
    return id < from ? 0 : 1 + (id - from) / every;
  }

  // The stages of step `n`. Realtime: pure arithmetic; saturates at `max` (no overflow for any
  // n: a step count past the one that reaches max is max).
  uint32_t stages_of_step(uint64_t n) const noexcept {
    if (max <= base || step_q16 == 0) return std::min(base, max);
    const uint64_t room_q16 = static_cast<uint64_t>(max - base) << 16;
    if (n >= room_q16 / step_q16 + 1) return max;
    return static_cast<uint32_t>(std::min<uint64_t>(max, base + ((n * step_q16) >> 16)));
  }
};

// The ramp for a client whose one DSP stage takes `ns_per_stage` over one period of
// `period_ns`: `base_stages` (its --dsp-load), STEP_PCT and MAX_PCT of the period in stages.
// Not realtime (set up before activation); pure.
inline DspRampStages dsp_ramp_stages(uint32_t base_stages, double step_pct, uint32_t every,
                                     double max_pct, double ns_per_stage, double period_ns) {
  DspRampStages r;
  r.base = base_stages;
  r.every = std::max<uint32_t>(every, 1);
  if (ns_per_stage <= 0 || period_ns <= 0) {
    r.max = base_stages;
    return r;
  }
  const double stages_per_pct = period_ns / 100.0 / ns_per_stage;
  r.step_q16 =
      static_cast<uint64_t>(std::llround(std::max(step_pct, 0.0) * stages_per_pct * 65536.0));
  r.max = static_cast<uint32_t>(
      std::max<double>(base_stages, std::floor(std::max(max_pct, 0.0) * stages_per_pct)));
  return r;
}

}  // namespace xrunlab
