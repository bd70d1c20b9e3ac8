// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// How often a run rewrites its files while it measures. A checkpoint rewrites run.json,
// histogram.csv and summary.txt whole (render_checkpoint_files, engine/report/run_folder.hpp)
// but appends to seconds.jsonl only the per-second rows since the last checkpoint, and drops
// them from memory (engine/report/seconds_file.hpp): its cost does not grow with the run's
// length but with what the run's bounded lists hold (once the first 10000 xrun events and
// glitches are listed, run.json is megabytes: about 20 MB of JSON nodes).
// The interval is a sixtieth of the time measured so far, at least 5 s and at most 60 s: a
// kill -9 loses at most 60 s or 1/60 of the run, and a long run whose lists are full formats
// that run.json at most once a minute. The first checkpoint comes 1.5 s into the window, once
// the clients have sent their first second (engine/run/measurement_loop.hpp). Non-realtime.
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
