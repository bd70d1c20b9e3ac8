// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The records a run keeps beside its measurements, one per option or watchdog that made them.
// Each is a member of RunResult (engine/result/result.hpp), absent (std::nullopt, null in
// run.json) when the run did not make it. Their producers fill them (named at each struct);
// engine/result/run_json.cpp writes and reads them as run.json's objects of the same names, and
// docs/results.md describes those objects. Non-realtime.
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/result/histogram.hpp"

namespace xrunlab {

// --dma-latency: /dev/cpu_dma_latency held during the run (engine/system/dma_latency.hpp).
struct DmaLatencyRecord {
  std::string device;
  int32_t requested_us = 0;
  std::optional<int32_t> read_back_us;  // nullopt: not readable
};

// --cpus / --load-cpus and their read-backs (engine/run/audio_threads.hpp make_affinity_record).
struct AffinityRecord {
  std::vector<int> cpus;       // --cpus (empty: not given, null in run.json)
  std::vector<int> load_cpus;  // --load-cpus (empty: not given, null in run.json)
  int threads_checked = 0;     // audio threads read back against --cpus (start and end)
  int loads_checked = 0;       // loads read back against --load-cpus
  // Every read-back matched (true), one did not (false), nothing was read back (nullopt).
  std::optional<bool> verified;
};

// RLIMIT_RTTIME on the realtime processes and the watchdog's threshold
// (engine/run/rt_time_limit.hpp).
struct RtTimeLimitRecord {
  uint64_t soft_us = 0, hard_us = 0, watchdog_us = 0;
  std::vector<std::string> applied_to;  // "jackd", "clients"
  std::string rule;                     // how the limits follow from the period, in words
};

// The client a runaway audio thread was stopped in (engine/run/runaway_watchdog.hpp).
struct RunawayRecord {
  std::string client;
  int index = 0;
  int64_t pid = 0, tid = 0;
  std::optional<std::string> policy;  // what it ran under (nullopt: not known)
  uint64_t ran_ms = 0;                // how long it ran without sleeping
  std::string stopped_by, signal;
  std::optional<int64_t> running_since_mono_ns;
  int64_t stopped_mono_ns = 0;
  std::string reason;
};

// --policy rt-throttle: the cgroup-v1 group the audio threads ran in (engine/run/audio_threads).
struct RtThrottleRecord {
  std::string cgroup;
  double rt_runtime_pct = 0;
  uint64_t rt_period_us = 0;
};

// --trace-on-xrun: the trace ring frozen at the first xrun and where it was saved
// (engine/trace/xrun_trace.hpp). Each optional is null in run.json until known.
struct XrunTraceRecord {
  std::string instance;
  int buffer_kb_per_cpu = 0;
  std::optional<int64_t> xrun_mono_ns, frozen_mono_ns;
  std::optional<std::string> file;  // in the run folder; nullopt: nothing saved (see error)
  std::optional<int64_t> oldest_mono_ns;
  std::optional<double> covered_before_xrun_ms;
  std::optional<std::vector<std::string>> argv;  // trace-cmd extract's
  std::optional<std::string> error;
};

// What a log filter kept of one log (engine/jack/log_filter.hpp).
struct LogCounts {
  uint64_t lines = 0, kept = 0;
  std::map<std::string, uint64_t> dropped;  // by kind
  bool full_log = false;                    // --full-log: every line kept
  // JACK debug lines, and xrun lines and messages, kept of each kind (the defaults are the
  // filter's, for a run.json that does not say).
  uint64_t examples_per_kind = 20;
  uint64_t repeats_kept_per_kind = 10000;
};

// jackd.log's and clients/*.log's (summed over the clients) filters.
struct LogsRecord {
  LogCounts jackd, clients;
};

// --policy iso-emu: the user-space governor's report (engine/sched/iso_governor.hpp).
struct IsoEvent {
  double t_s = 0;  // since the governor started
  bool demote = false;
  double share_pct = 0;  // the decayed average share at that moment
};

struct IsoReport {
  std::vector<IsoEvent> events;
  uint64_t demotions = 0, promotions = 0;
  double time_demoted_s = 0;  // wall time between each demotion and the next promotion / stop()
  double peak_share_pct = 0;  // highest decayed average share seen
  double mean_share_pct = 0;  // time-averaged instantaneous share over the whole run
                              // (= total CPU time of the threads / (ncpus x run time))
  uint64_t samples = 0;
  std::vector<std::string> errors;  // e.g. a thread that vanished (each thread once)
  std::string label = "EMULATED SCHED_ISO (user-space governor)";
};

// --baseline cyclictest (engine/result/baseline.hpp): the tool's settings, then either its
// figures or why there are none.
struct BaselineRecord {
  std::string tool = "cyclictest";
  std::vector<std::string> argv;
  std::string policy;  // "SCHED_FIFO", or "SCHED_OTHER" when the run has no realtime priority
  int priority = 0;
  int interval_us = 0;
  bool holds_cpu_dma_latency = false;  // --laptop: it leaves /dev/cpu_dma_latency alone
  // Set when the baseline gave no figures; the figures below are then not written.
  std::optional<std::string> error;
  uint64_t wakeups = 0, beyond_histogram = 0, histogram_bound_us = 0;
  std::optional<Percentile> p50, p99, p99_9;  // nullopt: no sample
  std::optional<int64_t> max_us;              // cyclictest's own maximum
  // The run's p99s over cyclictest's exact p99, rounded to 0.01 (nullopt: a figure missing).
  std::optional<double> jackd_wakeup_ratio, head_client_delay_ratio;
  std::vector<std::pair<int64_t, uint64_t>> bins;  // its non-empty 1 us bins: (us, count)
};

// --ping (engine/ping/): ICMP echo requests at a fixed rate from this machine across a veth pair
// into a network namespace the run made, through the measurement window; then the figures, or
// why there are none. A request is lost when no answer came within answer_wait_ms after it.
struct PingRecord {
  std::string method;          // how the requests were sent and timed, in words
  std::string netns;           // the namespace's name (/run/netns/NAME while the run lasts)
  std::string host_interface;  // the veth end on this machine's side
  std::string source, target;  // the pair's two IPv4 addresses; only `target` is pinged
  int rate_hz = 0;
  uint64_t count_planned = 0;  // the rate times the window
  int answer_wait_ms = 0;
  int drop_every = 0;  // --ping-drop-every N: an nftables rule drops every Nth request
  std::string file;    // ping.csv: one row per request
  // Set when the pinger gave no figures; the figures below are then not written.
  std::optional<std::string> error;
  uint64_t sent = 0, received = 0, lost = 0;
  double lost_pct = 0;
  uint64_t late_answers = 0;              // answers that came after the wait (counted as lost)
  uint64_t duplicates = 0;                // answers beyond the first to a request
  uint64_t unmatched = 0;                 // answers with the run's id that matched no request sent
  std::optional<uint64_t> expected_lost;  // with drop_every: ceil(sent / N), known in advance
  // The answers' round trips, nearest rank, in us (0.1 us).
  std::optional<double> rtt_p50_us, rtt_p99_us, rtt_max_us;
  // How late the requests left against their schedule (a starved sender shows here).
  std::optional<double> send_late_p99_us, send_late_max_us;
};

}  // namespace xrunlab
