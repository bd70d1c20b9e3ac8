#pragma once
// What the per-run plots show, taken from the result model: the title, the run's context
// (policy, loads, period, spare time, xrun and glitch times), which clients get their own line,
// whether the delay histogram needs a log time axis, and the data files and arguments gnuplot
// is given (scripts/timeline.gp and histogram.gp say what each argument means). Small pure
// functions, tested without gnuplot in tests/report/plot_data_test.cpp; engine/report/plots.cpp
// runs gnuplot on them. Non-realtime: used after a run and by `xrunlab plot`.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/report/run_file.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// The first title line of every plot of a run, the same for a run and for `xrunlab plot`:
// "<label>: <clients> clients x <ports> ports, <frames> frames @ <rate> Hz, <backend>, <status>"
// (label "run" when the spec has none; backend "dummy" when the result names none: runs from
// before --backend).
std::string plot_title(const RunResult& r);

struct PlotContext {
  std::string policy;              // the scheduling label, e.g. "SCHED_FIFO 70 (server) / ..."
  std::string loads;               // "compile, hackbench" from loads[].spec (else .kind); "none"
                                   // when the run had none; "" when the result does not say
  double period_us = 0;            // 0 = unknown (also for values that are not finite or > 0)
  double spare_us = 0;             // 0 = unknown
  double resolution_us = 0;        // delay resolution; 0 = unknown (1 usec)
  std::vector<double> xruns_s;     // xrun event times, seconds since the measurement started
  std::vector<double> glitches_s;  // audible glitch times (the audible chain)
  bool glitches_known = false;     // the run had an audio check
};

PlotContext plot_context(const RunResult& r);

// The second title line: "policy: ...   loads: ..." (parts that are unknown are left out).
std::string context_title(const PlotContext& c);

// The clients drawn one by one: all of them when there are at most 3, else the first, the
// middle (the ((n-1)/2)-th of the sorted indices) and the last. Input need not be sorted.
std::vector<int> pick_clients(std::vector<int> clients);

// What the plots draw of the per-second series and the delay histograms.
struct PlotSeries {
  std::vector<int> clients;                  // every client index with per-second rows, ascending
  size_t delay_points = 0;                   // seconds whose "all" row has a delay maximum
  size_t system_points = 0;                  // seconds with a system sample
  std::map<int64_t, uint64_t> delay_counts;  // all clients together
  std::map<int, std::map<int64_t, uint64_t>> delay_by_client;  // client index -> histogram
  size_t histogram_points = 0;  // (client, value) pairs of the delay histograms
};
// From the timeseries rows (engine/report/report_csv.hpp timeseries_seconds) and the clients'
// delay histograms (Histogram::nonzero(): negative values, kept only as a count, are not drawn).
PlotSeries plot_series(const RunResult& r);

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

// Event times as a gnuplot data file: a header line "t_s" (the scripts read data files with
// column headers), then one time per line, 6 decimals.
std::string format_xrun_times(const std::vector<double>& times_s);

// The largest step between two recorded delay values that a histogram line may bridge: one
// reference tick (the delay resolution, 20.8 usecs on the dummy backend) and a half, at least
// 1 usec.
int64_t histogram_max_gap_us(double resolution_us);

// Histograms (delay in usecs -> cycles) as one gnuplot data block each, "value count" per line,
// blocks in the given order and separated by two blank lines (select them with `index`). Inside
// a block a blank line where two recorded values are more than max_gap_us apart, so a line is
// not drawn across delays that never occurred. An empty histogram gives a block "NaN NaN".
std::string format_histogram_blocks(const std::vector<std::map<int64_t, uint64_t>>& histograms,
                                    int64_t max_gap_us);

// Everything gnuplot is given for the plots of one run, drawn in folder `dir` (an absolute
// path: gnuplot reads a file name starting with '<' as a command):
//   data     the data files, named inside `dir`: timeseries.csv (format_timeseries_csv),
//            xruns.dat and glitches.dat (format_xrun_times), histogram.dat (block 0 all clients
//            together, then one block per picked client: format_histogram_blocks)
//   scripts  the script names without ".gp" ("timeline", "histogram"); each draws
//            dir/<name>.png
//   args     per script, its arguments after the script (scripts/<name>.gp lists them)
struct PlotInputs {
  std::vector<RunFile> data;
  std::vector<std::string> scripts;
  std::vector<std::vector<std::string>> args;
};
PlotInputs plot_inputs(const RunResult& r, const std::string& dir);

}  // namespace xrunlab
