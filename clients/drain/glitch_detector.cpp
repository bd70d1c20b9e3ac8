#include "clients/drain/glitch_detector.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>

namespace xrunlab {
namespace {

uint32_t bits_of(float x) noexcept {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// |received - expected|, with NaN counted as infinity so that it is never hidden.
float deviation(float received, float expected) noexcept {
  const float d = std::fabs(received - expected);
  return std::isnan(d) ? std::numeric_limits<float>::infinity() : d;
}

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

}  // namespace

bool operator==(const Glitch& a, const Glitch& b) noexcept {
  return a.kind == b.kind && a.at == b.at && a.jump == b.jump && a.length == b.length &&
         bits_of(a.max_deviation) == bits_of(b.max_deviation);
}

const char* to_string(Glitch::Kind kind) noexcept {
  switch (kind) {
    case Glitch::Kind::kDropped:
      return "dropped";
    case Glitch::Kind::kRepeated:
      return "repeated";
    case Glitch::Kind::kCorrupted:
      return "corrupted";
    case Glitch::Kind::kSilence:
      return "silence";
    case Glitch::Kind::kLost:
      return "lost";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, const Glitch& g) {
  return os << "{" << to_string(g.kind) << " at=" << g.at << " jump=" << g.jump
            << " length=" << g.length << " max_deviation=" << g.max_deviation << "}";
}

GlitchDetector::GlitchDetector(uint32_t rate)
    : signal_(rate),
      rate_(signal_.rate()),
      step_(signal_.step()),
      step_inverse_(inverse_mod(step_, rate_)),
      bits_(rate_) {
  std::vector<std::pair<uint32_t, uint32_t>> by_bits(rate_);  // (bit pattern, table index)
  for (uint32_t k = 0; k < rate_; ++k) {
    bits_[k] = bits_of(signal_.table(k));
    by_bits[k] = {bits_[k], k};
  }
  std::sort(by_bits.begin(), by_bits.end());
  indices_.resize(rate_);
  lookup_.reserve(rate_);
  for (uint32_t i = 0; i < rate_;) {
    uint32_t end = i;
    while (end < rate_ && by_bits[end].first == by_bits[i].first) {
      indices_[end] = by_bits[end].second;
      ++end;
    }
    lookup_.emplace(by_bits[i].first, std::make_pair(i, end - i));
    i = end;
  }
  buf_.reserve(kPiece + kMatch);
}

// The absolute position congruent to n0 (mod R) nearest to `near` (the smaller on a tie).
uint64_t GlitchDetector::lift(uint64_t n0, uint64_t near) const {
  const uint64_t d = (near % rate_ + rate_ - n0) % rate_;  // near - d == n0 (mod R)
  if (near < d) return near + (rate_ - d);
  return d <= rate_ - d ? near - d : near + (rate_ - d);
}

std::optional<uint64_t> GlitchDetector::find(const float* window,
                                             std::optional<uint64_t> near) const {
  const auto it = lookup_.find(bits_of(window[0]));
  if (it == lookup_.end()) return std::nullopt;
  std::optional<uint64_t> best;
  uint64_t best_distance = 0;
  for (uint32_t i = it->second.first; i < it->second.first + it->second.second; ++i) {
    const uint32_t k = indices_[i];
    uint32_t idx = k;
    bool match = true;
    for (size_t m = 1; m < kMatch && match; ++m) {
      idx += step_;
      if (idx >= rate_) idx -= rate_;
      match = bits_of(window[m]) == bits_[idx];
    }
    if (!match) continue;
    const uint64_t n0 = static_cast<uint64_t>(k) * step_inverse_ % rate_;
    const uint64_t n = near ? lift(n0, *near) : n0;
    const uint64_t dist = near ? distance(n, *near) : n;
    if (!best || dist < best_distance || (dist == best_distance && n < *best)) {
      best = n;
      best_distance = dist;
    }
  }
  return best;
}

std::optional<uint64_t> GlitchDetector::locate(const float* window) const {
  return find(window, std::nullopt);
}

// The number of samples from x that continue the signal at the expected position (one compare
// each); advances the expected position past them.
size_t GlitchDetector::match_run(const float* x, size_t n) {
  uint32_t pos = pos_;
  size_t i = 0;
  for (; i < n; ++i) {
    if (bits_of(x[i]) != bits_[pos]) break;
    pos += step_;
    if (pos >= rate_) pos -= rate_;
  }
  pos_ = pos;
  expected_ += i;
  return i;
}

void GlitchDetector::feed(const float* samples, size_t n) {
  if (state_ == State::kFinished) {
    throw std::logic_error("GlitchDetector::feed called after finish()");
  }
  frames_ += n;
  while (n > 0) {
    if (state_ == State::kLocked && buf_.empty()) {
      const size_t clean = match_run(samples, n);
      base_ += clean;
      samples += clean;
      n -= clean;
      if (n == 0) break;
    }
    const size_t take = std::min(n, kPiece);
    buf_.insert(buf_.end(), samples, samples + take);
    samples += take;
    n -= take;
    process(false);
  }
}

void GlitchDetector::finish() {
  if (state_ == State::kFinished) return;
  process(true);
  state_ = State::kFinished;
}

// Classifies buf_ as far as the data allows (all of it when at_end), then drops what is done.
// Every decision at a received index depends only on the samples from there to kMatch - 1 after
// it, and is taken only once those are all present, so chunk sizes never change the result.
void GlitchDetector::process(bool at_end) {
  const size_t size = buf_.size();
  size_t c = 0;
  bool more = true;
  while (more) {
    const size_t avail = size - c;
    switch (state_) {
      case State::kUnlocked: {
        if (avail < kMatch) {
          if (at_end) {
            unlocked_frames_ += avail;
            c = size;
          }
          more = false;
          break;
        }
        if (const auto n = find(buf_.data() + c, std::nullopt)) {
          expected_ = *n;
          pos_ = signal_.index_of(*n);
          state_ = State::kLocked;
          ever_locked_ = true;
        } else {
          ++unlocked_frames_;
          ++c;
        }
        break;
      }
      case State::kLocked: {
        c += match_run(buf_.data() + c, avail);
        if (c == size) {
          more = false;
          break;
        }
        open_glitch(base_ + c);
        break;
      }
      case State::kGlitch: {
        const uint64_t j = base_ + c;
        if (avail == 0) {
          if (at_end) close_lost(j);
          more = false;
          break;
        }
        const float x = buf_[c];
        const uint64_t cont = g_expected_ + (j - g_at_);
        if (j > g_at_ && x != 0.0f && bits_of(x) == bits_[g_pos_]) {
          close_glitch(j, cont, x);
          break;
        }
        if (avail >= kMatch) {
          if (const auto n = find(buf_.data() + c, cont)) {
            close_glitch(j, *n, x);
            break;
          }
        } else if (!at_end) {
          more = false;  // wait for kMatch samples
          break;
        } else if (tail_continues(c)) {
          close_glitch(j, cont, x);
          break;
        }
        fold(x);
        ++c;
        break;
      }
      case State::kFinished:
        more = false;
        break;
    }
  }
  buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(c));
  base_ += c;
}

void GlitchDetector::open_glitch(uint64_t r) {
  state_ = State::kGlitch;
  g_at_ = r;
  g_expected_ = expected_;
  g_pos_ = pos_;
  g_all_zero_ = true;
  g_max_dev_ = 0;
}

// Sample x, at the scan cursor, belongs to the open glitch.
void GlitchDetector::fold(float x) {
  g_all_zero_ = g_all_zero_ && x == 0.0f;
  g_max_dev_ = std::max(g_max_dev_, deviation(x, signal_.table(g_pos_)));
  g_pos_ += step_;
  if (g_pos_ >= rate_) g_pos_ -= rate_;
}

// At the end of the stream, fewer than kMatch samples from buf_[c]: do they all continue the
// signal at the expected position? (A jump cannot be confirmed from so few.)
bool GlitchDetector::tail_continues(size_t c) const {
  uint32_t idx = g_pos_;
  for (size_t i = c; i < buf_.size(); ++i) {
    if (bits_of(buf_[i]) != bits_[idx]) return false;
    idx += step_;
    if (idx >= rate_) idx -= rate_;
  }
  return true;
}

// The open glitch ends at received index j (sample x), where the signal resumes at position n.
void GlitchDetector::close_glitch(uint64_t j, uint64_t n, float x) {
  const uint64_t length = j - g_at_;
  const uint64_t cont = g_expected_ + length;
  Glitch g;
  g.at = g_at_;
  g.length = length;
  g.jump = static_cast<int64_t>(n) - static_cast<int64_t>(cont);
  g.max_deviation = std::max(g_max_dev_, deviation(x, signal_.table(g_pos_)));
  if (length > rate_) {
    g.kind = Glitch::Kind::kLost;
  } else if (g.jump != 0) {
    g.kind = length >= 2 && g_all_zero_
                 ? Glitch::Kind::kSilence
                 : (g.jump > 0 ? Glitch::Kind::kDropped : Glitch::Kind::kRepeated);
  } else {
    g.kind = length >= 2 && g_all_zero_ ? Glitch::Kind::kSilence : Glitch::Kind::kCorrupted;
  }
  push(g);
  state_ = State::kLocked;
  expected_ = n;
  pos_ = signal_.index_of(n);
  lost_ = false;
}

// The stream ended inside the open glitch, at received index `end`.
void GlitchDetector::close_lost(uint64_t end) {
  Glitch g;
  g.kind = Glitch::Kind::kLost;
  g.at = g_at_;
  g.length = end - g_at_;
  g.max_deviation = g_max_dev_;
  push(g);
  lost_ = true;
}

void GlitchDetector::push(const Glitch& g) {
  glitches_.push_back(g);
  delta_max_ = std::max(delta_max_, g.max_deviation);
}

}  // namespace xrunlab
