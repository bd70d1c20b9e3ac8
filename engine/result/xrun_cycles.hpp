// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Xrun events keyed by their cycle: the cycle table (engine/result/cycle_hops.hpp)
// says exactly which cycles were xruns; every other source of xrun reports (the monitor's JACK2
// xrun callbacks, jackd's log lines, the tail's audible glitches) is counted against them.
//
//  * An xrun cycle is a row of the table that missed its deadline or in which a client did not
//    run. An xrun event is a run of consecutive xrun cycles: JACK reports a stall of many
//    periods once, and the sources are counted against events, not cycles.
//  * A monitor callback carries jack_last_frame_time() at its arrival; the table's cells carry
//    the frame time of each cycle, so the arrival is a cycle A, exactly. JACK2 reports a late
//    client once the cycle's deadline has passed, in a later cycle's frame time (A > the
//    missed cycle); it reports a driver xrun before it counts the next cycle, in the frame
//    time of the last cycle it processed (A = the cycle before the xrun's first). So the
//    callback reports the latest event whose first cycle is at most A + 1.
//  * A jackd log line has only its arrival time: it reports the latest event whose deadline
//    (the interrupt after its first cycle) passed before it arrived.
//  * A glitch carries the frame time of the tail's cycle that heard it, X. It is explained by
//    the latest event whose first cycle is at or before X, when X is inside the event or one of
//    the kHeardWithinCycles cycles after it (the tail hears a missed cycle in the first cycle it
//    runs after it, and a replayed block in the one after that).
//  * A monitor callback or a log line arriving more than report_lag_cycles() after the event's
//    last cycle is not that event's: JACK2 notifies the monitor within a cycle or two of the
//    deadline and prints its line then, so a report that late is an xrun the chain did not
//    have (a foreign client's: engine/result/xrun_causes.hpp).
//  * A report that falls before every event is a report with no xrun cycle. An event that no
//    report of a source falls to is one that source missed: each is named (the first ones).
//
// Where the rule is exact and where it is not: a report is tied to the right event whenever it
// arrives before the next event begins and within the lag bound. A report delayed past the
// start of the next event is counted for that one; a report delayed past the bound (a monitor
// starved of CPU for longer than it) counts as an xrun outside the chain (the lag figures show
// how late reports came). Pure; non-realtime.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xrunlab {

// How late a report may arrive after an event's last cycle and still be the event's: at least
// kReportLagCycles cycles, and at least kReportLagMs.
inline constexpr uint64_t kReportLagCycles = 4;
inline constexpr double kReportLagMs = 50;
uint64_t report_lag_cycles(double period_ms);

// An xrun event: consecutive xrun cycles of the table.
struct XrunRun {
  uint64_t first = 0, last = 0;  // cycle ids (boundary or frame time / period)
  double t_s = 0;                // the first cycle's interrupt (card) or jackd wake-up, seconds
                                 // since the window start
  double deadline_t_s = 0;       // the first cycle's deadline: the next interrupt
  bool time_estimated = false;   // no client ran and no card: the times are extrapolated
  uint64_t cycles() const { return last - first + 1; }
};

// JACK frame time -> the table's cycle id, learnt from the frame times the clients wrote into
// their cells. Within a stretch where JACK's frame counter advanced by one period per cycle one
// anchor serves; JACK2 moves the counter on after an xrun, which starts a new anchor.
class FrameCycleMap {
 public:
  explicit FrameCycleMap(uint32_t period_frames = 1) : period_(period_frames ? period_frames : 1) {}
  // The rows' frame times, in increasing id order.
  void add(uint64_t id, uint32_t frame);
  // The cycle that frame time belongs to; nullopt before the first row. A frame past a
  // stretch's last row but before the next stretch belongs to the cycle just before the next
  // stretch's first row: JACK advances its counter only for the cycles it processes, so after
  // a stall (rows without any client) the counter resumes where it stood. Frames after the
  // last row are extrapolated at one period per cycle.
  std::optional<uint64_t> cycle(uint32_t frame) const;
  bool empty() const { return anchors_.empty(); }
  // Forgets the stretches wholly before cycle `id`: frames of `id` and later map as before,
  // older ones no longer do (XrunLedger drops them once counted).
  void drop_before(uint64_t id);
  size_t anchors() const { return anchors_.size(); }

 private:
  struct Anchor {
    uint64_t id;
    int64_t frame;     // unwrapped (JACK's counter wraps after 2^32 frames)
    uint64_t last_id;  // the stretch's last row with a frame time
  };
  int64_t unwrap(uint32_t frame, int64_t near) const {
    return near + static_cast<int32_t>(frame - static_cast<uint32_t>(near));
  }
  uint32_t period_;
  std::vector<Anchor> anchors_;
  uint64_t last_id_ = 0;
  int64_t last_frame_ = 0;
};

// Builds the events from the table's rows (CycleJoiner feeds it).
class XrunRunBuilder {
 public:
  // Every row of the window in id order: whether it is an xrun cycle, and its time (nullopt:
  // no client ran and no card gives the interrupt).
  void add(uint64_t id, bool xrun, std::optional<double> t_s, double period_s);
  // The events not yet dropped; the first drop_front() removes the first `n` of them.
  const std::vector<XrunRun>& runs() const { return runs_; }
  void drop_front(size_t n);
  uint64_t cycles() const { return cycles_; }
  std::optional<uint64_t> last_id() const { return last_id_; }    // the newest row added
  std::optional<uint64_t> first_id() const { return first_id_; }  // the window's first row
  std::optional<double> last_t_s() const {                        // the newest row with a time
    if (!last_time_) return std::nullopt;
    return last_time_->second;
  }

 private:
  std::vector<XrunRun> runs_;
  uint64_t cycles_ = 0;
  std::optional<uint64_t> last_id_, first_id_;
  std::optional<std::pair<uint64_t, double>> last_time_;  // the last row with a known time
};

// One source of xrun reports counted against the table's events.
struct SourceTally {
  static constexpr size_t kMissedNamed = 1000;  // missed events named (the first ones)
  std::string key;                              // "monitor" | "jackd_log" | "audio"
  std::string label;                            // for people
  std::string unit;                        // what one report is: "callbacks", "lines", "glitches"
  std::string rule;                        // how a report is tied to an event, in words
  uint64_t reports = 0;                    // the reports considered
  uint64_t reports_unmatched = 0;          // reports no xrun event explains
  uint64_t events_judged = 0;              // events this source could report (see `until_s`)
  uint64_t events_reported = 0;            // ... that at least one report fell to
  uint64_t events_missed = 0;              // ... that none did
  std::vector<XrunRun> missed;             // the first kMissedNamed of them, in time order
  std::optional<uint64_t> lag_max_cycles;  // monitor: arrival cycle - the first cycle's deadline
  std::optional<double> lag_max_ms;        // log: arrival - the first cycle's deadline
  // The source's list was cut (a bounded list): events after its last report are not judged.
  std::optional<double> until_s;
};

struct XrunCycles {
  static constexpr int kHeardWithinCycles = 2;
  bool present = false;  // false: no cycle table (older record, or it failed)
  uint64_t cycles = 0;   // xrun cycles in the window (the table's missed rows)
  uint64_t events = 0;   // runs of consecutive xrun cycles (the chain's xrun events)
  // Xrun events JACK reported that no event of the chain explains (engine/result/
  // xrun_causes.hpp); the run's count is both.
  uint64_t outside_events = 0;
  uint64_t total_events() const { return events + outside_events; }
  std::vector<SourceTally> sources;
};

// One xrun callback of the monitor (engine/jack/monitor.hpp) as it arrived.
struct XrunCallback {
  uint64_t t_us = 0;   // jack_get_time() at arrival
  uint32_t frame = 0;  // jack_last_frame_time() at arrival
};

// The events a running count has tallied and forgotten (XrunLedger, engine/result/xrun_ledger.hpp).
struct SettledXruns {
  uint64_t events = 0;             // events tallied and forgotten
  uint64_t cycles = 0;             // their xrun cycles
  std::optional<double> last_t_s;  // the last of them (a cut list judges at least up to it)
  SourceTally monitor, log;        // their reports' tallies (key, label, ... left empty)
  // The audible chain, counted once its glitch list was full (XrunLedger::freeze_audio): no
  // later glitch is kept, so no later event is the list's to report. `tally` judged the events
  // up to the last one a kept glitch fell to, as for a cut list, and each glitch's fields were
  // set then.
  struct Audio {
    SourceTally tally;
    std::vector<XrunRun> missed_after;  // the first events after those, settled since
  };
  std::optional<Audio> audio;
};

// `rest` (the events after those of `settled`) added to `settled`'s counts: sums, the first
// kMissedNamed missed events of both, the larger lags; a cut list's `until_s` at least the last
// settled event. Takes key, label, unit and rule from `rest`.
SourceTally merge_tallies(const SourceTally& settled, std::optional<double> settled_last_t_s,
                          const SourceTally& rest);

// The index of the event a report falls to (see the header comment), or nullopt.
// `lag_cycles`: report_lag_cycles() of the run's period.
std::optional<size_t> event_of_arrival_cycle(const std::vector<XrunRun>& runs, uint64_t cycle,
                                             uint64_t lag_cycles);
std::optional<size_t> event_of_arrival_time(const std::vector<XrunRun>& runs, double t_s,
                                            double period_ms);
std::optional<size_t> event_of_heard_cycle(const std::vector<XrunRun>& runs, uint64_t cycle);
// The latest event that began at or before `cycle` (how far a glitch in it judges a cut list).
std::optional<size_t> event_of_heard_cycle_or_before(const std::vector<XrunRun>& runs,
                                                     uint64_t cycle);

// Monitor: each callback's arrival cycle (nullopt: its frame is before the table). `cut`: the
// list holds only the first callbacks.
SourceTally tally_arrival_cycles(const std::vector<XrunRun>& runs,
                                 const std::vector<std::optional<uint64_t>>& arrivals, bool cut,
                                 double period_ms);
// jackd's log: each xrun line's arrival, seconds since the window start.
SourceTally tally_arrival_times(const std::vector<XrunRun>& runs, const std::vector<double>& t_s,
                                bool cut, double period_ms);
// Glitches: each glitch's cycle (nullopt: not a cycle of the table, so unexplained); `events_of`
// receives, per glitch, the index of the event that explains it.
SourceTally tally_heard_cycles(const std::vector<XrunRun>& runs,
                               const std::vector<std::optional<uint64_t>>& heard, bool cut,
                               std::vector<std::optional<size_t>>* events_of);

}  // namespace xrunlab
