// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What the virtual sound card (clients/card/vcard_pcm.cpp, loaded into jackd by alsa-lib), the
// clients and the engine share: the period grid, the period marker the card writes into its
// clock capture channel, and the layout of the card's shared-memory record.
//
// The grid. Period boundary m happens at exactly m * frames / rate seconds of CLOCK_MONOTONIC
// (the clock timerfd runs on); its timer deadline is that time rounded up to whole ns. Every
// party computes the same boundary times from (rate, frames) alone, so no start time has to be
// exchanged, and playback and capture, started at different moments, wake on the same instants.
//
// The marker. In the clock channel, the first four frames of each period the card delivers
// carry the index m of the boundary (the "interrupt") at which that period's data was complete:
// 16 bits per float (exact: floats hold integers below 2^24), then a check value. The process
// callback of a client connected to that channel reads the four floats (memory reads only) and
// so knows which interrupt its cycle serves, exactly, even after xruns.
//
// Header-only, no allocation, no system calls: everything here may run in realtime code.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace xrunlab::vcard {

// 128-bit intermediates (t * rate, m * frames * 1e9) cannot overflow; __extension__ keeps
// -Wpedantic quiet about the GCC/Clang type.
__extension__ typedef unsigned __int128 Uint128;

// The boundary index of time t: the largest m with boundary_ns(m) <= t.
// Realtime: wait-free, pure.
inline uint64_t boundary_index(uint64_t t_ns, uint32_t rate, uint32_t frames) noexcept {
  return static_cast<uint64_t>(static_cast<Uint128>(t_ns) * rate /
                               (static_cast<Uint128>(frames) * 1000000000u));
}

// Boundary m in CLOCK_MONOTONIC ns, rounded up (the first ns at or after the exact instant).
// Defined while the result fits in 64 bits (584 years of uptime).
// Realtime: wait-free, pure.
inline uint64_t boundary_ns(uint64_t m, uint32_t rate, uint32_t frames) noexcept {
  const Uint128 num = static_cast<Uint128>(m) * frames * 1000000000u;
  return static_cast<uint64_t>((num + rate - 1) / rate);
}

constexpr uint32_t kMarkerFrames = 4;
// The 4th marker float. Silence (an unconnected port) or audio never has it at frame 3 together
// with three integer words in 0..65535 before it, so a buffer without a marker is recognised.
constexpr float kMarkerCheck = 12345.0f;

// Writes the marker of boundary m into the first kMarkerFrames samples of a period (stride in
// floats between consecutive frames of the clock channel). Realtime: wait-free.
inline void write_marker(float* first, uint32_t stride, uint64_t m) noexcept {
  first[0] = static_cast<float>(m & 0xFFFFu);
  first[stride] = static_cast<float>((m >> 16) & 0xFFFFu);
  first[std::size_t{2} * stride] = static_cast<float>((m >> 32) & 0xFFFFu);
  first[std::size_t{3} * stride] = kMarkerCheck;
}

// Reads a marker from a JACK port buffer (contiguous floats). False when the buffer holds no
// marker (not connected to the card's clock channel, or not vcard). Realtime: wait-free.
inline bool read_marker(const float* buf, uint32_t nframes, uint64_t* m) noexcept {
  if (buf == nullptr || nframes < kMarkerFrames || buf[3] != kMarkerCheck) return false;
  uint64_t words[3];
  for (int i = 0; i < 3; ++i) {
    const float f = buf[i];
    if (!(f >= 0.0f && f <= 65535.0f) || f != static_cast<float>(static_cast<uint32_t>(f))) {
      return false;
    }
    words[i] = static_cast<uint32_t>(f);
  }
  *m = words[0] | (words[1] << 16) | (words[2] << 32);
  return true;
}

// ---- the card's shared-memory record -----------------------------------------------------
// One POSIX shm object per card (name given in the ALSA config), written by the card inside
// jackd with plain stores (no system calls), read by the engine and the clients. Each stream
// (0 = playback, 1 = capture) has one writer: jackd's driver thread.

constexpr uint32_t kShmMagic = 0x78726c76;  // "xrlv"
constexpr uint32_t kShmVersion = 1;
constexpr uint32_t kWakeSlots = 1u << 16;  // 65536 periods: 87 s at 64 frames, 48 kHz
constexpr uint32_t kXrunSlots = 1024;

// Jackd's wake-up for one boundary: the first time the card's poll_revents ran at or after it
// (with shared_timer: the first of either stream's after the same poll).
// Slot m % kWakeSlots holds boundary m. A seqlock with a single writer and no fences (so it is
// race-free in the C++ memory model and under ThreadSanitizer): the writer stores seq = 0, then
// the fields with release (ordered after the 0), then seq = m + 1 with release; the reader loads
// seq with acquire, the fields with acquire (ordered before what follows), then seq again, and
// keeps the record only if both seq reads are m + 1. See write_wake / read_wake.
struct WakeSlot {
  std::atomic<uint64_t> seq;      // m + 1 when valid, 0 while being written
  std::atomic<int64_t> ideal_ns;  // boundary_ns(m)
  std::atomic<int64_t> wake_ns;   // CLOCK_MONOTONIC when jackd's poll for it returned
};

// The card's side. Realtime: wait-free.
inline void write_wake(WakeSlot& slot, uint64_t m, int64_t ideal_ns, int64_t wake_ns) noexcept {
  slot.seq.store(0, std::memory_order_relaxed);
  slot.ideal_ns.store(ideal_ns, std::memory_order_release);
  slot.wake_ns.store(wake_ns, std::memory_order_release);
  slot.seq.store(m + 1, std::memory_order_release);
}

// A reader's side: the record of boundary m + 1 == seq, or false when the slot holds another
// boundary or is being written. Wait-free.
inline bool read_wake(const WakeSlot& slot, uint64_t* m, int64_t* ideal_ns,
                      int64_t* wake_ns) noexcept {
  const uint64_t seq = slot.seq.load(std::memory_order_acquire);
  if (seq == 0) return false;
  const int64_t ideal = slot.ideal_ns.load(std::memory_order_acquire);
  const int64_t wake = slot.wake_ns.load(std::memory_order_acquire);
  if (slot.seq.load(std::memory_order_relaxed) != seq) return false;
  *m = seq - 1;
  *ideal_ns = ideal;
  *wake_ns = wake;
  return true;
}

struct XrunEvent {
  uint64_t boundary;     // first boundary at which the stream was in xrun
  int64_t ideal_ns;      // boundary_ns(boundary)
  int64_t detected_ns;   // when the card reported it to jackd (-EPIPE / POLLERR)
  int64_t avail_frames;  // frames available at detection (>= the stop threshold)
};

struct StreamRecord {
  std::atomic<uint64_t> wakes_written;  // boundaries recorded so far (monotonic)
  std::atomic<uint64_t> xruns;          // xruns detected so far; events in xrun[n % kXrunSlots]
  std::atomic<uint64_t> starts;         // trigger starts (1 + restarts after xruns)
  std::atomic<uint64_t> timer_arms;     // timerfd_settime calls (a measure of card overhead)
  std::atomic<uint32_t> open;           // 1 while the PCM is open
  uint32_t channels;
  uint32_t period_frames;
  uint32_t buffer_frames;
  WakeSlot wake[kWakeSlots];
  XrunEvent xrun[kXrunSlots];
};

struct Shm {
  uint32_t magic;
  uint32_t version;
  uint32_t rate;
  uint32_t frames;
  StreamRecord stream[2];  // [0] playback, [1] capture
};
static_assert(std::atomic<uint64_t>::is_always_lock_free);
static_assert(std::atomic<uint32_t>::is_always_lock_free);
static_assert(std::atomic<int64_t>::is_always_lock_free);  // address-free: fine in shared memory
static_assert(std::is_standard_layout_v<Shm>);
static_assert(std::is_trivially_copyable_v<XrunEvent>);  // the reader copies events out

}  // namespace xrunlab::vcard
