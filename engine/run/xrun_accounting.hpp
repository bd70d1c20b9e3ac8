// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The run's xrun reports, counted against the cycle table's xrun events while the window goes
// on and once more at its end. The reports come from a source (the monitor's JACK2 xrun
// callbacks and jackd's "xrun" log lines, engine/run/runner.hpp: SessionXrunSource); the counting
// and the forgetting of settled events is XrunLedger's (engine/result/xrun_ledger.hpp). This unit
// decides when: every poll settles what is 2 s old, a run with the audio check settles nothing
// until its glitch list is full and tied to its events, and reports after the window's end are
// left out. Non-realtime: the run's own thread.
#include <cstdint>
#include <vector>

#include "engine/result/cycle_join.hpp"
#include "engine/result/result.hpp"
#include "engine/result/xrun_ledger.hpp"
#include "engine/run/live_result.hpp"

namespace xrunlab {

// Where the reports come from. Each take hands over what arrived since the last one.
class XrunReportSource {
 public:
  virtual ~XrunReportSource() = default;
  // The monitor's callbacks; `cut`: it dropped some (its list was full).
  virtual void take_callbacks(std::vector<XrunCallback>& out, bool* cut) = 0;
  // jackd's xrun lines (arrival in seconds since the window start, whom they named); `cut` as
  // above.
  virtual void take_log_lines(std::vector<XrunLogLine>& lines, bool* cut) = 0;
  // Every xrun event jackd's log showed so far (for tying glitches to them).
  virtual std::vector<LogXrunEvent> log_events() = 0;
};

class XrunAccounting {
 public:
  // The margin behind "now" up to which events are final: the reports' clocks and the table's
  // differ by microseconds, and a report is stamped a moment before it is handed over.
  static constexpr double kSettleMarginS = 2.0;

  explicit XrunAccounting(XrunReportSource& source) : source_(source) {}

  // With the audio check, the glitches are matched against the events: none is forgotten before
  // the glitch list is full and tied to them.
  void set_audio(bool on);

  // During the window, `now_s` into it: takes the new reports, then counts and forgets the
  // events whose reports have all arrived. `live`'s audio result is read (and, once its glitch
  // list is full, tied to the events) under its lock. `period_ms` is the server's period.
  void settle(CycleJoiner& joiner, LiveResult& live, double now_s, double period_ms);

  // Reports after this JACK time (µs) are not counted: the window's end and a margin for late
  // notifications of its last cycle.
  void close_at(uint64_t until_us) { until_us_ = until_us; }
  // The window's start in JACK time (µs): the callbacks' arrival times count from it.
  void open_at(uint64_t t0_us) { ledger_.set_window_start_us(t0_us); }

  // The reports not yet counted, the new ones taken first. `horizon` (a checkpoint) leaves out
  // reports newer than the last row read.
  XrunReports pending(const CycleJoiner& joiner, bool horizon);

  // Counts `reports` and the settled events against the joiner's xrun events into `r`
  // (r.xrun_cycles; with the audio check, each glitch's cycle).
  void count(RunResult& r, const CycleJoiner& joiner, const XrunReports& reports) const;

  const XrunLedger& ledger() const { return ledger_; }

 private:
  void take();

  XrunReportSource& source_;
  XrunLedger ledger_;
  bool audio_ = false;
  uint64_t until_us_ = UINT64_MAX;
};

}  // namespace xrunlab
