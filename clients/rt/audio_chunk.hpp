// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What the tail of the audible chain received on its checked port (port 1), handed from the
// process callback to the drain thread's audio check in pieces of up to kChunk frames.
#include <cstdint>
#include <type_traits>

namespace xrunlab {

struct AudioChunk {
  static constexpr uint32_t kChunk = 64;
  uint64_t t_entry_us;  // the cycle's callback entry (JACK time)
  uint32_t frame_time;  // the cycle's jack_last_frame_time()
  uint32_t count;       // samples in s (1..kChunk)
  float s[kChunk];
};
static_assert(std::is_trivially_copyable_v<AudioChunk>, "copied by value in the callback");

}  // namespace xrunlab
