// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// timeseries.csv and histogram.csv: the per-second series and the per-client histograms of
// one run, for spreadsheets, gnuplot (scripts/timeline.gp reads timeseries.csv) and scripts.
// RFC 4180 layout with '\n' line ends; empty optionals are empty cells; real numbers have 3
// decimals.
// histogram.csv is also read back here (the histograms are in no other file). Non-realtime:
// used by the engine after (or during) a run and by `xrunlab plot`.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/result/result.hpp"

namespace xrunlab {

// Header:
//   second,client,cycles,delay_min_us,delay_mean_us,delay_max_us,duration_max_us,cycle_max_us,
//   over_spare,over_1000,late,user_pct,nice_pct,system_pct,iowait_pct,irq_pct,softirq_pct,
//   intr_per_s,ctxt_per_s,dsp_load_pct,xruns
// Seconds ascending. For each second: one row per client that reported it (client = its
// 1-based index, ascending; the system columns empty), then one row with client "all":
//   cycles, over_spare, over_1000, late   sums over the clients' rows of that second
//   delay_min_us                           minimum of the clients' minima
//   delay_mean_us                          mean of the clients' means weighted by their cycles
//   delay/duration/cycle max               maximum of the clients' maxima
//   system columns                         the SystemSecond of that second (system_second_of),
//                                          empty when there is none
// A second with a system sample and no client rows still gets its "all" row (cycles 0).
std::string format_timeseries_csv(const RunResult& r);

// One second of timeseries.csv, as the model gives it: the rows above without their text.
// Pointers into the RunResult it was made from.
struct TimeseriesSecond {
  int64_t second = 0;
  std::vector<std::pair<int, const ClientSecond*>> clients;  // (client index, row), ascending
  ClientSecond all;                                          // the "all" row's client columns
  const SystemSecond* system = nullptr;                      // its system columns; none: empty
};
std::vector<TimeseriesSecond> timeseries_seconds(const RunResult& r);

// The second of the measurement window a system sample belongs to. A SystemSecond covers the
// second that ends at t_s, so it is counted in the second holding the middle of that interval:
// floor(t_s - 0.5). This tolerates a sampler that wakes late or early by up to half a second
// (floor(t_s - 1e-9) would move a sample taken 1 ms late into the next second, and the position
// in r.system would shift every later second after one missed sample). nullopt for a sample
// whose interval lies mostly before the window (t_s < 0.5) or t_s that is not finite. When two
// samples fall into the same second, the timeseries uses the first.
std::optional<int64_t> system_second_of(double t_s);

// Header: client,metric,value_us,count
// For each client (in result order), for each metric delay, delay_dll, duration, cycle: one
// row per non-empty bin (Histogram::nonzero(), values ascending), then
//   <metric>_underflow,        count of negative values (the histogram keeps no values below 0)
//   <metric>_overflow_dropped, count of values above the bound that were counted but not kept
// each with an empty value_us and only when the count is not zero. The counts of a client's
// metric rows therefore add up to the histogram's count.
std::string format_histogram_csv(const RunResult& r);

// The histograms of one client that histogram.csv holds.
struct ClientHistograms {
  Histogram delay, delay_dll, duration, cycle;
};

// Reads histogram.csv back: client index -> its histograms, every row restored (values into
// their bins or overflow list, the underflow and overflow_dropped rows as values known only by
// number, Histogram::add_unknown), so format_histogram_csv writes the same rows again. Empty
// lines are skipped. nullopt with *why (may be null; "line N: ...") when the header or a row is
// not in the format above.
std::optional<std::map<int, ClientHistograms>> parse_histogram_csv(std::string_view text,
                                                                   std::string* why);

}  // namespace xrunlab
