#pragma once
// The engine's clock: CLOCK_MONOTONIC_RAW in microseconds, the clock JACK2's jack_get_time()
// uses on Linux (checked against jack_get_time() once the monitor is connected).
#include <time.h>

#include <cstdint>

namespace xrunlab {

inline uint64_t mono_raw_us() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

}  // namespace xrunlab
