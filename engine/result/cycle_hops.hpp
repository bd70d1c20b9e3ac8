// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Every cycle decomposed hop by hop, as the result model keeps it.
//
// One cycle (one period boundary m, "the interrupt") is joined across all clients from the
// cycle table (engine/wire/cycle_table.hpp): each client's callback entry and exit, and, on
// vcard, jackd's wake-up for m from the card's record. Its hops, in order, add up exactly to
// its cycle time (the last client's exit minus the interrupt):
//
//   interrupt -> jackd wake-up          (vcard: the card's record; else not measured)
//   jackd wake-up -> c01 entry          jackd's capture read and signal + c01's wake-up latency
//   c01 entry -> c01 exit               c01's DSP time
//   c01 exit -> c02 entry               c02's wake-up latency after its upstream signalled
//   ...
//   cNN entry -> cNN exit               cNN's DSP time          (= the cycle's end)
//   cycle end -> deadline               slack (negative: the deadline was missed)
//
// The deadline is the next interrupt (m + 1): in JACK2's asynchronous mode the driver checks
// at its next wake-up whether the graph finished. All times are integer nanoseconds relative
// to the interrupt; the distributions are in whole microseconds (rounded toward minus
// infinity), the worst rows keep the nanoseconds.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/histogram.hpp"

namespace xrunlab {

// The distribution of one hop over every cycle of the window in which it happened.
struct HopSeries {
  std::string key;    // stable id: "jackd_wakeup", "wakeup.c01", "dsp.c01", "cycle", "slack"
  std::string kind;   // "jackd_wakeup" | "client_wakeup" | "dsp" | "cycle" | "slack"
  std::string label;  // for people: "interrupt -> jackd wake-up", "c02 wake-up", "c02 DSP", ...
  int client = 0;     // 1-based chain position for client hops, 0 otherwise
  Histogram us;       // 1 usec bins; the slack's also below 0, to -kSlackNegativeBoundUs
};

// How far below 0 the slack hop keeps 1 usec bins (a deadline missed by up to 20 ms), so that
// its low percentiles stay exact in a run that misses deadlines; beyond, only the count and
// the least value.
inline constexpr uint32_t kSlackNegativeBoundUs = Histogram::kDefaultBoundUs;

// One client's part of one cycle.
struct CycleClient {
  bool ran = false;      // false: no callback of this client served this boundary
  int64_t entry_ns = 0;  // callback entry, relative to the interrupt (when ran)
  int64_t exit_ns = 0;   // callback exit, relative to the interrupt (when ran)
};

// One whole cycle, kept for the worst ones (by slack) and for every cycle that missed its
// deadline or in which a client did not run (bounded: see CycleTableResult).
struct CycleRow {
  uint64_t id = 0;  // boundary index (vcard) or jack_last_frame_time / period (others)
  double t_s = 0;   // the interrupt, seconds since the window start
  std::optional<int64_t> jackd_wake_ns;  // relative to the interrupt (vcard)
  std::vector<CycleClient> clients;      // chain order
  int64_t deadline_ns = 0;               // the next interrupt, relative to this one (the period)
  std::optional<int64_t> end_ns;         // the last exit of the cycle (absent: a client did
                                         // not run); the chain's tail's, if in chain order
  std::optional<int64_t> slack_ns;       // deadline - end
  // A client entered before its upstream exited: after a stall JACK2 may start a client from
  // its upstream's late signal for the previous cycle, so it read that cycle's buffers, not
  // this one's. Its wake-up hop has no upstream exit to be measured from and is not counted.
  bool out_of_order = false;
  bool missed = false;  // slack < 0, out of chain order, or a client did not run
};

// What the engine joined from the cycle table over the measurement window.
struct CycleTableResult {
  bool present = false;           // false: no table (an older record, or the table failed)
  std::string time_source;        // where the interrupt and jackd's wake-up come from, in words
  double resolution_us = 0;       // of the interrupt and jackd wake-up times (0.001 = 1 ns)
  uint64_t cycles = 0;            // rows in the window
  uint64_t complete = 0;          // rows in which every client ran
  uint64_t missed = 0;            // rows with slack < 0, out of chain order, or a client that did
                                  // not run: deadline_missed + out_of_order + rows with a client
                                  // that did not run
  uint64_t deadline_missed = 0;   // complete rows with slack < 0
  uint64_t out_of_order = 0;      // complete rows with slack >= 0 but out of chain order
  uint64_t rows_lost = 0;         // rows overwritten before the engine read them (never expected)
  uint64_t no_jackd_wake = 0;     // card rows without jackd's wake-up (it restarted the streams
                                  // after an xrun instead of waking for those boundaries)
  std::vector<uint64_t> not_run;  // per client (chain order): cycles in which it did not run
  std::vector<uint64_t> not_run_first;  // per client: cycles in which it was the first not to run
  std::vector<HopSeries> hops;          // in chain order: jackd, then per client, cycle, slack
  // Per client: DSP time against its calibrated nominal time (the 2004 RT-preempt figures).
  struct DspNominal {
    int client = 0;
    double nominal_us = 0;        // the calibrated target
    double overhead_p50_pct = 0;  // (p50 DSP - nominal) / nominal
    double overhead_max_pct = 0;  // (max DSP - nominal) / nominal
    double within_100us_pct = 0;  // share of cycles with |DSP - nominal| <= 100 usecs
  };
  std::vector<DspNominal> dsp_nominal;
  std::vector<CycleRow> worst;        // the N worst by slack, worst first
  std::vector<CycleRow> missed_rows;  // the first missed cycles, in time order (bounded)
  uint64_t missed_rows_total = 0;     // all of them (missed_rows holds at most the bound)
};

}  // namespace xrunlab
