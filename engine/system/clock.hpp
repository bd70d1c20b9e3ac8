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

// CLOCK_MONOTONIC in ns: the cycle table's clock and the kernel trace's "mono".
inline int64_t mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

// CLOCK_MONOTONIC minus CLOCK_MONOTONIC_RAW, in ns, now: maps JACK time (RAW) to the clock the
// vcard and the cycle table use (MONOTONIC). Both clocks are read back to back; NTP slewing
// between the two over a run is far below a period.
inline int64_t mono_minus_raw_ns() {
  timespec a{}, raw{}, b{};
  clock_gettime(CLOCK_MONOTONIC, &a);
  clock_gettime(CLOCK_MONOTONIC_RAW, &raw);
  clock_gettime(CLOCK_MONOTONIC, &b);
  auto ns = [](const timespec& t) { return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec; };
  return (ns(a) + ns(b)) / 2 - ns(raw);
}

}  // namespace xrunlab
