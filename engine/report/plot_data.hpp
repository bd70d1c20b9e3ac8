// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What the per-run plots show, taken from the result model: the title, the run's context
// (policy, loads, period, spare time), how the timeline draws xruns and audible glitches
// (markers, or counts per second) and what its legend says of them, which clients get their own
// line, the latency plot's series and legend, and the data files and arguments gnuplot is given
// (scripts/timeline.gp and latency.gp say what each argument means). Every count a legend states
// is the run's true count, also where a list of the result model holds only the first events.
// Small pure functions, tested without gnuplot in tests/report/plot_data_test.cpp;
// engine/report/plots.cpp runs gnuplot on them. Non-realtime: used after a run and by
// `xrunlab plot`.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/report/plot_format.hpp"
#include "engine/report/run_file.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// The first title line of every plot of a run, the same for a run and for `xrunlab plot`:
// "<label>: <clients> clients x <ports> ports, <frames> frames @ <rate> Hz, <backend>, <status>"
// (label "run" when the spec has none; backend "dummy" when the result names none: runs from
// before --backend).
std::string plot_title(const RunResult& r);

struct PlotContext {
  std::string policy;        // the scheduling label, e.g. "SCHED_FIFO 70 (server) / ..."
  std::string loads;         // "compile, hackbench" from loads[].spec (else .kind); "none"
                             // when the run had none; "" when the result does not say
  double period_us = 0;      // 0 = unknown (also for values that are not finite or > 0)
  double spare_us = 0;       // 0 = unknown
  double resolution_us = 0;  // delay resolution; 0 = unknown (1 usec)
  // The xrun events drawn: the run's one count, the cycle table's xrun events (each the first
  // of its consecutive missed rows), whenever the table kept every missed row; else JACK2's
  // notifications to the monitor (their list: the first kXrunEventsKept only).
  bool xruns_by_table = false;
  std::vector<double> xruns_s;  // their times, seconds since the measurement started
  uint64_t xruns_total = 0;     // every one of them in the run
  // Without the table's events drawn: the run's count (the table's), when it has one.
  std::optional<uint64_t> table_events;
  uint64_t outside_events = 0;     // xruns_by_table: of xruns_total, those outside the chain
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

// One line of the latency plot (plots/latency.png): a distribution in 1 usec bins.
struct LatencySeries {
  // Its style in scripts/latency.gp: jackd_wakeup, client_wakeup, client_wakeup_worst, dsp,
  // cycle, slack (from the cycle table); delay_all, delay_1, delay_2, delay_3 (callback delays).
  std::string style;
  std::string key;                     // legend: what, how many values, the maximum, not drawn
  std::map<int64_t, uint64_t> counts;  // value (usecs) -> count: what is drawn
  uint64_t count = 0;                  // every value, drawn or not
  std::optional<int64_t> max;          // the largest value known
  uint64_t below_zero = 0;             // values < 0: counted, not drawn (not kept as values)
  uint64_t above_bound = 0;            // values above the bound that were counted, not kept
};

struct LatencyPlot {
  bool hops = false;   // from the cycle table; false: the clients' callback delays
  std::string what;    // the plot's line under the run's title
  std::string xlabel;  // what the time axis shows ("latency"; latency.gp adds the unit)
  std::vector<LatencySeries> series;  // in drawing order
};

// The latency plot's series. With the cycle table (r.cycle_table.present), one line per hop kind
// in the cycle's order, each kind's hops merged (Histogram::merge): "jackd_wakeup" (interrupt
// -> jackd wake-up; on backends that measure it), "client_wakeup" (every client's wake-up
// latency; with more than one client also the worst client's alone, the one with the largest
// maximum, first of equals), "dsp" (every client's DSP time), "cycle", "slack" (its negative
// values, the missed deadlines, are only counted: the legend says "N cycles below 0 (deadline
// missed, not drawn)"). A kind with no hop is left out. Without the table (older run.json,
// backends without it), the clients' callback delays against the interrupt: all clients
// together and the picked clients (pick_clients). Legend entries: "<what>: <count>
// cycles (or callbacks, for merged clients), max <max> µs", plus what is not drawn.
LatencyPlot latency_plot(const RunResult& r);

// The clients drawn one by one: all of them when there are at most 3, else the first, the
// middle (the ((n-1)/2)-th of the sorted indices) and the last. Input need not be sorted.
std::vector<int> pick_clients(std::vector<int> clients);

// What the timeline draws of the per-second series.
struct PlotSeries {
  std::vector<int> clients;  // every client index with per-second rows, ascending
  size_t delay_points = 0;   // seconds whose "all" row has a delay maximum
  size_t system_points = 0;  // seconds with a system sample
};
// From the timeseries rows (engine/report/report_csv.hpp timeseries_seconds).
PlotSeries plot_series(const RunResult& r);

// Summary of a distribution (value in usecs -> count).
struct DelaySpread {
  uint64_t count = 0;
  int64_t min = 0, max = 0;
  int64_t p99 = 0;  // smallest value with at least 99% of the count at or below it
};
DelaySpread delay_spread(const std::map<int64_t, uint64_t>& counts);

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

// True when the latency plot's time axis should be logarithmic: its largest value drawn lies
// more than 10x beyond both the period (the deadline; 0 = unknown) and the body of the values
// (the 99th percentile of all series together, taken as at least 10 usecs), so that on a linear
// axis everything else would be squeezed into the first tenth of the plot. False when nothing
// is drawn.
bool latency_axis_needs_log(const LatencyPlot& p, double period_us);

// Everything gnuplot is given for the plots of one run, drawn in folder `dir` (an absolute
// path: gnuplot reads a file name starting with '<' as a command):
//   data     the data files, named inside `dir`: timeseries.csv (format_timeseries_csv),
//            xruns.dat and glitches.dat (format_xrun_times for markers, format_event_counts
//            for counts per second: timeline_xruns, timeline_glitches), latency.dat (one block
//            per latency_plot series: format_histogram_blocks)
//   scripts  the script names without ".gp" ("timeline", "latency"); each draws
//            dir/<name>.png, or dir/<name>.svg for `format` svg (plot_file)
//   args     per script, its arguments after the script (scripts/<name>.gp lists them)
struct PlotInputs {
  std::vector<RunFile> data;
  std::vector<std::string> scripts;
  std::vector<std::vector<std::string>> args;
};
PlotInputs plot_inputs(const RunResult& r, const std::string& dir,
                       PlotFormat format = PlotFormat::kPng);

// The waterfall's note for one cycle of run.json's explain.cycles: its latest hop named as the
// summary names it ("jackd's wake-up", "c03's wake-up", "c01's DSP") and, in a few words, what
// took most of its window: "woken late" (the thread was not runnable yet: its timer or upstream
// was late), the largest blocker ("cc1plus pid 4242 350 us"), the thread itself on its CPU
// ("itself on its CPU 2690 us": the trace saw it running, yet it had not reached its
// callback), "nothing competed", or "no trace".
// "" for a cycle without hops.
std::string explain_note(const ExplainedCycle& cycle);

}  // namespace xrunlab
