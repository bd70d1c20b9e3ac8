// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The xrun reports of a run (the monitor's JACK2 callbacks, jackd's log lines), counted against
// the cycle table's xrun events while the run goes on, so that a long run of sustained xruns
// keeps only its last seconds of events and reports instead of all of them (keeping them all
// grew the engine by 32.6 MiB an hour with an xrun every few cycles).
//
// An event is settled once no report still to come can fall to it: each settle() tallies the
// events before event k (engine/result/xrun_cycles.hpp's batch functions, on those events and
// the reports that fall to them or before every event), adds the tallies into running sums and
// forgets those events, their reports and their frame times. counted() merges the sums with a
// tally of what is left, which gives exactly the figures of counting everything at once
// (tests/result/xrun_ledger_test.cpp checks it on random runs cut into random pieces).
//
// Which k is safe: a report that arrives after the moment T has
//  * (monitor) JACK's frame time at arrival: the cycle being processed at T or later, or the
//    cycle before a stall going on at T, so it falls to the latest event that began before T
//    or a later one;
//  * (log) an arrival after T, so it falls to the latest event whose deadline passed before T
//    or a later one.
// So with T taken before the reports are handed over, every event before the latest one whose
// deadline is before T is final. settle() is given T less a margin (the callers' 2 s): the
// reports' clocks (jack_get_time, the hub's arrival stamps) and the table's (the card's
// CLOCK_MONOTONIC) differ by microseconds, and a line is stamped a moment before it is handed
// over.
//
// The audible chain: a glitch carries its event, and the engine keeps the first
// kGlitchesKept glitches (result.hpp). While that list has room, a glitch still to come may fall
// to any event, so a run with the audio check settles nothing. Once the list is full, no later
// glitch is kept: freeze_audio() ties the kept ones to their events once and for all (when
// every event up to the last one they fall to is final) and settling starts. A run whose tail
// hears fewer glitches than that keeps its events to the end. Non-realtime; one thread.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/result/cycle_join.hpp"
#include "engine/result/result.hpp"
#include "engine/result/xrun_causes.hpp"
#include "engine/result/xrun_cycles.hpp"

namespace xrunlab {

class XrunLedger {
 public:
  // At most this many reports per source wait to be settled; more are dropped and the list is
  // cut (judged up to its last report, as SourceTally::until_s says).
  static constexpr size_t kMaxPending = size_t{1} << 21;

  // Hands over new reports, in arrival order; `cut`: the source already dropped some.
  void add_callbacks(std::vector<XrunCallback>&& callbacks, bool cut);
  void add_log_lines(const std::vector<XrunLogLine>& lines, bool cut);
  // The window's start in JACK time (µs): callbacks' arrival times are counted from it.
  void set_window_start_us(uint64_t t0_us) { t0_us_ = t0_us; }
  // Callbacks after this JACK time (µs) are not counted (the window's end).
  void set_until_us(uint64_t until_us) { until_us_ = until_us; }

  // A run with the audio check: nothing is settled before freeze_audio() succeeded.
  void set_audio(bool on) { audio_ = on; }
  bool audio_frozen() const { return settled_.audio.has_value(); }
  // When the glitch list is full (at least `glitches_limit`, the most the result keeps) and
  // every event up to the last one its glitches fall to is final by `before_s` (as for
  // settle()), counts the glitches against the events (count_glitches: each glitch's fields,
  // who was late by `log_events`, jackd's log events so far) and keeps that count. True once
  // done. Call before anything is settled.
  bool freeze_audio(const CycleJoiner& joiner, AudioResult& audio,
                    const std::vector<LogXrunEvent>& log_events, double before_s,
                    size_t glitches_limit, double period_ms);

  // Settles the events before the latest one whose deadline is at or before `before_s`
  // (seconds since the window start; see the header comment for which moment is safe) and
  // forgets them in `joiner`. Returns how many it settled. Does nothing once a list is cut, nor
  // with the audio check before freeze_audio().
  size_t settle(CycleJoiner& joiner, double before_s, double period_ms);

  // The reports still held, each mapped to its cycle. `horizon`: only those the rows read so
  // far can place (a checkpoint). The final count takes all but the reports of cycles after the
  // window's last row that no event of the window explains (an xrun after the window is not
  // the window's, nor an event outside its chain).
  XrunReports pending(const CycleJoiner& joiner, bool horizon) const;
  const SettledXruns& settled() const { return settled_; }
  // Who made the settled events, and the outside events among them.
  const XrunAttribution& settled_causes() const { return settled_causes_; }
  size_t pending_callbacks() const { return callbacks_.size(); }
  size_t pending_log_lines() const { return log_.size(); }

 private:
  double t_s_of(uint64_t t_us) const {
    return t_us >= t0_us_ ? static_cast<double>(t_us - t0_us_) / 1e6
                          : -static_cast<double>(t0_us_ - t_us) / 1e6;
  }

  std::vector<XrunCallback> callbacks_;
  bool callbacks_cut_ = false;
  std::vector<XrunLogLine> log_;
  bool log_cut_ = false;
  uint64_t until_us_ = UINT64_MAX;
  uint64_t t0_us_ = 0;
  bool audio_ = false;
  SettledXruns settled_;
  XrunAttribution settled_causes_;
};

}  // namespace xrunlab
