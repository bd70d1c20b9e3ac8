// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The background loads of a run: one xrunlab-load supervisor per --load spec, each in its own
// process group with a scratch folder and a log under <run>/loads/. Started before the
// measurement window, stopped after it; what each did (its report) goes into run.json.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/loads/load_spec.hpp"
#include "engine/result/load_record.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {

struct LoadResult {
  LoadSpec spec;
  int64_t pid = 0;
  uint64_t started_us = 0, stopped_us = 0;  // engine clock (mono_raw_us)
  std::string log_path, report_path, scratch_dir;
  // The supervisor's CPU affinity read back (sched_getaffinity) right after it started: its
  // workers and their programs inherit it. Empty when it could not be read (cpus_why says why).
  std::vector<int> cpus;
  std::string cpus_why;
  std::optional<LoadReport> report;  // xrunlab-load's own report (nullopt: it wrote none)
  std::string error;                 // why it ended early or reported nothing
};

class LoadSet {
 public:
  LoadSet() = default;
  LoadSet(const LoadSet&) = delete;
  LoadSet& operator=(const LoadSet&) = delete;
  ~LoadSet();  // stops whatever still runs

  // Throws xrunlab::Error when a load cannot be started. `cpus` (--load-cpus; empty: the
  // engine's own) is every supervisor's CPU affinity, set before exec and so inherited by every
  // process below it.
  void start(const std::vector<LoadSpec>& specs, const std::string& tool,
             const std::string& run_dir, const std::vector<int>& cpus = {});
  // "" while every load runs; else which one ended and how.
  std::string check_running();
  // SIGTERM to every supervisor, which stops and reaps its whole process tree and removes its
  // scratch folder; SIGKILL after `grace`. Then reads the reports. Safe to call twice.
  void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(3000));
  const std::vector<LoadResult>& results() const { return results_; }
  bool empty() const { return children_.empty(); }

 private:
  std::vector<Child> children_;
  std::vector<LoadResult> results_;
  bool stopped_ = false;
};

// What run.json keeps of it, with times relative to the measurement window start `t0_us`.
LoadRecord load_record(const LoadResult& r, uint64_t t0_us);

}  // namespace xrunlab
