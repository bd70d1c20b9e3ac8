// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/reference_signal.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace xrunlab {
namespace {

// a^-1 mod m, for gcd(a, m) == 1.
uint32_t inverse_mod(uint32_t a, uint32_t m) {
  int64_t t = 0, new_t = 1;
  int64_t r = m, new_r = a;
  while (new_r != 0) {
    const int64_t q = r / new_r;
    t = std::exchange(new_t, t - q * new_t);
    r = std::exchange(new_r, r - q * new_r);
  }
  if (t < 0) t += m;
  return static_cast<uint32_t>(t);
}

uint64_t distance(uint64_t a, uint64_t b) noexcept {
  return a > b ? a - b : b - a;
}

// FNV-1a over the bit patterns of kMatchFrames samples from pos (cyclically), folded to 32 bits.
uint32_t window_hash(const uint32_t* first, size_t n, uint64_t pos) {
  uint64_t h = 1469598103934665603ull;
  for (size_t m = 0; m < kMatchFrames; ++m) {
    h ^= first[(pos + m) % n];
    h *= 1099511628211ull;
  }
  return static_cast<uint32_t>(h ^ (h >> 32));
}

uint32_t window_hash(const float* window) {
  uint32_t b[kMatchFrames];
  for (size_t m = 0; m < kMatchFrames; ++m) b[m] = float_bits(window[m]);
  return window_hash(b, kMatchFrames, 0);
}

}  // namespace

float ReferenceSignal::value(uint64_t pos) const {
  float x;
  std::memcpy(&x, &bits_[pos], sizeof x);
  return x;
}

uint64_t ReferenceSignal::lift(uint64_t n0, uint64_t near) const {
  const uint64_t p = period();
  const uint64_t d = (near % p + p - n0) % p;  // near - d == n0 (mod p)
  if (near < d) return near + (p - d);
  return d <= p - d ? near - d : near + (p - d);
}

bool ReferenceSignal::fits(const float* window, uint64_t pos) const {
  const uint64_t p = period();
  for (size_t m = 0; m < kMatchFrames; ++m) {
    if (float_bits(window[m]) != bits_[(pos + m) % p]) return false;
  }
  return true;
}

void ReferenceSignal::prepare_blocks(uint32_t block_frames) {
  block_ = block_frames;
  next_diff_.clear();
  if (block_ == 0) return;
  const uint64_t p = period();
  const uint64_t b = block_ % p;
  next_diff_.assign(p, static_cast<uint16_t>(std::min<uint32_t>(block_, 65535)));
  auto differs = [&](uint64_t q) { return bits_[q] != bits_[(q + p - b) % p]; };
  // Two passes backwards around the loop: the second one sees the wrap.
  uint32_t run = block_;
  for (int pass = 0; pass < 2; ++pass) {
    for (uint64_t i = p; i-- > 0;) {
      run = differs(i) ? 0 : std::min<uint32_t>(block_, run + 1);
      next_diff_[i] = static_cast<uint16_t>(std::min<uint32_t>(run, 65535));
    }
  }
}

bool ReferenceSignal::can_show_jump(uint64_t pos) const {
  const uint64_t p = period();
  const uint64_t q = pos % p;
  return next_diff_[q] < block_ && next_diff_[(q + block_) % p] < block_;
}

// --- the test signal -----------------------------------------------------------------------

TestSignalReference::TestSignalReference(uint32_t rate)
    : signal_(rate), step_inverse_(inverse_mod(signal_.step(), signal_.rate())) {
  const uint32_t r = signal_.rate();
  bits_.resize(r);
  for (uint32_t n = 0; n < r; ++n) bits_[n] = float_bits(signal_.at(n));
  std::vector<std::pair<uint32_t, uint32_t>> by_bits(r);  // (bit pattern, table index)
  for (uint32_t k = 0; k < r; ++k) by_bits[k] = {float_bits(signal_.table(k)), k};
  std::sort(by_bits.begin(), by_bits.end());
  indices_.resize(r);
  lookup_.reserve(r);
  for (uint32_t i = 0; i < r;) {
    uint32_t end = i;
    while (end < r && by_bits[end].first == by_bits[i].first) {
      indices_[end] = by_bits[end].second;
      ++end;
    }
    lookup_.emplace(by_bits[i].first, std::make_pair(i, end - i));
    i = end;
  }
}

std::optional<uint64_t> TestSignalReference::find(const float* window,
                                                  std::optional<uint64_t> near) const {
  const auto it = lookup_.find(float_bits(window[0]));
  if (it == lookup_.end()) return std::nullopt;
  const uint32_t r = signal_.rate();
  std::optional<uint64_t> best;
  uint64_t best_distance = 0;
  for (uint32_t i = it->second.first; i < it->second.first + it->second.second; ++i) {
    // Table index k plays at the positions n with n * F == k (mod R).
    const uint64_t n0 = static_cast<uint64_t>(indices_[i]) * step_inverse_ % r;
    if (!fits(window, n0)) continue;
    const uint64_t n = near ? lift(n0, *near) : n0;
    const uint64_t dist = near ? distance(n, *near) : n;
    if (!best || dist < best_distance || (dist == best_distance && n < *best)) {
      best = n;
      best_distance = dist;
    }
  }
  return best;
}

// --- a file --------------------------------------------------------------------------------

FileReference::FileReference(const std::vector<float>& samples) {
  if (samples.size() < kMatchFrames) {
    throw std::invalid_argument(fmt::format("the file has {} frames; the check needs at least {}",
                                            samples.size(), kMatchFrames));
  }
  const size_t n = samples.size();
  bits_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    bits_[i] = float_bits(samples[i]);
    all_zero_ = all_zero_ && samples[i] == 0.0f;
  }
  index_.resize(n);
  for (size_t p = 0; p < n; ++p) {
    index_[p] = static_cast<uint64_t>(window_hash(bits_.data(), n, p)) << 32 | p;
  }
  std::sort(index_.begin(), index_.end());
  // A window is unique when no other position in its hash range holds the same samples.
  for (size_t i = 0; i < n;) {
    size_t end = i;
    while (end < n && (index_[end] >> 32) == (index_[i] >> 32)) ++end;
    for (size_t a = i; a < end; ++a) {
      const uint64_t pa = index_[a] & 0xffffffffu;
      bool alone = true;
      for (size_t b = i; b < end && alone && end - i <= 64; ++b) {
        if (b == a) continue;
        const uint64_t pb = index_[b] & 0xffffffffu;
        bool same = true;
        for (size_t m = 0; m < kMatchFrames && same; ++m) {
          same = bits_[(pa + m) % n] == bits_[(pb + m) % n];
        }
        alone = !same;
      }
      // Over 64 windows with one hash: a repeated window (a silence, a loop), not collisions.
      if (alone && end - i <= 64) ++unique_windows_;
    }
    i = end;
  }
}

std::optional<uint64_t> FileReference::find(const float* window,
                                            std::optional<uint64_t> near) const {
  const uint64_t h = window_hash(window);
  const auto first = std::lower_bound(index_.begin(), index_.end(), h << 32);
  const auto last = std::lower_bound(first, index_.end(), (h + 1) << 32);
  if (first == last) return std::nullopt;
  auto pos_of = [](uint64_t key) { return key & 0xffffffffu; };
  if (!near) {  // the first lock: only a window that occurs once places the stream
    if (last - first > 64) return std::nullopt;
    std::optional<uint64_t> only;
    for (auto it = first; it != last; ++it) {
      if (!fits(window, pos_of(*it))) continue;
      if (only) return std::nullopt;  // ambiguous
      only = pos_of(*it);
    }
    return only;
  }
  // After a glitch: the place nearest to `near`. The range is sorted by position: the first
  // fitting place at or after near's position, and the first before it, cyclically.
  const uint64_t p = period();
  const uint64_t t = *near % p;
  const auto mid = std::lower_bound(first, last, h << 32 | t);
  const std::ptrdiff_t count = last - first;
  std::optional<uint64_t> best;
  uint64_t best_distance = 0;
  auto consider = [&](uint64_t n0) {
    const uint64_t n = lift(n0, *near);
    const uint64_t dist = distance(n, *near);
    if (!best || dist < best_distance || (dist == best_distance && n < *best)) {
      best = n;
      best_distance = dist;
    }
  };
  for (std::ptrdiff_t k = 0; k < count; ++k) {  // upwards
    const uint64_t n0 = pos_of(*(first + ((mid - first) + k) % count));
    if (fits(window, n0)) {
      consider(n0);
      break;
    }
  }
  for (std::ptrdiff_t k = 1; k <= count; ++k) {  // downwards
    const uint64_t n0 = pos_of(*(first + ((mid - first) - k + count * 2) % count));
    if (fits(window, n0)) {
      consider(n0);
      break;
    }
  }
  return best;
}

std::string file_check_impossible(const FileReference& ref, uint32_t rate) {
  const uint64_t p = ref.period();
  if (ref.all_zero()) return "the file is digital silence";
  if (p < rate) {
    return fmt::format(
        "the file is {:.3f} s long ({} frames); the check needs at least 1 s, as a jump is only "
        "known modulo the file's length",
        static_cast<double>(p) / rate, p);
  }
  if (ref.unique_windows() == 0) {
    return fmt::format(
        "no {} consecutive samples of the file occur only once: its content repeats, so where "
        "the received audio belongs is ambiguous",
        kMatchFrames);
  }
  if (ref.block_frames() > 0) {
    bool any = false;
    for (uint64_t q = 0; q < p && !any; ++q) any = ref.can_show_jump(q);
    if (!any) {
      return fmt::format(
          "every block of {} frames of the file equals the block before or after it, so no "
          "dropped or repeated block could be heard",
          ref.block_frames());
    }
  }
  return "";
}

}  // namespace xrunlab
