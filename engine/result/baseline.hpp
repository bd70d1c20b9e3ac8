// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The timer baseline beside a run (`xrunlab run --baseline cyclictest`): rt-tests' cyclictest
// runs through the measurement window, one thread at the clients' realtime priority (SCHED_FIFO;
// SCHED_OTHER when the run has none) waking every period, so that the run's latencies read
// against the floor the same machine gave at the same moment, under the same load. It runs
// with --laptop: it does not hold /dev/cpu_dma_latency at 0, which xrunlab does not either, so
// both measure under the same idle-state policy. cyclictest's own figures are whole
// microseconds; its histogram (1 us bins up to kBaselineHistogramUs) gives the percentiles,
// exact below that bound. Non-realtime.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/histogram.hpp"
#include "engine/result/run_records.hpp"

namespace xrunlab {

inline constexpr uint32_t kBaselineHistogramUs = 100000;

// cyclictest's argv: -m -q --laptop -t 1 -p PRIORITY -i INTERVAL_US -h kBaselineHistogramUs
// -D SECONDS (a safety stop: the engine stops it with SIGINT at the window's end)
// --json=JSON_PATH.
std::vector<std::string> cyclictest_argv(const std::string& program, int priority, int interval_us,
                                         int seconds, const std::string& json_path);

// The shared-memory file cyclictest PID keeps in SHM_DIR (/dev/shm): "SHM_DIR/cyclictest<PID>".
// It removes it only at a clean exit; after a kill the run (or the janitor) does.
std::string cyclictest_shm_file(const std::string& shm_dir, pid_t pid);

struct CyclictestResult {
  Histogram us{kBaselineHistogramUs};  // its samples beyond the bound counted, not known
  std::optional<int64_t> max_us;       // cyclictest's own maximum (exact beyond the bound too)
};

// cyclictest's --json file: the first thread's histogram and maximum. nullopt with *why when
// the text is not such a file or holds no sample.
std::optional<CyclictestResult> read_cyclictest_json(const std::string& text, std::string* why);

// run.json's "baseline": the tool's settings, the number of wake-ups, p50/p99/p99.9/max in us
// (each percentile with "exact"), and the ratios of the run's own p99s to cyclictest's p99:
// jackd's wake-up after the interrupt and the head client's callback delay (nullopt where the
// run lacks the figure).
BaselineRecord baseline_record(const std::vector<std::string>& argv, int priority, int interval_us,
                               const CyclictestResult& c, std::optional<double> jackd_wakeup_p99_us,
                               std::optional<double> head_delay_p99_us);

// The same record for a baseline that gave no figures: the settings and why.
BaselineRecord baseline_error_record(const std::vector<std::string>& argv, int priority,
                                     int interval_us, const std::string& why);

}  // namespace xrunlab
