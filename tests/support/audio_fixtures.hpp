// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Small audio files for the --source tests, written with libsndfile into a test's TempDir at
// test time (nothing is committed): deterministic noise, silence, repeats.
#include <sndfile.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace xrunlab::testing_support {

// n samples of deterministic noise in [-0.5, 0.5) (a 32-bit LCG), each a multiple of 1/32768
// (15 bits), so that a 16-bit or 24-bit recording of it reads back the same floats.
inline std::vector<float> noise(size_t n, uint32_t seed = 1) {
  std::vector<float> x(n);
  uint32_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = static_cast<float>(static_cast<int32_t>(s >> 17) - 16384) / 32768.0f;
  }
  return x;
}

// Channel 1 of `path` as libsndfile reads it (what xrunlab plays); empty when unreadable.
inline std::vector<float> read_channel_1(const std::string& path) {
  SF_INFO info{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
  if (f == nullptr) return {};
  std::vector<float> all(static_cast<size_t>(info.frames) * static_cast<size_t>(info.channels));
  sf_readf_float(f, all.data(), info.frames);
  sf_close(f);
  std::vector<float> out(static_cast<size_t>(info.frames));
  for (size_t i = 0; i < out.size(); ++i) out[i] = all[i * static_cast<size_t>(info.channels)];
  return out;
}

// Writes `interleaved` (frames x channels) to `path`; format e.g. SF_FORMAT_FLAC |
// SF_FORMAT_PCM_24, SF_FORMAT_WAV | SF_FORMAT_FLOAT. Throws when libsndfile refuses.
inline void write_audio(const std::string& path, const std::vector<float>& interleaved,
                        int channels, int rate, int format) {
  SF_INFO info{};
  info.samplerate = rate;
  info.channels = channels;
  info.format = format;
  SNDFILE* f = sf_open(path.c_str(), SFM_WRITE, &info);
  if (f == nullptr) throw std::runtime_error("cannot write " + path + ": " + sf_strerror(nullptr));
  const auto frames = static_cast<sf_count_t>(interleaved.size() / static_cast<size_t>(channels));
  if (sf_writef_float(f, interleaved.data(), frames) != frames) {
    sf_close(f);
    throw std::runtime_error("short write to " + path);
  }
  sf_close(f);
}

}  // namespace xrunlab::testing_support
