// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Joins the cycle table's rows (engine/wire/cycle_table.hpp) into the hop decomposition of the
// result model (engine/result/cycle_hops.hpp), and derives jack_test's fields with JACK1's rules
// from jackd's wake-ups (JackTestFields in engine/result/result.hpp, docs/jack_test-fields.md).
//
// Pure: the engine's reader (engine/run/cycle_table_reader.hpp) feeds it the rows of the
// measurement window in cycle order; unit tests feed it rows made by hand. Non-realtime.
//
// JACK1's rules, applied to jackd's first wake-up after each boundary (poll_ret):
//  * delayed_usecs = poll_ret - (previous poll_ret + period) when positive; a wake-up that
//    serves several boundaries at once is one poll_ret; no delay is accounted for the first
//    wake-up after a driver xrun (JACK1 restarts the stream and clears poll_next) or after a
//    cycle that ended past the next due interrupt (JACK1: poll_enter > poll_next);
//  * every rolling_interval = floor(1024000 / period_us) cycles, max_usecs = the largest cycle
//    time (jackd's wake-up to the last client's exit) of the last 32 cycles; spare = period -
//    max_usecs (0 when max_usecs >= period); cpu_load = (1 - spare / period) * 50 + cpu_load *
//    0.5; Cycle Maximum = the largest max_usecs;
//  * "delay of D usecs exceeds estimated spare time of S" when S > 0 and D >= S; Delay Count
//    (>1000 usecs) counts those with D > 1000;
//  * Delay Maximum = the largest of every delayed_usecs and every driver xrun's duration
//    (ALSA's trigger time stamp at the xrun to its detection).
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/cycle_hops.hpp"
#include "engine/result/ramp.hpp"
#include "engine/result/result.hpp"
#include "engine/result/xrun_cycles.hpp"

namespace xrunlab {

struct JoinConfig {
  uint32_t rate = 48000;
  uint32_t frames = 256;
  bool card = false;  // the interrupt and jackd's wake-up come from the vcard's record
  std::string time_source;
  // The first hop's origin: the server whose wake-up starts each cycle.
  std::string server_wake = "jackd wake-up";
  double resolution_us = 0;
  std::vector<std::string> client_names;  // chain order; their count is the column count
  std::vector<double> dsp_nominal_us;     // per client: the calibrated DSP target (0: unknown)
  size_t worst_keep = 16;                 // worst cycles by slack kept whole
  size_t missed_keep = 1000;              // missed cycles kept whole (the first ones)
  // --ramp: one DSP stage's calibrated time and the ramp's cycles per step (engine/result/
  // ramp.hpp); absent: no ramp followed.
  struct Ramp {
    double ns_per_stage = 0;
    uint32_t every = 1;
    // Per client (chain order): its ramp in stages, as its hello said (absent: unknown), for the
    // stages of a cycle in which it did not run.
    std::vector<std::optional<DspRampStages>> clients;
  };
  std::optional<Ramp> ramp;
};

struct JoinCell {
  bool ran = false;
  int64_t entry_ns = 0, exit_ns = 0;  // CLOCK_MONOTONIC
  int64_t wake_ns = 0;                // jackd's wake-up as this client saw it (1 frame)
  uint32_t frame = 0;                 // jack_last_frame_time() in its callback
  uint32_t stages = 0;                // the DSP stages it ran
};

struct JoinRow {
  uint64_t id = 0;
  std::optional<int64_t> interrupt_ns;   // card: the boundary's ideal time
  std::optional<int64_t> jackd_wake_ns;  // card: jackd's first wake-up at or after it
  std::vector<JoinCell> cells;           // chain order
};

class CycleJoiner {
 public:
  explicit CycleJoiner(JoinConfig config);

  // Times of the rows' t_s are seconds after this (the window start, CLOCK_MONOTONIC ns).
  void set_origin(int64_t origin_ns) { origin_ns_ = origin_ns; }
  // A driver xrun (card record): the stream entered xrun at start_ns, jackd learnt at
  // detected_ns. Give each before the rows that follow its detection.
  void add_driver_xrun(int64_t start_ns, int64_t detected_ns);
  // The rows of the window, in increasing id order.
  void add(const JoinRow& row);
  // Rows that were overwritten before they could be read.
  void add_lost(uint64_t rows) { lost_ += rows; }

  // --ramp (config.ramp): the ramp's first cycle, as sent to the clients.
  void set_ramp_from(uint64_t id) {
    if (ramp_) ramp_->set_from(id);
  }
  // The ramp followed so far (nullptr without config.ramp), and its first xrun.
  const RampTracker* ramp() const { return ramp_ ? &*ramp_ : nullptr; }
  std::optional<RampFirstXrun> ramp_first_xrun() const {
    return ramp_ ? ramp_->first_xrun(hops_) : std::nullopt;
  }

  CycleTableResult table() const;
  JackTestFields jack_test() const;

  int64_t period_ns() const { return period_ns_; }
  // The xrun events (runs of consecutive missed rows) and the frame-time -> cycle map, for
  // counting the other xrun sources against the table (engine/result/xrun_cycles.hpp).
  const std::vector<XrunRun>& xrun_runs() const { return runs_.runs(); }
  const FrameCycleMap& frames() const { return frames_; }
  const XrunRunBuilder& xrun_runs_builder() const { return runs_; }
  // The first `n` events are counted (XrunLedger): forgets them and the frame times before
  // the next event's cycle (all but its own). Needs n < xrun_runs().size().
  void forget_xrun_events(size_t n);

  // Figures kept up to date by add(), for a live display during the run: table() copies every
  // histogram, too much to call each second.
  // The xrun cycles so far: rows that missed their deadline, ran out of chain order or in
  // which a client did not run (table().missed).
  uint64_t missed() const { return missed_; }
  // The smallest slack of a complete row so far (negative: a missed deadline); nullopt before
  // the first complete row.
  std::optional<int64_t> slack_min_ns() const { return slack_min_ns_; }

 private:
  struct Jack1 {
    std::optional<int64_t> prev_wake;
    bool prev_overran = false;    // the previous cycle ended past the next due interrupt
    bool restart = false;         // a driver xrun since the previous wake-up
    std::vector<double> rolling;  // JACK_ENGINE_ROLLING_COUNT cycle times (usecs)
    size_t rolling_index = 0;
    uint64_t rolling_count = 0;
    uint64_t interval = 1;
    double spare_us = 0;
    double cpu_load = 0;
    double load_sum = 0;
    uint64_t checkpoints = 0;
    std::optional<double> cycle_max_us, cycle_max_all_us, delay_max_us, spare_min_us;
    uint64_t wakes = 0, over_spare = 0, over_1000 = 0;
  };
  void jack1_wake(int64_t wake_ns, std::optional<int64_t> end_ns);
  void keep_row(const CycleRow& row);

  JoinConfig config_;
  int64_t period_ns_ = 0;
  double period_us_ = 0;
  int64_t origin_ns_ = 0;
  size_t jackd_hop_ = 0, cycle_hop_ = 0, slack_hop_ = 0;  // indexes into hops_
  std::vector<HopSeries> hops_;
  uint64_t cycles_ = 0, complete_ = 0, missed_ = 0, deadline_missed_ = 0, out_of_order_ = 0;
  uint64_t lost_ = 0;
  uint64_t no_wake_ = 0;
  std::optional<int64_t> slack_min_ns_;
  std::vector<uint64_t> not_run_, not_run_first_;
  std::vector<CycleRow> worst_;  // kept sorted by slack, ascending, at most worst_keep
  std::vector<CycleRow> missed_rows_;
  std::deque<int64_t> xruns_detected_;
  std::optional<int64_t> last_wake_seen_;
  Jack1 j1_;
  FrameCycleMap frames_;
  XrunRunBuilder runs_;
  std::optional<RampTracker> ramp_;
};

}  // namespace xrunlab
