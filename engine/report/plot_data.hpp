#pragma once
// What the per-run plots need besides the CSV files: the run's context from run.json (policy,
// loads, period, spare time, xrun event times), which clients get their own line, and whether
// the delay histogram needs a log time axis. Small pure functions, tested without gnuplot in
// tests/report/plot_data_test.cpp; engine/report/plots.cpp turns them into gnuplot arguments and
// data files. Nothing here throws: a run.json that is missing, damaged or from an older schema
// gives an empty context and a note. Non-realtime: used by the engine after a run.
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace xrunlab {

struct PlotContext {
  std::string policy;              // scheduling.label, e.g. "SCHED_FIFO 70 (server) / 65 (clients)"
  std::string loads;               // "compile, hackbench" from loads[].spec; "none" when the run
                                   // had none; "" when run.json does not say
  double period_us = 0;            // settings.period_us; 0 = unknown
  double spare_us = 0;             // settings.spare_time_us; 0 = unknown
  double resolution_us = 0;        // measurement.delay_resolution_us; 0 = unknown (1 usec)
  std::vector<double> xruns_s;     // xruns.events[].t_s, seconds since the measurement started
  bool xruns_known = false;        // run.json has xruns.events (an empty list means no xruns)
  std::vector<double> glitches_s;  // audio.glitch_list[].t_s (the audible chain)
  bool glitches_known = false;     // run.json has an audio check
  std::string note;                // why run.json gave nothing (for a warning); "" when it was read
};

// Reads the fields above from a parsed run.json. Missing or mistyped fields stay empty / 0.
PlotContext plot_context_from_json(const nlohmann::json& run);

// Reads and parses run_dir/run.json. A missing or unparsable file gives an empty context with
// `note` saying so.
PlotContext read_plot_context(const std::string& run_json_path);

// The second title line: "policy: ...   loads: ..." (parts that are unknown are left out).
std::string context_title(const PlotContext& c);

// The clients drawn one by one: all of them when there are at most 3, else the first, the
// middle (the ((n-1)/2)-th of the sorted indices) and the last. Input need not be sorted.
std::vector<int> pick_clients(std::vector<int> clients);

// Summary of a delay histogram (value in usecs -> cycles), all clients together.
struct DelaySpread {
  uint64_t count = 0;
  int64_t min = 0, max = 0;
  int64_t p99 = 0;  // smallest value with at least 99% of the cycles at or below it
};
DelaySpread delay_spread(const std::map<int64_t, uint64_t>& counts);

// True when the histogram's time axis should be logarithmic: the worst delay lies more than
// 10x beyond the body of the distribution (max > 10 * max(p99, 10 usecs)), so that on a linear
// axis the body would be squeezed into the first tenth of the plot. False for empty input.
bool delay_axis_needs_log(const DelaySpread& s);

// The xrun times as a gnuplot data file: a header line "t_s" (the scripts read data files with
// column headers), then one time per line, 6 decimals.
std::string format_xrun_times(const std::vector<double>& times_s);

// The largest step between two recorded delay values that a histogram line may bridge: one
// reference tick (measurement.delay_resolution_us, 20.8 usecs on the dummy backend) and a half,
// at least 1 usec.
int64_t histogram_max_gap_us(double resolution_us);

// Histograms (delay in usecs -> cycles) as one gnuplot data block each, "value count" per line,
// blocks in the given order and separated by two blank lines (select them with `index`). Inside
// a block a blank line where two recorded values are more than max_gap_us apart, so a line is
// not drawn across delays that never occurred. An empty histogram gives a block "NaN NaN".
std::string format_histogram_blocks(const std::vector<std::map<int64_t, uint64_t>>& histograms,
                                    int64_t max_gap_us);

}  // namespace xrunlab
