// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab headroom`: at each period, how much DSP load the clients can run before the first
// dropout. This file is the part without processes: from each ramp's outcome (read from its
// run.json) to the statistics per cell, the table, the JSON, the one-line answers and the
// plot's data (scripts/headroom.gp). The runner starts the runs and calls gnuplot. Non-realtime.
//
// A cell is (clients, period); it holds `repetitions` ramps. A ramp is one run in which the
// clients' total DSP load (calibrated: stages x ns per stage, as % of the period) grows by
// step_pct every K cycles, until the cycle of the first xrun event (the cycle table's;
// docs/measurement.md, "Xrun events by cycle") or 100 %. The ramp's headroom is the nominal
// load in that cycle. A ramp that reached its end without an xrun is censored: its headroom is
// at least its reached load, and it is counted at that load (a lower bound; every statistic of a
// cell with a censored ramp is then a lower bound too, since raising a value never lowers an
// order statistic).
//
// The interval for a cell's median headroom is distribution-free (order statistics): with the
// n ramps' values ascending x_(1) <= ... <= x_(n), the pair (x_(k), x_(n+1-k)) holds the true
// median with probability 1 - 2 P(B <= k-1), B ~ Binomial(n, 1/2), whatever the distribution.
// The largest k whose coverage is at least 95 % gives the narrowest such interval:
//   n = 6:  k = 1, (x_(1), x_(6)) at 1 - 2/64 = 96.875 %
//   n = 10: k = 2, (x_(2), x_(9)) at 1 - 2 * 11/1024 = 97.85 % (k = 3 would be 89.06 %)
// Below 6 ramps no pair reaches 95 %: the interval is min..max with its real coverage, said
// with it (n = 5: 1 - 2/32 = 93.75 %; 4: 87.5 %; 3: 75 %; 2: 50 %), never called 95 %.
// One ramp has no interval.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/result/ramp.hpp"

namespace xrunlab {

struct HeadroomSpec {
  std::string name = "headroom";                              // folder under results/headroom/
  std::vector<uint32_t> periods = {64, 128, 256, 512, 1024};  // frames, ascending, distinct
  std::vector<int> clients = {14, 1};  // distinct, in the order given (the first one answers)
  int ports = 4;                       // ports per client
  uint32_t rate = 48000;
  int repetitions = 5;                // ramps per cell
  double step_pct = 1.0;              // total DSP load added per step, % of the period
  int every_cycles = 0;               // cycles per step; 0 = auto (ramp_every_cycles,
                                      // engine/result/ramp.hpp)
  bool explain = false;               // runs with --explain (kernel's reason per first xrun)
  std::vector<std::string> run_args;  // given to every run
};

// Refuses a spec that cannot make ramps, with Error(ExitCode::kUsage) and one line naming the
// setting: no period or client count, periods not ascending and distinct, a client count given
// twice or below 1, ports below 1, repetitions outside 1..1000, step_pct outside (0, 100],
// every_cycles below 0, rate 0.
void check_headroom_spec(const HeadroomSpec& spec);

// The effective K of the spec at a period.
int every_cycles_at(const HeadroomSpec& spec, uint32_t period);
// The longest a ramp can take at a period, in seconds (the ramp's window):
// ceil(100 / step_pct) steps (the last one reaches 100 %) x K cycles x period / rate.
double ramp_longest_s(const HeadroomSpec& spec, uint32_t period);

// One ramp (one run), as read from its run.json.
struct RampOutcome {
  int clients = 0;
  uint32_t period = 0;
  int rep = 0;                           // 1-based
  std::string run_dir;                   // relative to the headroom folder
  std::optional<double> first_xrun_pct;  // nominal load (total, % of the period) in the first
                                         // xrun cycle; nullopt: none (censored)
  double reached_pct = 0;                // the highest nominal load any cycle of the ramp ran
  std::optional<double> measured_pct;    // the DSP hops' p50 summed over clients, % of the
                                         // period, over the step before the first xrun (or the
                                         // last step)
  std::optional<double> nominal_pct;     // the calibrated nominal of that same step
  std::optional<RampBreak> broke;
};

// A ramp from its run.json (the whole document). Reads the top level's "status" (must be
// "completed"), "settings.clients" and "settings.frames" (the period), and the "ramp" section:
//   ended        "first_xrun": first_xrun_pct = ramp.first_xrun.load_pct (required),
//                measured_pct and nominal_pct = ramp.first_xrun.measured_pct / .nominal_pct,
//                broke = ramp.first_xrun.broke (each may be absent);
//                "full" (100 % without an xrun): censored; measured_pct and nominal_pct =
//                ramp.measured_pct / ramp.nominal_pct when there (the last step's);
//                "stopped" (the run ended otherwise): not usable
//   reached_pct  required
// rep and run_dir are not in run.json: the caller sets them. nullopt, with *why (may be null)
// set to one line saying what is missing or wrong, for a run that is not completed, has no
// "ramp" section, was stopped, or has a member of the wrong type. Never throws.
std::optional<RampOutcome> ramp_outcome_from_run_json(const nlohmann::json& run, std::string* why);

// The distribution-free interval for the median of n values, as ranks: (x_(k), x_(n+1-k)),
// 1-based, at coverage 1 - 2 P(Binomial(n, 1/2) <= k-1), computed exactly (binomial
// coefficients over 2^n). k is the largest with coverage >= 0.95; 1 (min..max, at its real
// coverage) when none reaches it; 0 (no interval) for n < 2.
struct MedianRanks {
  size_t k = 0;
  double coverage = 0;
};
MedianRanks median_interval_ranks(size_t n);

struct HeadroomCell {
  int clients = 0;
  uint32_t period = 0;
  int ramps = 0;     // usable outcomes
  int censored = 0;  // ramps that reached their end without an xrun (counted at their
                     // reached_pct, a lower bound)
  std::optional<double> median, min, max;           // of the first-xrun load (censored ramps at
                                                    // reached_pct)
  std::optional<double> ci_low, ci_high;            // distribution-free interval for the median
  double ci_coverage = 0;                           // its exact coverage (0: no interval)
  std::optional<double> measured_pct, nominal_pct;  // medians over the ramps that have them
  std::string broke_most;    // the label broken most often ("" none); ties: the one seen first
  int broke_most_count = 0;  // of the ramps with an xrun (ramps - censored)
  std::vector<std::pair<std::string, int>> broke_counts;  // label -> ramps, most first (ties:
                                                          // the one seen first)
};
// The statistics of the ramps of (clients, period), in the order given; ramps of other cells
// are ignored. A cell without ramps has ramps = 0 and nothing else.
HeadroomCell summarise_cell(int clients, uint32_t period, const std::vector<RampOutcome>& ramps);
// Every cell of the spec, client counts in the spec's order, periods ascending within each.
std::vector<HeadroomCell> summarise_cells(const HeadroomSpec& spec,
                                          const std::vector<RampOutcome>& ramps);

// The table: one row per cell (cells grouped by client count in the spec's order, periods
// ascending): period (frames and ms), clients, ramps, censored ramps, median headroom %
// (">= " with a censored ramp), the interval and its coverage, min..max, measured / nominal,
// the hop that broke most often, of the ramps with an xrun ("jackd's wake-up 3/5"). Above it
// the ramp ("Ramp: +1 % of the period every 30 cycles at 64 frames (40 ms), 15 at 128 (40 ms),
// ..."; with one K for every period "every 4 cycles (5.3 ms at 64 frames, ...)"), below it
// what the columns mean.
std::string headroom_table(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells);
// One line per period, for the spec's first client count (periods without a cell are left out):
//   "128 frames (2.7 ms): 71 % [68..74] of the period before the first dropout; most often
//   broken by jackd's wake-up"
// "at least 98 % [...]" with censored ramps, and after "dropout" "(2 of 5 ramps ran to the
// ramp's end without one)"; the coverage inside the brackets when below 95 % ("[68..74, 94 %]");
// "no usable ramp (see the table)" for a cell without one; no "most often" without a break.
std::string headroom_answers(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells);
// The cell's answer alone: "71 % [68..74]", "at least 71 % [68..74, 94 %]", "71 % (1 ramp)";
// "" for a cell without ramps. For `xrunlab check`'s verdict.
std::string headroom_answer_at(const HeadroomCell& cell);

// headroom.json's content: the name, the settings (headroom_settings_json), the rate, the ramp
// per period (K, step in ms, longest ramp in s), each cell (with its period_text and answer),
// each ramp (with its run_dir), the answers and "definitions": what headroom %, the interval,
// measured, nominal, censored and broke mean, in words.
nlohmann::json headroom_json(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells,
                             const std::vector<RampOutcome>& ramps);

// The plot's data for scripts/headroom.gp: one block per client count of the spec, in its order,
// blocks separated by two blank lines (gnuplot's `index`); each block starts with a comment
// "# <clients> clients" and has one row per cell with ramps, periods ascending:
//   period median ci_low ci_high min max ramps censored
// (a cell with one ramp has ci_low = ci_high = its median). A client count without such cells
// has one row "NaN NaN NaN NaN NaN NaN 0 0" (gnuplot skips it; an empty block would not count
// for `index`), so that index i is always the spec's i-th client count.
std::string headroom_plot_data(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells);

// The settings that make two headroom measurements the same (everything but the name and the
// rate, which run_args sets).
nlohmann::json headroom_settings_json(const HeadroomSpec& spec);
// "headroom-<8 hex digits>": a hash (FNV-1a) of headroom_settings_json, so that the same command
// finds its folder again and another one does not.
std::string default_headroom_name(const HeadroomSpec& spec);

}  // namespace xrunlab
