// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Non-realtime side of a client: turns CycleRecords (in callback order) into exact per-second
// telemetry for the measurement window [start, stop). Memory is bounded by one second of
// cycles, whatever the run length. Pure logic with no JACK calls, so it is unit-tested with
// synthetic records.
//
// The window's end comes in two ways: planned (the engine says it with the start: the end
// unless the run stops early) and final (a stop command, or --duration). A cycle is counted
// only once it is certain to lie inside the window: before the final stop, or, while the end
// is only planned, once it is older than kHoldUs - an early stop, which the engine sends the
// moment it decides to stop, has arrived by then. So no cycle that began after the planned end
// is ever counted, and none after an early end unless its stop command took over kHoldUs.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>

#include "clients/rt/cycle_record.hpp"
#include "engine/wire/telemetry.hpp"

namespace xrunlab {

class CycleStats {
 public:
  using Emit = std::function<void(const telemetry::Message&)>;
  static constexpr size_t kWorstPerSecond = telemetry::kWorstPerSecond;
  // How long a cycle is held back while the window's end is only planned: far longer than the
  // engine's stop command takes to reach the client (its loop wakes every 10 ms, the client's
  // command reader every 20 ms), short enough that each second still reaches the engine's
  // first checkpoint, 1.5 s into the window.
  static constexpr uint64_t kHoldUs = 200000;

  // Where a cycle's period starts (the "interrupt" the delay is measured from).
  enum class Reference {
    kFrames,  // t_entry - frames_since_cycle_start (dummy: since the driver thread woke)
    kDll,     // t_entry - jack_get_cycle_times current_usecs (JACK's DLL estimate)
    kCard,    // t_entry (CLOCK_MONOTONIC) - the vcard boundary named by the cycle's marker
  };
  // The vcard's record of when jackd woke for boundary m (CLOCK_MONOTONIC ns); false if unknown.
  using WakeLookup = std::function<bool(uint64_t m, int64_t* wake_ns)>;

  CycleStats(int index, uint32_t rate, uint32_t frames, Emit emit);
  void set_reference(Reference r, WakeLookup wake = nullptr) {
    reference_ = r;
    wake_ = std::move(wake);
  }

  void set_start(uint64_t t0_us) { start_us_ = t0_us; }
  // The end the window will have unless a final stop comes earlier.
  void set_planned_stop(uint64_t t1_us) { planned_stop_us_ = t1_us; }
  // The window's end, final.
  void set_stop(uint64_t t1_us) { stop_us_ = t1_us; }
  bool started() const { return start_us_.has_value(); }
  bool finished() const { return finished_; }

  // Records must come in callback order. A record at or after the final stop ends the window.
  void consume(const CycleRecord& r);
  // Call periodically with the current JACK time: counts the records older than kHoldUs, and
  // once the (planned or final) stop time has passed by `grace` (a callback may still be
  // running), flushes the last second and emits Final. Returns finished().
  bool poll(uint64_t now_us, uint64_t grace_us);
  // Flush now (shutdown): counts what is held back, emits the partial second and Final.
  void finish();

  void add_ring_dropped(uint64_t n) { ring_dropped_ = n; }
  uint64_t cycles_total() const { return cycles_total_; }
  uint64_t cycles_measured() const { return cycles_measured_; }

  // The conversions, exposed for tests.
  int64_t frames_to_us(uint32_t frames) const;
  int64_t period_us() const { return frames_to_us(frames_); }
  static int64_t floor_div_1000(int64_t ns);  // ns -> µs, rounded down (also below zero)

 private:
  void emit_current();
  void begin_second(int64_t second);
  void count(const CycleRecord& r);        // one cycle into the statistics, if inside the window
  std::optional<uint64_t> end_us() const;  // the final stop, else the planned one

  int index_;
  Reference reference_ = Reference::kFrames;
  WakeLookup wake_;
  uint32_t rate_;
  uint32_t frames_;
  Emit emit_;
  std::optional<uint64_t> start_us_;
  std::optional<uint64_t> stop_us_;
  std::optional<uint64_t> planned_stop_us_;
  std::deque<CycleRecord> held_;  // consumed, not yet certain to be inside the window
  std::optional<telemetry::Second> current_;
  uint64_t cycles_total_ = 0;
  uint64_t cycles_measured_ = 0;
  uint64_t injected_ = 0;
  uint64_t ring_dropped_ = 0;
  bool finished_ = false;
};

}  // namespace xrunlab
