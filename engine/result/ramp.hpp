// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A DSP ramp's result (`xrunlab run --ramp`, the unit of `xrunlab headroom`): the clients' DSP
// load grows in calibrated steps within one run, and the run records the load at its first xrun
// event, exactly, from the cycle table: every client writes the DSP stages it ran into its cell
// of every cycle (engine/wire/cycle_table.hpp), so a cycle's load is
//
//   load % = sum over the clients of (stages x ns per stage) / period x 100
//
// with the engine's one calibration of a stage (the nominal, calibrated load; what the work
// would take alone on an idle CPU). A client that did not run in a cycle counts with the stages
// its ramp gives that cycle (every client computes its stages from the cycle's id alone:
// engine/wire/dsp_ramp.hpp), or, with its ramp unknown, with those of its last cycle. The first
// xrun is the window's first xrun cycle of the table (a missed deadline, a client that did not run,
// or a chain out of order: docs/measurement.md).
//
// Beside the nominal load, what the DSP work took in the step before the first xrun: the median
// over its cycles of the clients' DSP hops summed, as % of the period ("measured"); and which
// hop of the first xrun cycle was the latest against its own usual time, "the hop that broke":
// each hop's usual time is its median over the step before's cycles (a DSP hop's scaled to the
// stages it ran in the xrun cycle), or, when that step has no cycles, its median over the window
// so far (DSP: its nominal). Pure; non-realtime.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/cycle_hops.hpp"
#include "engine/result/explain_record.hpp"
#include "engine/wire/dsp_ramp.hpp"

namespace xrunlab {

// The hop of the first xrun cycle that was latest against its usual time.
struct RampBreak {
  std::string key;     // "jackd_wakeup", "wakeup.c03", "dsp.c03", "not_run.c03"
  std::string kind;    // "jackd_wakeup" | "client_wakeup" | "dsp" | "not_run"
  int client = 0;      // 1-based; 0 for jackd
  std::string label;   // "jackd's wake-up", "c03 wake-up", "c03 DSP", "c03 did not run"
  double late_us = 0;  // the hop minus its usual time (0 for not_run: nothing ran to time)
  std::string cause;   // the kernel's reason (--explain), one line; "" without
};

struct RampFirstXrun {
  uint64_t cycle = 0;                  // the table's cycle id
  double t_s = 0;                      // seconds since the window start
  uint64_t step = 0;                   // the ramp's step in that cycle (0: before the ramp started)
  double load_pct = 0;                 // the nominal load in that cycle (see above)
  std::optional<double> measured_pct;  // the step before: median of the summed DSP hops
  std::optional<double> nominal_pct;   // the step before: its nominal load
  std::optional<RampBreak> broke;      // absent when no client ran in the cycle
};

// run.json's "ramp" (null without --ramp).
struct RampRecord {
  double step_pct = 0;  // all clients together, % of the period per step
  uint32_t every = 0;   // cycles per step
  double ns_per_stage = 0;
  double start_pct = 0;                // the load before the ramp's first step (--dsp-load)
  double top_pct = 0;                  // where the ramp stops growing (100 %)
  std::optional<uint64_t> from_cycle;  // the ramp's first cycle (absent: it never started)
  // "first_xrun": it ended at its first xrun; "full": it reached its top without one (a lower
  // bound, the headroom is at least reached_pct); "stopped": the run ended otherwise (a signal,
  // a failure, a --duration too short to reach the top).
  std::string ended;
  double reached_pct = 0;  // the largest nominal load of any cycle
  std::optional<RampFirstXrun> first_xrun;
};

// Cycles per step when --ramp gives none: the cycles in 40 ms, at least 4, so that a ramp from
// 0 to 100 % in 1 % steps lasts about 4 s at every period up to 512 frames (48 kHz).
uint32_t ramp_every_cycles(uint32_t period, uint32_t rate);
// The seconds a ramp from `start_pct` to `top_pct` in steps of `step_pct` every `every` cycles
// takes at most.
double ramp_seconds(double start_pct, double top_pct, double step_pct, uint32_t every,
                    uint32_t period, uint32_t rate);

// One line for people: "first xrun at 71.0 % of the period (step 71 of +1 % every 30 cycles,
// cycle 1234 at 3.210 s); the step before measured 73.2 % against its nominal 70.0 %; broke: c03
// wake-up, 120 us later than usual", or what the ramp reached without one.
std::string ramp_text(const RampRecord& r);

// --explain's line for hop `key` of cycle `cycle` ("" when that cycle or hop was not explained;
// the cycle's line when the hop was not among its late ones).
std::string explained_cause(const ExplainRecord& explain, uint64_t cycle, const std::string& key);

// Follows the rows of the window (CycleJoiner feeds it each row as it joins it) and keeps what
// the record needs: the first xrun cycle, and the hops of the step before it.
class RampTracker {
 public:
  // `names`: the clients in chain order, as the hop series' keys name them ("c01").
  // `ramps`: each client's ramp in stages (absent or missing: unknown).
  RampTracker(std::vector<std::string> names, bool card, double ns_per_stage, double period_ns,
              uint32_t every, std::vector<std::optional<DspRampStages>> ramps = {});

  // The ramp's first cycle (what the engine sent the clients).
  void set_from(uint64_t id) { from_ = id; }
  std::optional<uint64_t> from() const { return from_; }
  // One joined row of the window, in id order, with each client's stages (read only where the
  // client ran).
  void add(const CycleRow& row, const std::vector<uint32_t>& stages);
  bool has_first_xrun() const { return first_.has_value(); }
  // The first xrun cycle as joined (nullptr: none yet), for --explain.
  const CycleRow* first_row() const { return first_ ? &first_->row : nullptr; }
  double reached_pct() const { return pct(max_total_); }

  // The first xrun (nullopt: none yet). `hops`: the window's hop series (the fallback for the
  // usual times, see the header).
  std::optional<RampFirstXrun> first_xrun(const std::vector<HopSeries>& hops) const;

 private:
  // The hops of one row, in the order: jackd's wake-up, then per client its wake-up and DSP.
  // A hop not measured in the row is NaN.
  std::vector<double> hop_values_ns(const CycleRow& row) const;
  double pct(uint64_t stages) const;
  uint64_t total_stages(const std::vector<uint32_t>& stages, const CycleRow& row);

  struct Level {
    uint64_t total = std::numeric_limits<uint64_t>::max();  // its summed stages
    std::vector<std::vector<double>> hops;                  // per hop: its values (ns)
    std::vector<double> dsp_sum_ns;                         // per row: the DSP hops summed
    std::vector<uint32_t> stages;                           // per client
  };
  struct First {
    CycleRow row;
    std::vector<uint32_t> stages;
    uint64_t total = 0;
    Level before;  // the level before the xrun cycle's (empty: none)
  };

  std::vector<std::string> names_;
  size_t clients_;
  bool card_;
  double ns_per_stage_, period_ns_;
  uint32_t every_;
  std::optional<uint64_t> from_;
  std::vector<std::optional<DspRampStages>> ramps_;
  std::vector<uint32_t> last_stages_;
  uint64_t max_total_ = 0;
  Level current_, previous_;
  std::optional<First> first_;
};

}  // namespace xrunlab
