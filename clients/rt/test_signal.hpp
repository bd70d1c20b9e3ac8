// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The known test signal the head of the chain plays on its port 1: a sine of amplitude 0.5 whose
// value at every frame is known exactly, so that the tail can find every discontinuity
// sample-exactly (clients/drain/glitch_detector.hpp).
//
// Frame n (the head's own frame counter, from 0) plays table[(n * F) % R], where R is the sample
// rate (the table holds one second) and F, the step, is coprime with R. Because gcd(F, R) == 1,
// n -> (n * F) % R visits every table entry once per R frames: the sequence repeats only every
// R frames (one second), and the tone is F Hz. F is the first integer from rate / 48 upwards
// that is coprime with R (1001 at 48000 Hz, 919 at 44100 Hz, 2003 at 96000 Hz).
//
// table[k] = 0.5 * sin(2 * pi * k / R), computed once in double and rounded to float, so the
// head and the tail, built from this header, agree bit for bit. Only table[0] is exactly zero:
// the signal never has two consecutive zero samples.
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace xrunlab {

class TestSignal {
 public:
  static constexpr uint32_t kMinRate = 1000;

  // Not realtime: allocates the table. Throws std::invalid_argument below kMinRate.
  explicit TestSignal(uint32_t rate) : rate_(rate), step_(choose_step(rate)), table_(rate) {
    constexpr double kTwoPi = 6.283185307179586476925286766559;
    for (uint32_t k = 0; k < rate_; ++k) {
      table_[k] = 0.5f * static_cast<float>(std::sin(kTwoPi * k / rate_));
    }
  }

  // Realtime: wait-free, no allocation. The signal at frame n.
  float at(uint64_t n) const noexcept { return table_[index_of(n)]; }

  // Realtime: wait-free, no allocation. out[i] = at(first_frame + i) for i < nframes.
  void fill_rt(float* out, uint64_t first_frame, uint32_t nframes) const noexcept {
    uint32_t k = index_of(first_frame);
    for (uint32_t i = 0; i < nframes; ++i) {
      out[i] = table_[k];
      k += step_;
      if (k >= rate_) k -= rate_;
    }
  }

  // Realtime: wait-free. The table index (n * F) % R of frame n.
  uint32_t index_of(uint64_t n) const noexcept {
    return static_cast<uint32_t>((n % rate_) * step_ % rate_);
  }

  // Realtime: wait-free. table[k] for k < rate().
  float table(uint32_t k) const noexcept { return table_[k]; }

  uint32_t rate() const noexcept { return rate_; }
  uint32_t step() const noexcept { return step_; }

  // The step for `rate`: the first integer from rate / 48 upwards coprime with rate.
  static uint32_t choose_step(uint32_t rate) {
    if (rate < kMinRate) {
      throw std::invalid_argument("TestSignal: the sample rate must be at least 1000 Hz, got " +
                                  std::to_string(rate));
    }
    uint32_t f = rate / 48;
    while (std::gcd(f, rate) != 1) ++f;
    return f;
  }

 private:
  uint32_t rate_;
  uint32_t step_;
  std::vector<float> table_;
};

}  // namespace xrunlab
