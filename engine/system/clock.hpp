// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The engine's clocks. The monotonic one: CLOCK_MONOTONIC_RAW in microseconds, the clock
// JACK2's jack_get_time() uses on Linux (checked against jack_get_time() once the monitor is
// connected).
#include <time.h>

#include <cstdint>
#include <ctime>
#include <string>

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

// The wall clock in UTC, formatted with strftime's FORMAT (at most 63 characters).
inline std::string utc_now(const char* format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// The wall clock in UTC as ISO 8601 to the second: run.json's started_utc and ended_utc.
inline std::string utc_now_iso() {
  return utc_now("%Y-%m-%dT%H:%M:%SZ");
}

}  // namespace xrunlab
