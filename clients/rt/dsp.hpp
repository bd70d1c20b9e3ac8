// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Synthetic DSP work: a cascade of all-pass biquads per port (magnitude 1, so audio passes
// through the chain unchanged in level), sized to take a requested time per cycle.
#include <cstdint>
#include <vector>

namespace xrunlab {

class BiquadBank {
 public:
  // `stages` biquads in total, spread over `ports` ports (earlier ports get the remainder).
  // Allocates all state here; process_rt never allocates.
  BiquadBank(int ports, int stages, uint32_t rate);

  // Realtime: wait-free, no allocation. in[p]/out[p] hold `nframes` samples; in and out may alias.
  void process_rt(const float* const* in, float* const* out, uint32_t nframes) noexcept {
    process_rt(in, out, nframes, stages_);
  }
  // The same with only `active` of the stages (at most stages(); more counts as stages()),
  // spread over the ports as the constructor spreads them: what a DSP ramp runs each cycle.
  // Realtime: wait-free, no allocation, bounded by stages() x nframes.
  void process_rt(const float* const* in, float* const* out, uint32_t nframes, int active) noexcept;

  int stages() const { return stages_; }
  int ports() const { return ports_; }

 private:
  struct State {
    float z1 = 0, z2 = 0;
  };
  int ports_;
  int stages_;
  float b0_, b1_, b2_, a1_, a2_;
  std::vector<int> first_stage_;  // per port: its first stage's index in state_
  std::vector<State> state_;      // stages_ entries, port after port
};

struct Calibration {
  int stages = 0;
  double ns_per_stage = 0;  // one biquad over one buffer, the fastest of the trials
  double target_us = 0;
};

// Measures the cost of one stage over `nframes` samples (minimum of several trials, so that
// interference from other processes inflates it as little as possible) and returns the number
// of stages that takes `target_us`. Not realtime: runs before activation.
Calibration calibrate(int ports, uint32_t rate, uint32_t nframes, double target_us);
// The stages that take `target_us` at a cost measured elsewhere (the engine's one calibration
// for all clients, xrunlab-client --calibrate). Pure.
Calibration calibration_for(double ns_per_stage, double target_us);

}  // namespace xrunlab
