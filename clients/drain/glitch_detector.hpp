// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Non-realtime: finds every discontinuity in the received copy of the test signal
// (clients/rt/test_signal.hpp), or of the user's file (--source FILE), sample-exactly: the
// expected loop is a ReferenceSignal (clients/drain/reference_signal.hpp) of period R (the test
// signal: the rate; a file: its length in frames). The tail client feeds what arrives on its port
// 1, in arrival order and in chunks of any size; the results do not depend on the chunk sizes.
//
// Timeline. Received samples are numbered r = 0, 1, 2, ... (the sink's own count). Samples before
// the first lock are `unlocked_frames` (the chain filling up), never a glitch.
//
// Locking. The detector locks at r when kMatch consecutive samples equal the signal bitwise at
// consecutive positions n .. n + kMatch - 1. n is found from the values alone (a lookup from the
// bit pattern of each table entry to its indices, then n = k * F^-1 mod R, then a check of the
// other samples). n is known modulo R only: the first lock takes the smallest n, later ones the n
// nearest to the expected position, so jumps are reported in [-R/2, R/2) and a jump of a whole
// multiple of R frames is invisible (the signal is periodic). A file's first lock takes only a
// window that occurs once in the file (FileReference::find).
//
// Locked, the expected position advances by one per sample; a clean sample costs one compare.
// A sample that differs opens a glitch at r; the glitch ends at the first received index j >= r
// where either
//   * j > r and sample j is non-zero and equals the signal at the expected position continued
//     through the glitch, cont = e + (j - r) (the signal goes on where it should), or
//   * kMatch samples from j match the signal at some n' (the nearest to cont).
// Samples [r, j) are the glitch's `length`; jump = n' - cont. The kind:
//   kLost      length > rate (the signal was missing for more than a second), or the stream ended
//              inside the glitch (finish());
//   kDropped / kRepeated  jump > 0 / jump < 0 (length 0 for a pure jump);
//   kSilence   length >= 2 and all of [r, j) are zero (jump is 0 when the zeros replaced the
//              signal, -length when they were inserted and the signal resumed where it stopped);
//   kCorrupted the rest: the signal continues at the expected position after `length` wrong
//              samples.
// A drop that lands on the signal's zero crossing is a kDropped (the kMatch samples from r match
// a new position); a single zeroed sample is a kCorrupted of length 1. A second fault less than
// kMatch samples after a jump is merged into the jump's glitch (its length covers both).
//
// max_deviation: the largest |received - expected| over [r, j] with the expected position
// continued through the glitch (so a dropped block's first wrong sample counts against the
// expected one, and silence counts |0 - expected|). NaN counts as infinity.
//
// Blocks (when the reference has prepare_blocks(B)): every received index that is a multiple of
// B and arrives locked and clean is the start of a block the check could judge
// (ReferenceSignal::can_show_jump) or not; blocks that start unlocked or inside a glitch are in
// neither count.
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "clients/drain/reference_signal.hpp"

namespace xrunlab {

struct Glitch {
  enum class Kind { kDropped, kRepeated, kCorrupted, kSilence, kLost };
  Kind kind = Kind::kCorrupted;
  uint64_t at = 0;      // received index of the first affected sample
  int64_t jump = 0;     // frames skipped (+) or replayed (-) in the signal, 0 if it continues
  uint64_t length = 0;  // received samples affected (0 for a pure jump)
  float max_deviation = 0;
};

bool operator==(const Glitch& a, const Glitch& b) noexcept;
inline bool operator!=(const Glitch& a, const Glitch& b) noexcept {
  return !(a == b);
}
const char* to_string(Glitch::Kind kind) noexcept;  // "dropped", "repeated", ...
std::ostream& operator<<(std::ostream& os, const Glitch& g);

class GlitchDetector {
 public:
  static constexpr size_t kMatch = kMatchFrames;

  // The test signal at `rate`: builds its table and inverse lookup (allocates; O(rate)).
  explicit GlitchDetector(uint32_t rate);
  // Any reference (the test signal or a file) at the run's `rate` (the kLost threshold).
  GlitchDetector(std::shared_ptr<const ReferenceSignal> reference, uint32_t rate);

  // The next `n` received samples. Throws std::logic_error after finish().
  void feed(const float* samples, size_t n);
  // The end of the stream: classifies what is still pending (a glitch still open becomes kLost
  // unless the last samples, fewer than kMatch, continue the signal at the expected position).
  // Idempotent.
  void finish();

  const std::vector<Glitch>& glitches() const { return glitches_; }
  // The largest |received - expected| over all locked samples; 0 for a clean signal.
  float delta_max() const { return delta_max_; }
  uint64_t frames() const { return frames_; }
  uint64_t unlocked_frames() const { return unlocked_frames_; }
  bool ever_locked() const { return ever_locked_; }
  // Blocks (see above); both 0 when the reference has no block size.
  uint64_t judged_blocks() const { return judged_blocks_; }
  uint64_t unjudged_blocks() const { return unjudged_blocks_; }
  // True once locked, unless more than R frames have been received since the signal went
  // missing (or the stream ended in a glitch, see finish()).
  bool locked() const {
    return ever_locked_ && !lost_ && !(state_ == State::kGlitch && frames_ - g_at_ > rate_);
  }

  // The position n in [0, R) of kMatch consecutive signal samples (the first lock's rule:
  // ReferenceSignal::find), from their values alone; nullopt if they are not the signal.
  std::optional<uint64_t> locate(const float* window) const;

  const ReferenceSignal& reference() const { return *ref_; }

 private:
  enum class State { kUnlocked, kLocked, kGlitch, kFinished };

  size_t match_run(const float* x, size_t n, uint64_t r0);
  void count_blocks(uint64_t r0, uint64_t pos0, size_t n);
  uint64_t next(uint64_t pos) const { return pos + 1 == period_ ? 0 : pos + 1; }
  void process(bool at_end);
  void open_glitch(uint64_t r);
  void fold(float x);
  void close_glitch(uint64_t j, uint64_t n, float x);
  void close_lost(uint64_t end);
  bool tail_continues(size_t c) const;
  void push(const Glitch& g);

  std::shared_ptr<const ReferenceSignal> ref_;
  uint64_t period_;       // R
  uint32_t rate_;         // one second, in frames: the kLost threshold
  const uint32_t* bits_;  // the reference's samples as bit patterns, in play order
  uint32_t block_;        // B (0: blocks are not counted)
  uint64_t judged_blocks_ = 0;
  uint64_t unjudged_blocks_ = 0;

  State state_ = State::kUnlocked;
  uint64_t frames_ = 0;
  uint64_t unlocked_frames_ = 0;
  bool ever_locked_ = false;
  bool lost_ = false;

  // Locked: the signal position expected at the next sample, and its place in the loop.
  uint64_t expected_ = 0;
  uint64_t pos_ = 0;

  // Samples not yet classified; buf_[0] is received index base_. Fewer than kMatch stay between
  // feed() calls; feed() appends at most kPiece at a time.
  static constexpr size_t kPiece = 4096;
  std::vector<float> buf_;
  uint64_t base_ = 0;

  // The open glitch: first received index, expected position there, loop place of the
  // continued expected position at the scan cursor, whether all samples so far are zero, and the
  // deviation so far.
  uint64_t g_at_ = 0;
  uint64_t g_expected_ = 0;
  uint64_t g_pos_ = 0;
  bool g_all_zero_ = true;
  float g_max_dev_ = 0;

  std::vector<Glitch> glitches_;
  float delta_max_ = 0;
};

}  // namespace xrunlab
