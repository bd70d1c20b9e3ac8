// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// How often a run rewrites its files while it measures. A checkpoint formats everything the run
// holds (run.json's per-second rows grow with the run), so a fixed interval would cost a long
// run more and more CPU beside the measurement: an hour's checkpoint formats 720 times what the
// first one did. The interval is a sixtieth of the time measured so far, at least 5 s and at
// most 60 s: a kill -9 loses at most 60 s or 1/60 of the run, and a run of any length spends
// about as much CPU on checkpoints per minute as a 5-minute run does. Non-realtime.
#include <algorithm>
#include <cstdint>

namespace xrunlab {

inline constexpr uint64_t kCheckpointMinUs = 5'000'000;
inline constexpr uint64_t kCheckpointMaxUs = 60'000'000;

// The time from one checkpoint to the next, `elapsed_us` into the window.
inline constexpr uint64_t checkpoint_interval_us(uint64_t elapsed_us) {
  return std::clamp<uint64_t>(elapsed_us / 60, kCheckpointMinUs, kCheckpointMaxUs);
}

}  // namespace xrunlab
