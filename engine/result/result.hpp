// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The one result model of a run. Every writer (summary.txt, run.json, CSV, plots) reads it.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/backend_record.hpp"
#include "engine/result/cycle_hops.hpp"
#include "engine/result/explain_record.hpp"
#include "engine/result/histogram.hpp"
#include "engine/result/host_record.hpp"
#include "engine/result/load_record.hpp"
#include "engine/result/ramp.hpp"
#include "engine/result/run_records.hpp"
#include "engine/result/run_spec.hpp"
#include "engine/result/run_status.hpp"
#include "engine/result/xrun_causes.hpp"
#include "engine/result/xrun_cycles.hpp"
#include "engine/wire/telemetry.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {

// run.json keeps the first xrun events and the first audible glitches, at most this many of each
// (a run with xruns every cycle has hundreds per second); the counts beside the lists are of
// every event.
inline constexpr size_t kXrunEventsKept = 10000;
inline constexpr size_t kGlitchesKept = 10000;
// Each client's worst cycles: the worst kWorstCyclesKept by delay, chosen from the
// telemetry::kWorstPerSecond worst cycles each second reported.
inline constexpr size_t kWorstCyclesKept = 10;

// One client's second (from its telemetry).
struct ClientSecond {
  int64_t second = 0;
  uint64_t cycles = 0;
  std::optional<int64_t> delay_min_us, delay_max_us;
  std::optional<double> delay_mean_us;
  std::optional<int64_t> duration_max_us, cycle_max_us;
  uint64_t over_spare = 0, over_1000 = 0, late = 0;
};

// What run.json keeps of a client's histograms (it has no room for the histograms themselves:
// those are in histogram.csv).
struct ClientSummaries {
  MetricSummary delay, delay_dll, signal, duration, cycle;
};

struct ClientResult {
  int index = 0;
  std::string name;
  int64_t pid = 0;
  bool hello = false;       // the client connected and activated
  bool final = false;       // the client sent its totals (a clean stop)
  std::string error;        // a client-reported error or its exit status when abnormal
  int64_t rt_tid = 0;       // the client's JACK process thread
  std::string sched_error;  // the client could not apply the policy to it
  int dsp_stages = 0;
  double dsp_target_us = 0;
  double dsp_ns_per_stage = 0;
  std::optional<DspRampStages> ramp;  // --ramp: its stages per step (hello; not in run.json)
  uint64_t cycles = 0;                // measured cycles (sum of the seconds)
  uint64_t cycles_total = 0;          // from Final: every callback since activation
  uint64_t ring_dropped = 0;
  uint64_t injected = 0;
  uint64_t over_spare = 0, over_1000 = 0, late = 0;
  Histogram delay, delay_dll, duration, cycle;
  Histogram signal;           // vcard: entry - jackd's wake-up for the same card boundary
  uint64_t unreferenced = 0;  // cycles with no usable reference (excluded from delay)
  std::vector<telemetry::WorstCycle> worst;  // worst first, at most kWorstCyclesKept
  std::vector<ClientSecond> seconds;
  ClientSummaries summary;  // derived from the histograms by finalize(); what the writers show
  // The connections of its ports as it read them from JACK while the run wired the graph (its
  // "connections" reply; not in run.json, whose graph is built from them).
  std::optional<std::vector<std::pair<std::string, std::string>>> connections;
};

// Adds one second of telemetry to a client result (exact merge).
void add_second(ClientResult& c, const telemetry::Second& s, size_t worst_keep = kWorstCyclesKept);

// Averages of /proc/stat and of JACK's DSP load over one second of the run.
struct SystemSecond {
  double t_s = 0;  // seconds since the window start (end of the sampled interval)
  double user_pct = 0, nice_pct = 0, system_pct = 0, iowait_pct = 0, irq_pct = 0, softirq_pct = 0;
  double intr_per_s = 0, ctxt_per_s = 0;
  std::optional<double> dsp_load_pct;  // jack_cpu_load()
  uint64_t xruns = 0;                  // xrun events counted by the monitor in this second
  // Share of the elapsed CPU time (ncpus x wall) that /proc/stat accounted in this interval;
  // far below 100 means the kernel's tick-based accounting missed time and the % are unreliable.
  std::optional<double> cpu_accounted_pct;
};

// What finalize() needs of system seconds: their sums and counts. A run that moved seconds out
// of memory into its seconds.jsonl (engine/report/seconds_file.hpp) keeps theirs here.
struct SystemSums {
  uint64_t n = 0;
  double user_pct = 0, nice_pct = 0, system_pct = 0, iowait_pct = 0, irq_pct = 0, softirq_pct = 0;
  double intr_per_s = 0, ctxt_per_s = 0;
  double dsp_load_pct = 0;
  uint64_t dsp_n = 0;
  uint64_t short_accounted = 0;  // seconds with cpu_accounted_pct < 90
  double least_accounted = 100;  // the least cpu_accounted_pct among them
};
void add_to(SystemSums& sums, const SystemSecond& s);

struct XrunEvent {
  double t_s = 0;          // seconds since the window start (arrival at the monitor)
  uint32_t frame = 0;      // jack_last_frame_time() at arrival
  uint64_t callbacks = 0;  // xrun callbacks merged into this event
};

// An xrun event as jackd's log named it (driver, or which clients were late).
struct LogXrunEvent {
  double t_s = 0;  // seconds since the window start (arrival of the line)
  bool driver = false;
  std::vector<std::string> late_clients;
};

struct XrunCounts {
  uint64_t monitor_events = 0;     // distinct events seen by the monitor client
  uint64_t monitor_callbacks = 0;  // raw xrun callbacks (JACK2: one per late client)
  uint64_t log_client_events = 0;  // distinct "client ... was not finished" groups in jackd's log
  uint64_t log_client_lines = 0;
  uint64_t log_driver_xruns = 0;       // "JackTimedDriver::Process XRun" / ALSA "xrun of at least"
  std::optional<uint64_t> card_xruns;  // vcard: the card's own record (both streams merged)
  double log_driver_max_delay_us = 0;
  uint64_t log_timed_out_lines = 0;       // jackd's lines containing "timed out" (jack_test's rule)
  std::vector<std::string> late_clients;  // unique clients jackd reported late
  std::vector<XrunEvent> events;          // the first events, at most events_limit of them
  uint64_t events_limit = kXrunEventsKept;  // the bound on events (run.json: events_kept_limit)
  std::vector<LogXrunEvent> log_events;     // bounded list of the log's events (who was late)

  // Every xrun event of the run: the monitor's count (events holds only the first ones; a model
  // built by hand may list events without counting them).
  uint64_t events_total() const { return std::max<uint64_t>(monitor_events, events.size()); }
  bool events_cut() const { return events.size() < events_total(); }
};

// The audible chain: what the tail of the chain received on the checked port.
struct GlitchResult {
  telemetry::GlitchReport report;
  double t_s = 0;                  // seconds since the window start
  std::optional<double> xrun_t_s;  // the nearest xrun event, if any
  std::optional<double> xrun_distance_ms;
  bool matched = false;  // an xrun within kMatchWindowMs of it
  // jackd's log for the nearest logged xrun within kMatchWindowMs: who was late, or the driver.
  std::vector<std::string> late_clients;
  bool driver_xrun = false;
  // Keyed by the cycle table (AudioResult::matched_by "cycle"): the cycle in which the tail
  // heard it, and the first cycle of the xrun event that explains it (engine/result/
  // xrun_cycles.hpp).
  std::optional<uint64_t> cycle, xrun_cycle;
};

struct AudioResult {
  static constexpr double kMatchWindowMs = 50;  // glitch <-> xrun: within this of each other
  telemetry::AudioTotals totals;
  // --source FILE: describe_source() of the user's file ("" = the test signal).
  std::string source;
  std::vector<GlitchResult> glitches;       // the first ones, at most glitches_limit of them
  uint64_t glitches_limit = kGlitchesKept;  // the bound on glitches (run.json: glitch_list_...)
  uint32_t period_frames = 0;               // to group glitches into audible events
  // Glitches less than two periods apart are one audible event (an xrun typically skips one
  // block and replays another a moment later).
  uint64_t events = 0;
  uint64_t glitches_without_xrun = 0;  // audible without any xrun reported: worth knowing
  uint64_t xruns_without_glitch = 0;   // reported xruns nobody heard
  bool final_received = false;
  // How glitches were tied to xruns: "cycle" (the cycle table: exact, engine/result/
  // xrun_cycles.hpp) or "window" (the nearest monitor event within kMatchWindowMs: runs
  // without a table, and records from before it).
  std::string matched_by = "window";

  // Every glitch the tail reported: its total (before its Final message only the list is
  // known).
  uint64_t glitches_total() const { return std::max<uint64_t>(totals.glitches, glitches.size()); }
  bool glitches_cut() const { return glitches.size() < glitches_total(); }
};

// One audio thread as the kernel reported it, and whether that is what the policy asked for.
struct AudioThread {
  std::string role;  // "server" or the client's name
  ThreadSched sched;
  std::string expected;  // describe_target() of what the policy asked for
  std::string mismatch;  // "" when the thread runs as asked, else what differs
};

// jack_test's summary fields with jack_test's definitions (docs/jack_test-fields.md,
// docs/measurement.md "What each number means"), as the engine derived them for this run. Every
// RunRecord and summary carries `definitions`, so figures with different definitions are never put
// in one column unmarked.
struct JackTestFields {
  // "jack1-rules": JACK1's rules applied by xrunlab to jackd's wake-ups (this version);
  // "callback-delay": records of xrunlab versions whose Delay fields were the clients'
  // callback delays against the interrupt (not comparable with jack_test); "jack_test": imported
  // from a 2004-2005 jack_test summary (JACK1's own messages, read by jack_test's awk script).
  std::string definitions;
  std::string wake_source;        // where jackd's wake-ups (JACK1's poll_ret) come from, in words
  double wake_resolution_us = 0;  // their resolution
  uint64_t wakes = 0;             // wake-ups known in the window (the cycles the fields cover)
  // Delay Maximum: max over the window of JACK1's delayed_usecs (poll_ret - (previous
  // poll_ret + period), when positive) and of every driver xrun's duration.
  std::optional<double> delay_max_us;
  // Cycle Maximum: JACK1's max usecs, the largest of the 32-cycle window maxima taken every
  // ~1.024 s (cycle time = jackd's wake-up to the last client's exit).
  std::optional<double> cycle_max_us;
  std::optional<double> cycle_max_all_us;  // the same cycle time over every cycle (xrunlab's)
  // Delay Count (>spare time): wake-ups with delayed_usecs >= JACK1's spare estimate (period -
  // that 32-cycle maximum, once one exists and while positive): JACK1's "delay of ..." lines.
  uint64_t delay_over_spare = 0;
  uint64_t delay_over_1000 = 0;                       // ... of those, the ones over 1000 usecs
  std::optional<double> spare_min_us, spare_last_us;  // JACK1's spare estimate over the run
  std::optional<double> dsp_load_pct;  // JACK1's cpu_load (EMA per checkpoint), mean of checkpoints
};

struct RunResult {
  // Context
  int schema_version = 0;
  std::string xrunlab_version;
  // The run's own id (engine/result/run_identity.hpp): a random UUID drawn when it started; ""
  // in a run.json from before it (run_identity() derives one) and in a model made by hand.
  std::string run_id;
  std::vector<std::string> command_line;
  std::optional<RunSpec> spec;     // the run's options (null in a model made by hand)
  std::optional<HostRecord> host;  // the machine (null in a model made by hand)
  std::string server_name;
  std::vector<std::string> jackd_argv;
  BackendRecord backend;  // Backend::describe(): the card, its reference, its own record
  bool driver_xruns_reach_monitor = false;  // see Backend::driver_xruns_reach_monitor
  std::string started_utc, ended_utc;
  RunStatus status = RunStatus::kRunning;  // every state: engine/result/run_status.hpp
  std::string status_detail;
  int exit_code = 0;

  // Settings as measured
  int clients = 0, ports = 0;
  uint32_t frames = 0, rate = 0;
  double period_us = 0;
  double spare_us = 0;      // "spare time": one period (the dummy driver has no nperiods)
  double seconds_ran = 0;   // measured window length
  std::string scheduling;   // what the audio threads run under, in words
  std::string policy_spec;  // --policy as given
  std::vector<AudioThread> threads_start, threads_end;  // read back from the kernel
  std::optional<IsoReport> iso_emulation;               // --policy iso-emu: the governor's report
  std::optional<RtThrottleRecord> rt_throttle;          // --policy rt-throttle: its group
  // One record per --load; not known (null) in runs from before --load.
  std::optional<std::vector<LoadRecord>> loads = std::vector<LoadRecord>{};
  std::optional<BaselineRecord> baseline;        // --baseline cyclictest
  std::optional<PingRecord> ping;                // --ping
  std::optional<DmaLatencyRecord> dma_latency;   // --dma-latency
  std::optional<AffinityRecord> affinity;        // --cpus / --load-cpus
  std::optional<ExplainRecord> explain;          // --explain: the worst cycles' late hops
  std::optional<XrunTraceRecord> trace_on_xrun;  // --trace-on-xrun
  // RLIMIT_RTTIME on the realtime processes and the watchdog's threshold; nullopt when the run
  // stopped before its clients started.
  std::optional<RtTimeLimitRecord> rt_time_limit;
  std::optional<RampRecord> ramp;        // --ramp: the DSP ramp and its first xrun
  std::optional<RunawayRecord> runaway;  // the client a runaway audio thread was stopped in
  std::optional<LogsRecord> logs;        // what the logs kept (nullopt in runs from before)
  std::string delay_reference;           // which period-start source the delay figures use
  double delay_resolution_us = 0;

  std::vector<ClientResult> client_results;
  std::vector<SystemSecond> system;
  // The per-second rows live in the run folder's seconds.jsonl (engine/report/seconds_file.hpp).
  // A run appends them at each checkpoint and drops them from memory, so its memory does not
  // grow with its length: what it dropped is counted here (finalize includes system_flushed).
  // seconds_appended: seconds.jsonl is the run's own (appended, or read back whole), and
  // rendering the folder leaves it as it is; false (a model made by hand or read from a run.json
  // of schema 1, which held its rows): rendering writes it from c.seconds and system.
  uint64_t client_rows_flushed = 0;
  SystemSums system_flushed;
  bool seconds_appended = false;
  XrunCounts xruns;
  std::vector<std::string> warnings;
  double startup_s = 0;  // engine start to the measurement window start
  // When each step of the run ended, in seconds since the engine started (CLOCK_MONOTONIC_RAW),
  // in order: "preflight", "server", "clients spawned", "clients active", "wired", ... "stopped".
  std::vector<std::pair<std::string, double>> phases_s;
  long engine_peak_rss_kib = 0;
  // Of the engine's memory at the window's end, what is shared memory it maps (RssShmem of
  // /proc/self/status): the vcard's record, the cycle table and the pages of JACK's graph
  // segment its monitor has read (libjack maps and locks that segment whole in every DSP
  // client; the monitor opens with locking out of reach, engine/jack/monitor.cpp). The peak
  // above includes it.
  std::optional<long> engine_rss_shmem_kib;
  std::optional<double> jackd_cpu_pct;  // jackd's CPU time over the window, % of one core
  std::optional<AudioResult> audio;     // the audible chain (absent: --no-audio-check, 1 client)
  // The connections JACK has, as the clients read them back from the graph after wiring.
  std::vector<std::pair<std::string, std::string>> graph;
  CycleTableResult cycle_table;  // every cycle joined across clients, hop by hop
  JackTestFields jack_test;      // jack_test's fields, jack_test's definitions
  XrunCycles xrun_cycles;        // every xrun source counted against the table's xrun cycles
  // Who made each xrun event, and the events outside the chain (engine/result/xrun_causes.hpp);
  // absent in records older than it.
  std::optional<XrunAttribution> xrun_causes;

  // Derived totals (filled by finalize(), like each client's summary; a RunResult read back
  // from run.json has them as written and must not be finalized again).
  uint64_t timeout_count = 0;
  uint64_t xrun_count = 0;
  uint64_t delay_over_spare = 0, delay_over_1000 = 0;
  uint64_t injected = 0;
  MetricSummary delay, delay_dll, duration, cycle;
  std::optional<double> avg_dsp_load;
  double avg_user = 0, avg_nice = 0, avg_system = 0, avg_iowait = 0, avg_irq = 0, avg_softirq = 0;
  double avg_intr = 0, avg_ctxt = 0;
};

// The raw xrun reports of a run, for counting them against the cycle table.
struct XrunReports {
  CallbackArrivals monitor;      // each callback's arrival cycle and time
  bool monitor_cut = false;      // more callbacks than listed
  std::vector<XrunLogLine> log;  // each xrun line: its arrival and whom it named
  bool log_cut = false;
  std::optional<uint64_t> first_cycle;  // the window's first row (engine/result/xrun_causes.hpp)
};
// Counts the monitor's callbacks, jackd's xrun lines and the tail's glitches against the cycle
// table's xrun events (`runs`, with `frames` to key frame times), into r.xrun_cycles, and ties
// each glitch to its cycle (r.audio: matched_by "cycle"). Needs r.cycle_table and r.period_us.
// `settled`: the events already counted and forgotten before `runs` (never with the audio
// check, whose glitches are matched against every event).
void count_against_cycles(RunResult& r, const std::vector<XrunRun>& runs,
                          const FrameCycleMap& frames, const XrunReports& reports,
                          const SettledXruns* settled = nullptr,
                          const XrunAttribution* settled_causes = nullptr);
// The tail's glitches against `runs`: ties each glitch to its cycle and event (its cycle fields,
// and who was late by the first of `log_events` that falls to the same event) and returns the
// audio source's tally (key, label, ... not set). Part of count_against_cycles.
SourceTally count_glitches(AudioResult& a, const std::vector<XrunRun>& runs,
                           const FrameCycleMap& frames, const std::vector<LogXrunEvent>& log_events,
                           bool cut, double period_ms);

// Computes the derived totals and each client's summary from the per-client and per-second
// data. The writers (run.json, summary.txt) show the derived figures: finalize before writing.
void finalize(RunResult& r);

// What match_glitches can judge when a list holds only the first events (XrunCounts::events_cut,
// AudioResult::glitches_cut): a glitch later than the last listed xrun (plus the match window)
// may have had an xrun that is not listed, and an xrun later than the last listed glitch may
// have been heard; neither is judged. Infinity: the whole list is judged.
struct GlitchMatchScope {
  double glitches_until_s = 0;  // listed glitches at or before this time are judged
  double xruns_until_s = 0;     // listed xruns at or before this time are judged
  uint64_t glitches = 0;        // how many listed glitches that is
  uint64_t xruns = 0;           // how many listed xruns that is
};
GlitchMatchScope glitch_match_scope(const std::vector<XrunEvent>& xruns, bool xruns_cut,
                                    const AudioResult& a);

// Pairs each glitch with the nearest xrun event (within AudioResult::kMatchWindowMs) and counts
// glitches nobody explained and xruns nobody heard, among those glitch_match_scope can judge
// (`xruns_cut`: the list holds only the first xrun events). A glitch that cannot be judged has
// no nearest xrun and is not matched.
// Groups the listed glitches into audible events (AudioResult::events).
void count_audible_events(AudioResult& a);
void match_glitches(const std::vector<XrunEvent>& xruns, AudioResult& a,
                    const std::vector<LogXrunEvent>& log_events = {}, bool xruns_cut = false);

}  // namespace xrunlab
