// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The user's own audio (--source FILE) as the head of the chain plays it on port 1: channel 1 of
// the file, loaded whole into memory before activation (engine/wire/source_audio.hpp), played
// from its first frame and looped: frame n plays samples[n % size()].
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace xrunlab {

class LoopedSamples {
 public:
  // Not realtime: takes the preloaded samples. Throws std::invalid_argument when empty.
  explicit LoopedSamples(std::vector<float> samples) : samples_(std::move(samples)) {
    if (samples_.empty()) throw std::invalid_argument("LoopedSamples: no samples");
  }

  // Realtime: wait-free; copies from the preloaded buffer only (no allocation, locks, logging or
  // system calls). out[i] = samples[(first_frame + i) % size()] for i < nframes.
  void fill_rt(float* out, uint64_t first_frame, uint32_t nframes) const noexcept {
    const uint64_t size = samples_.size();
    uint64_t pos = first_frame % size;
    uint32_t done = 0;
    while (done < nframes) {
      const auto n = static_cast<uint32_t>(std::min<uint64_t>(nframes - done, size - pos));
      std::memcpy(out + done, samples_.data() + pos, n * sizeof(float));
      done += n;
      pos = 0;
    }
  }

  uint64_t size() const noexcept { return samples_.size(); }
  const std::vector<float>& samples() const noexcept { return samples_; }

 private:
  std::vector<float> samples_;
};

}  // namespace xrunlab
