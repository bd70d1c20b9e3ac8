// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --baseline cyclictest: rt-tests' cyclictest measures the timer's own wake-up latency on the
// audio threads' CPUs through the same window as the clients, so a report can set the clients'
// delays beside what the machine gives any realtime thread (engine/result/baseline.hpp makes
// the run.json section). Its lifecycle: configured in preflight (the program found, before
// anything starts), started right before the window, stopped with SIGINT at the window's end or
// on any exit path (cyclictest then writes its --json file), then put into the result.
// Non-realtime: the run's own thread only.
#include <optional>
#include <string>
#include <vector>

#include "engine/result/baseline.hpp"
#include "engine/result/result.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

class CyclictestBaseline {
 public:
  // `program` is cyclictest's path; `priority` its SCHED_FIFO priority (0: SCHED_OTHER),
  // `interval_us` its timer interval (one period). Without configure() every call does nothing.
  void configure(std::string program, int priority, int interval_us);
  bool configured() const { return !program_.empty(); }

  // Starts cyclictest, its log and --json file in `run_dir`, on `cpus` (empty: anywhere). Its
  // -D (`duration_s` + 30 s) is a safety stop only: stop() ends it. Returns the sentence that
  // says what started. Throws Error as Child::spawn.
  std::string start(const std::string& run_dir, double duration_s, const std::vector<int>& cpus);

  // SIGINT (cyclictest writes its --json file and exits; SIGKILL after 3 s), then reads the
  // file. Idempotent; never throws: a problem becomes the error fill() reports.
  void stop() noexcept;

  // r.baseline: cyclictest's figures beside the run's own 99th percentiles (jackd's wake-up
  // hop, the first client's delay), or what went wrong and a warning.
  void fill(RunResult& r) const;

  // What went wrong ("" when nothing did, or before stop()).
  const std::string& error() const { return error_; }

 private:
  std::string program_;
  int priority_ = 0;
  int interval_us_ = 0;
  std::string json_path_, log_path_;
  std::vector<std::string> argv_;
  Child child_;
  std::optional<CyclictestResult> result_;
  std::string error_;
};

}  // namespace xrunlab
