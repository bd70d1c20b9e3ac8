#pragma once
// What the per-run plots show, taken from the result model: the title, the run's context
// (policy, loads, period, spare time), how the timeline draws xruns and audible glitches
// (markers, or counts per second) and what its legend says of them, which clients get their own
// line, whether the delay histogram needs a log time axis, and the data files and arguments
// gnuplot is given (scripts/timeline.gp and histogram.gp say what each argument means). Every
// count a legend states is the run's true count, also where a list of the result model holds
// only the first events.
// Small pure functions, tested without gnuplot in tests/report/plot_data_test.cpp;
// engine/report/plots.cpp runs gnuplot on them. Non-realtime: used after a run and by
// `xrunlab plot`.
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
                                   // (the result's list: the first kXrunEventsKept only)
  uint64_t xruns_total = 0;        // every xrun event of the run (XrunCounts::events_total)
  std::vector<double> glitches_s;  // audible glitch times (the audible chain; the first
                                   // kGlitchesKept only)
  uint64_t glitches_total = 0;     // every glitch of the run (AudioResult::glitches_total)
  bool glitches_known = false;     // the run had an audio check
};

PlotContext plot_context(const RunResult& r);

// The second title line: "policy: ...   loads: ..." (parts that are unknown are left out).
std::string context_title(const PlotContext& c);

// How many events of one kind (xruns, audible glitches) a stretch of the run had.
struct EventCount {
  double from_s = 0, to_s = 0;  // seconds since the measurement started
  uint64_t count = 0;
};

// How the timeline draws one kind of event, and its legend entry.
struct TimelineEvents {
  enum class Draw { kNothing, kMarkers, kPerSecond };
  Draw draw = Draw::kNothing;
  std::vector<double> times_s;      // kMarkers: one marker per time
  std::vector<EventCount> seconds;  // kPerSecond: the counts, in time order (panel above)
  uint64_t peak = 0;                // kPerSecond: the largest count
  std::string key;                  // the legend entry with the run's true count; "" = none
};

// Events get one marker each up to this many; a busy run (an xrun every cycle is hundreds per
// second) would draw a solid block of markers that hides how many there were and when.
inline constexpr uint64_t kMaxEventMarkers = 200;

// True when events are drawn as counts per second rather than one marker each: more than
// kMaxEventMarkers of them, or the list of their times (`kept` long) holds only the first ones.
bool draw_per_second(uint64_t total, size_t kept);

// Times counted per whole second of the run ([s, s + 1) for s = floor(t)), in time order, one
// entry per second from the first time's to the last's (empty seconds included, count 0).
// Times that are not finite are left out.
std::vector<EventCount> count_per_second(const std::vector<double>& times_s);

// The timeline's xruns. Markers at the event times while draw_per_second is false, legend
// "xrun (N in the run)"; else counts per second (a panel above the timeline), legend "xruns
// per second (N in the run)", N = XrunCounts::events_total. The counts come from the system
// samples (SystemSecond::xruns, one bar per sample over [previous sample, t_s]; the first from
// 0), which cover the whole window; when the samples count none, from the event list: then, if
// it was cut, the legend says until when ("..., until 53.1 s (the first 10000 of 38037: the
// list ends there)"). Per-second counts that add up to less than N (xruns after the last
// sample, while the run stopped) are said: "(38037 in the run; 38012 of them in the seconds
// drawn)". Counted but neither listed nor sampled: nothing drawn, legend "xruns: N in the run,
// their times are not known". No xrun: nothing drawn, legend "no xruns in the run".
TimelineEvents timeline_xruns(const RunResult& r);

// The timeline's audible glitches, by the same rule: markers, legend "audible glitch (N in the
// run)"; or counts per second from the glitch list (in the panel of the xruns), legend
// "audible glitches per second (N in the run)" or, when the list was cut, "..., until T s (the
// first K of N: the list ends there)"; N = AudioResult::glitches_total. Counted, not listed:
// "audible glitches: N in the run, their times are not known". None: "no audible glitches".
// No audio check: nothing, no legend entry.
TimelineEvents timeline_glitches(const RunResult& r);

// The timeline's per-second event counts as a gnuplot data file: a header line
// "from_s,to_s,count", then one stretch per line (from and to with 6 decimals; commas, as
// timeseries.csv, which the script reads in the same mode).
std::string format_event_counts(const std::vector<EventCount>& counts);

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
//            xruns.dat and glitches.dat (format_xrun_times for markers, format_event_counts
//            for counts per second: timeline_xruns, timeline_glitches), histogram.dat (block 0
//            all clients together, then one block per picked client: format_histogram_blocks)
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
