// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Non-realtime: what the tail of the chain expects on port 1, as one loop of samples in play
// order: position n (the head's frame n) holds sample(n % period()). Two kinds:
//   TestSignalReference  the known test signal (clients/rt/test_signal.hpp), period R = rate;
//   FileReference        the user's file (--source FILE), period = its length in frames.
// The glitch detector (glitch_detector.hpp) compares received samples with these bit for bit and
// asks find() where kMatchFrames consecutive samples belong.
//
// Blocks. A dropped or repeated block of B frames (the JACK period) can only be heard where the
// block's samples differ from those it is replaced by. The rule, per position q where a received
// block starts: the block can show a repeat when samples [q, q + B) differ (in at least one
// sample, bitwise) from [q - B, q), and a drop when they differ from [q + B, q + 2B); it is
// judged when both hold (can_show_jump), and otherwise counted as not judged. The test signal
// (period one second, never two equal samples a block apart) is judged everywhere; a file with
// digital silence or a sample-exact loop is not, there.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clients/rt/test_signal.hpp"

namespace xrunlab {

inline constexpr size_t kMatchFrames = 8;

// A sample's bit pattern: the check compares samples bit for bit (NaNs and -0 included).
inline uint32_t float_bits(float x) noexcept {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}  // samples that place a received stretch in the loop

class ReferenceSignal {
 public:
  virtual ~ReferenceSignal() = default;

  uint64_t period() const { return bits_.size(); }
  uint32_t bits(uint64_t pos) const { return bits_[pos]; }   // pos < period()
  const uint32_t* bit_data() const { return bits_.data(); }  // period() patterns
  float value(uint64_t pos) const;                           // pos < period()

  // The position of kMatchFrames consecutive received samples, from their values alone.
  // With `near`: the absolute position (congruent mod period() to a place they fit) nearest to
  // near, the smaller on a tie. Without: the first lock's rule of each kind (the test signal:
  // the smallest fitting position; a file: the only one, nullopt when the window occurs more
  // than once). nullopt when they fit nowhere.
  virtual std::optional<uint64_t> find(const float* window, std::optional<uint64_t> near) const = 0;

  // Builds the block table for blocks of `block_frames` (0: none). Not const: call before the
  // detector uses it.
  void prepare_blocks(uint32_t block_frames);
  uint32_t block_frames() const { return block_; }
  // The block starting at position pos can show a drop and a repeat (see above). Needs
  // prepare_blocks(B > 0).
  bool can_show_jump(uint64_t pos) const;

 protected:
  // The absolute position congruent to n0 (mod period) nearest to `near` (the smaller on a tie).
  uint64_t lift(uint64_t n0, uint64_t near) const;
  bool fits(const float* window, uint64_t pos) const;  // window continues the loop at pos
  std::vector<uint32_t> bits_;  // the loop's samples as bit patterns, in play order

 private:
  uint32_t block_ = 0;
  // next_diff_[q]: distance from q to the first q' >= q (cyclically) whose sample differs from
  // the sample B before it, capped at B.
  std::vector<uint16_t> next_diff_;
};

class TestSignalReference final : public ReferenceSignal {
 public:
  explicit TestSignalReference(uint32_t rate);  // allocates; O(rate)
  std::optional<uint64_t> find(const float* window, std::optional<uint64_t> near) const override;
  const TestSignal& signal() const { return signal_; }

 private:
  TestSignal signal_;
  uint32_t step_inverse_;
  // bit pattern -> [offset, offset + count) in indices_, the table indices having it.
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> lookup_;
  std::vector<uint32_t> indices_;
};

class FileReference final : public ReferenceSignal {
 public:
  // The loop `samples` (at least kMatchFrames of them; throws std::invalid_argument otherwise).
  // Indexes every window of kMatchFrames samples (8 bytes per frame; O(n log n)).
  explicit FileReference(const std::vector<float>& samples);
  std::optional<uint64_t> find(const float* window, std::optional<uint64_t> near) const override;

  bool all_zero() const { return all_zero_; }
  // Positions whose window of kMatchFrames samples occurs nowhere else in the loop.
  uint64_t unique_windows() const { return unique_windows_; }

 private:
  // (hash of the window at p) << 32 | p, sorted: a window's places are one equal range.
  std::vector<uint64_t> index_;
  bool all_zero_ = true;
  uint64_t unique_windows_ = 0;
};

// Why the file check cannot work for this loop at this rate and block size ("" when it can):
// digital silence, shorter than one second (a jump is only known modulo the loop's length, so a
// short loop would misname drops as repeats), no window that occurs only once (alignment
// ambiguous), no block that can show a drop and a repeat. `ref` must have prepare_blocks done.
std::string file_check_impossible(const FileReference& ref, uint32_t rate);

}  // namespace xrunlab
