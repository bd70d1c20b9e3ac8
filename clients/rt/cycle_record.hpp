// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What the process callback records about one cycle: raw clock readings only; every derived
// number (delay, duration, cycle time) is computed on the drain thread.
#include <cstdint>
#include <type_traits>

namespace xrunlab {

struct CycleRecord {
  uint64_t t_entry_us = 0;           // jack_get_time() at callback entry
  uint64_t t_exit_us = 0;            // jack_get_time() after the DSP work
  uint64_t dll_period_start_us = 0;  // jack_get_cycle_times() current_usecs (DLL estimate)
  uint64_t t_entry_mono_ns = 0;     // CLOCK_MONOTONIC at entry (the vcard's clock), if kHasBoundary
  uint64_t card_boundary = 0;       // the vcard boundary this cycle serves (its marker)
  uint32_t frames_since_start = 0;  // jack_frames_since_cycle_start() at entry
  uint32_t frame_time = 0;          // jack_last_frame_time(): identifies the cycle
  uint32_t nframes = 0;
  uint32_t flags = 0;  // kInjected, kHasBoundary
  static constexpr uint32_t kInjected = 1u << 0;
  static constexpr uint32_t kHasBoundary = 1u << 1;  // card_boundary holds a decoded marker
};
static_assert(std::is_trivially_copyable_v<CycleRecord>);
static_assert(sizeof(CycleRecord) == 56);

}  // namespace xrunlab
