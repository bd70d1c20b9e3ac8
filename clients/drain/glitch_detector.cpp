// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/glitch_detector.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <ostream>
#include <stdexcept>

namespace xrunlab {
namespace {

// |received - expected|, with NaN counted as infinity so that it is never hidden.
float deviation(float received, float expected) noexcept {
  const float d = std::fabs(received - expected);
  return std::isnan(d) ? std::numeric_limits<float>::infinity() : d;
}

}  // namespace

bool operator==(const Glitch& a, const Glitch& b) noexcept {
  return a.kind == b.kind && a.at == b.at && a.jump == b.jump && a.length == b.length &&
         float_bits(a.max_deviation) == float_bits(b.max_deviation);
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
    : GlitchDetector(std::make_shared<const TestSignalReference>(rate), rate) {}

GlitchDetector::GlitchDetector(std::shared_ptr<const ReferenceSignal> reference, uint32_t rate)
    : ref_(std::move(reference)),
      period_(ref_->period()),
      rate_(rate),
      bits_(ref_->bit_data()),
      block_(ref_->block_frames()) {
  buf_.reserve(kPiece + kMatch);
}

std::optional<uint64_t> GlitchDetector::locate(const float* window) const {
  return ref_->find(window, std::nullopt);
}

// Blocks starting among the n clean samples from received index r0 (loop place pos0).
void GlitchDetector::count_blocks(uint64_t r0, uint64_t pos0, size_t n) {
  if (block_ == 0 || n == 0) return;
  for (uint64_t m = (r0 + block_ - 1) / block_ * block_; m < r0 + n; m += block_) {
    if (ref_->can_show_jump((pos0 + (m - r0)) % period_)) {
      ++judged_blocks_;
    } else {
      ++unjudged_blocks_;
    }
  }
}

// The number of samples from x that continue the signal at the expected position (one compare
// each); advances the expected position past them.
size_t GlitchDetector::match_run(const float* x, size_t n, uint64_t r0) {
  uint64_t pos = pos_;
  size_t i = 0;
  for (; i < n; ++i) {
    if (float_bits(x[i]) != bits_[pos]) break;
    pos = next(pos);
  }
  count_blocks(r0, pos_, i);
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
      const size_t clean = match_run(samples, n, base_);
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
        if (const auto n = ref_->find(buf_.data() + c, std::nullopt)) {
          expected_ = *n;
          pos_ = *n % period_;
          state_ = State::kLocked;
          ever_locked_ = true;
        } else {
          ++unlocked_frames_;
          ++c;
        }
        break;
      }
      case State::kLocked: {
        c += match_run(buf_.data() + c, avail, base_ + c);
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
        if (j > g_at_ && x != 0.0f && float_bits(x) == bits_[g_pos_]) {
          close_glitch(j, cont, x);
          break;
        }
        if (avail >= kMatch) {
          if (const auto n = ref_->find(buf_.data() + c, cont)) {
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
  g_max_dev_ = std::max(g_max_dev_, deviation(x, ref_->value(g_pos_)));
  g_pos_ = next(g_pos_);
}

// At the end of the stream, fewer than kMatch samples from buf_[c]: do they all continue the
// signal at the expected position? (A jump cannot be confirmed from so few.)
bool GlitchDetector::tail_continues(size_t c) const {
  uint64_t idx = g_pos_;
  for (size_t i = c; i < buf_.size(); ++i) {
    if (float_bits(buf_[i]) != bits_[idx]) return false;
    idx = next(idx);
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
  g.max_deviation = std::max(g_max_dev_, deviation(x, ref_->value(g_pos_)));
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
  pos_ = n % period_;
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
