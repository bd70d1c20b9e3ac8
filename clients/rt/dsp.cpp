// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/rt/dsp.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace xrunlab {

BiquadBank::BiquadBank(int ports, int stages, uint32_t rate)
    : ports_(std::max(ports, 1)), stages_(std::max(stages, 0)) {
  // RBJ all-pass at 1 kHz, Q = 0.707.
  const double w0 = 2.0 * M_PI * 1000.0 / static_cast<double>(rate);
  const double alpha = std::sin(w0) / (2.0 * 0.707);
  const double a0 = 1.0 + alpha;
  b0_ = static_cast<float>((1.0 - alpha) / a0);
  b1_ = static_cast<float>((-2.0 * std::cos(w0)) / a0);
  b2_ = static_cast<float>((1.0 + alpha) / a0);
  a1_ = b1_;
  a2_ = b0_;
  // Port p holds stages / ports of them, the first stages % ports ports one more.
  first_stage_.assign(static_cast<size_t>(ports_), 0);
  for (int p = 1; p < ports_; ++p) {
    first_stage_[static_cast<size_t>(p)] = first_stage_[static_cast<size_t>(p - 1)] +
                                           stages_ / ports_ + (p - 1 < stages_ % ports_ ? 1 : 0);
  }
  state_.assign(static_cast<size_t>(stages_), State{});
}

void BiquadBank::process_rt(const float* const* in, float* const* out, uint32_t nframes,
                            int active) noexcept {
  // Realtime: wait-free, no allocation, no system calls.
  active = std::clamp(active, 0, stages_);
  for (int p = 0; p < ports_; ++p) {
    const float* src = in[p];
    float* dst = out[p];
    if (src != dst) std::copy(src, src + nframes, dst);
    State* st = state_.data() + first_stage_[static_cast<size_t>(p)];
    const int count = active / ports_ + (p < active % ports_ ? 1 : 0);
    for (int s = 0; s < count; ++s, ++st) {
      float z1 = st->z1, z2 = st->z2;  // transposed direct form II
      for (uint32_t i = 0; i < nframes; ++i) {
        const float x = dst[i];
        const float y = b0_ * x + z1;
        z1 = b1_ * x - a1_ * y + z2;
        z2 = b2_ * x - a2_ * y;
        dst[i] = y;
      }
      // Flush denormals out of the state so the cost per cycle stays constant.
      st->z1 = std::fabs(z1) < 1e-30f ? 0.0f : z1;
      st->z2 = std::fabs(z2) < 1e-30f ? 0.0f : z2;
    }
  }
}

Calibration calibrate(int ports, uint32_t rate, uint32_t nframes, double target_us) {
  constexpr int kProbeStages = 64;
  constexpr int kPasses = 20;
  constexpr int kTrials = 15;
  BiquadBank bank(ports, kProbeStages, rate);
  std::vector<std::vector<float>> buffers(static_cast<size_t>(std::max(ports, 1)),
                                          std::vector<float>(nframes));
  for (auto& b : buffers) {
    for (uint32_t i = 0; i < nframes; ++i) b[i] = std::sin(0.01f * static_cast<float>(i));
  }
  std::vector<float*> ptrs;
  ptrs.reserve(buffers.size());
  for (auto& b : buffers) ptrs.push_back(b.data());
  double best_ns = 1e30;
  for (int t = 0; t < kTrials; ++t) {
    const auto begin = std::chrono::steady_clock::now();
    for (int i = 0; i < kPasses; ++i) bank.process_rt(ptrs.data(), ptrs.data(), nframes);
    const auto end = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(end - begin).count();
    best_ns = std::min(best_ns, ns / (kPasses * kProbeStages));
  }
  return calibration_for(best_ns, target_us);
}

Calibration calibration_for(double ns_per_stage, double target_us) {
  Calibration c;
  c.target_us = target_us;
  c.ns_per_stage = ns_per_stage;
  c.stages = target_us <= 0 || ns_per_stage <= 0
                 ? 0
                 : static_cast<int>(std::lround(target_us * 1000.0 / ns_per_stage));
  return c;
}

}  // namespace xrunlab
