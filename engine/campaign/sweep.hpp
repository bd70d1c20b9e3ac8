// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab sweep`: the smallest period (and, over a list of client counts, the envelope) that
// runs without dropouts, found by real runs. This file is the part without processes: the
// search over a grid of client counts x periods, and what its results say (the table, the
// recommendation with its confidence, the heatmap's data). engine/campaign/sweep_runner.hpp
// runs each step as a one-case campaign. Non-realtime.
//
// A step is one cell (clients, period): up to `repetitions` runs of `duration_s` each. It is
// clean when none of its runs had an xrun event (the cycle table's; docs/measurement.md, "Xrun
// events by cycle") or an audible glitch; the first run with either ends the step (it cannot be
// clean any more), so a dirty step costs one run, a clean one all of them.
//
// Searches, per client count (ascending), over the periods (ascending):
//   bisect      binary search for the smallest clean period, assuming a larger period is never
//               worse than a smaller one; ends with the smallest clean period and the largest
//               dirty one below it both measured (when they exist): ceil(log2(k + 1)) steps
//               for k periods. A larger client count starts where the smaller one ended: a
//               period dirty with fewer clients is taken as dirty with more (inferred, shown
//               as not measured).
//   descending  from the largest period down, stopping after the first dirty one
//   all         every cell (the full heatmap; nothing inferred)
//
// Confidence: with 0 events in T measured seconds, the rate is below 3/T per second at 95 %
// (the rule of three: P(0 events | rate 3/T) = e^-3 = 5 %); a dirty step's rate is its events
// per measured minute.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

struct SweepSpec {
  std::string name = "sweep";         // the folder's name under results/sweeps/
  std::vector<uint32_t> periods;      // frames, ascending, distinct
  std::vector<int> clients;           // ascending, distinct
  uint32_t rate = 48000;              // the runs' sample rate (for the periods in ms)
  double duration_s = 30;             // each run's measured seconds
  int repetitions = 3;                // runs of a clean step
  std::string search = "bisect";      // bisect | descending | all
  std::vector<std::string> run_args;  // given to every run (not --clients/--period/--duration)
};

// One measured step.
struct SweepStep {
  int clients = 0;
  uint32_t period = 0;
  int runs = 0;                      // finished runs counted (1 for a dirty step stopped early)
  double seconds = 0;                // their measured seconds, summed
  uint64_t xruns = 0;                // xrun events, summed
  std::optional<uint64_t> glitches;  // audible glitches, summed (absent: no audio check)
  // Dropouts: per run the larger of its xrun events and its glitches (one dropout is often
  // both, heard and reported), summed over the runs.
  uint64_t dropouts = 0;
  bool clean() const { return xruns == 0 && glitches.value_or(0) == 0; }
  double rate_per_min() const {
    return seconds > 0 ? static_cast<double>(dropouts) * 60.0 / seconds : 0.0;
  }
  // Clean: the rule of three's bound on the rate, per minute, at 95 %.
  double bound_per_min() const { return seconds > 0 ? 3.0 * 60.0 / seconds : 0.0; }
};

// What a step's measurement came to: the step, or the exit code that stopped the sweep
// (interrupted, a run failed).
struct StepOutcome {
  std::optional<SweepStep> step;
  int exit_code = 0;
};

using MeasureStep = std::function<StepOutcome(int clients, uint32_t period)>;

struct SweepGrid {
  std::vector<SweepStep> steps;  // in the order measured
  int exit_code = 0;             // non-zero: the search stopped there (steps so far are kept)
  const SweepStep* find(int clients, uint32_t period) const;
};

// Runs the search, calling `measure` once per step. Throws nothing of its own.
SweepGrid search_sweep(const SweepSpec& spec, const MeasureStep& measure);

// The smallest clean period of `clients` (nullopt: none), and the largest dirty one below it.
struct SweepAnswer {
  int clients = 0;
  const SweepStep* clean = nullptr;    // the smallest clean period measured
  const SweepStep* dirty = nullptr;    // the largest dirty period below it (or the largest dirty)
  bool smallest_listed_clean = false;  // the list has no smaller period to try
};
SweepAnswer sweep_answer(const SweepSpec& spec, const SweepGrid& grid, int clients);

// "256 frames at 48 kHz (5.3 ms)".
std::string period_text(uint32_t frames, uint32_t rate);
// "3 x 60 s" (runs x each), or "2 runs, 95 s" when they differ.
std::string runs_text(const SweepStep& s, double duration_s);

// The recommendation, one paragraph per client count, e.g. "14 clients: 256 frames at 48 kHz
// (5.3 ms): 0 dropouts in 3 x 60 s, fewer than 1.0 per minute at 95 % confidence (for fewer
// than 1 per hour, run 3 h without one). 128 frames: 4.1 dropouts per minute."
std::string sweep_recommendation(const SweepSpec& spec, const SweepGrid& grid);
// `xrunlab check`'s verdict, one paragraph a musician can act on, for the sweep's first client
// count: "This machine can run 14 clients at 30 % DSP load with 256-frame periods (5.3 ms at
// 48 kHz) without dropouts: 0 in 2 x 10 s, fewer than 9.0 per minute at 95 % confidence; at 128
// frames it dropped out 4.1 times a minute. Fix first: ..." `fix_first` ("" = nothing to fix)
// is appended as "Fix first: <fix_first>".
std::string check_verdict(const SweepSpec& spec, const SweepGrid& grid, double dsp_load_pct,
                          const std::string& fix_first);

// The table: one row per measured step.
std::string sweep_table(const SweepSpec& spec, const SweepGrid& grid);
nlohmann::json sweep_json(const SweepSpec& spec, const SweepGrid& grid);
// The heatmap's data for scripts/sweep.gp: "clients_index period_index rate label" rows, one
// per measured step (unmeasured cells are absent, drawn blank).
std::string sweep_heatmap_data(const SweepSpec& spec, const SweepGrid& grid);

// The settings that make two sweeps the same search (everything but the name and the rate).
nlohmann::json sweep_settings_json(const SweepSpec& spec);
// "sweep-<8 hex digits>": a hash of the settings that make the search (not the name), so that
// the same command finds its folder again and another one does not.
std::string default_sweep_name(const SweepSpec& spec);

// "64,128,256": ascending, distinct, each within [lo, hi]; throws Error(kUsage) naming `flag`.
std::vector<uint32_t> parse_positive_list(const std::string& flag, const std::string& text,
                                          uint32_t lo, uint32_t hi);

}  // namespace xrunlab
