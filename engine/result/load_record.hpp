// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What run.json keeps of one background load (--load): its spec, its supervisor, when it ran
// and what it reported (engine/loads/loads.hpp load_record()).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

// What a bench load (--load bench[:N]) measured: its workers ran one fixed benchmark job
// (job_iterations rounds of an integer mixing loop, the same in every run) back to back, each
// job timed on its own. Jobs that finished over the load's whole life are counted, also those
// before or after the measurement window.
struct BenchFigures {
  uint64_t jobs = 0;            // finished, every worker's
  uint64_t job_iterations = 0;  // the size of one job (engine/loads/bench_job.hpp)
  // Per job, in milliseconds: the mean wall time (CLOCK_MONOTONIC, weighted by jobs), the
  // shortest, and the mean CPU time of the worker during a job; nullopt when no job finished.
  std::optional<double> job_wall_ms_mean, job_wall_ms_min, job_cpu_ms_mean;
};

// xrunlab-load's report (engine/loads/load_tool.cpp writes it as its --report file, run.json
// keeps it in its load's record): what the load did over its life.
struct LoadReport {
  std::string kind;
  std::vector<std::string> args;
  uint64_t iterations = 0;  // runs of its program (builds, hackbench runs, ...)
  uint64_t bytes = 0;       // written or read, for the I/O loads
  // What the load's programs reported doing, in `unit_name` ("frames drawn" for x11,
  // "refreshes" for top, "benchmark jobs" for bench; "" and 0 for the other kinds), and the
  // seconds that count covers (x11: glxgears' complete 5-s report intervals, the longest of its
  // N drawers; top: the time its output was read; bench: the longest of its workers' summed job
  // wall times). units / units_s is the rate.
  uint64_t units = 0;
  double units_s = 0;
  std::string unit_name;
  std::optional<BenchFigures> bench;        // the bench load's figures; nullopt for the other kinds
  double cpu_user_s = 0, cpu_system_s = 0;  // the supervisor and its children
  uint64_t workers_started = 0;
  std::vector<int> exit_statuses;  // of its workers, as waitpid gave them
  std::vector<std::string> errors;
  bool scratch_removed = false;
  std::string stopped_by;  // "SIGTERM", "duration", "error", ...
  double duration_s = 0;
  int nice = 0;
};

struct LoadRecord {
  std::string spec;  // --load's text
  std::string kind;
  int nice = 0;
  std::vector<std::string> argv;  // the load's arguments to xrunlab-load
  int64_t pid = 0;                // its supervisor
  // The supervisor's CPU affinity read back after it started; not known when unreadable.
  std::optional<std::vector<int>> cpus;
  // Seconds from the measurement window's start; not known when it did not start or stop.
  std::optional<double> start_s, stop_s;
  std::optional<LoadReport> report;  // nullopt: it wrote none
  std::string error;                 // why it ended early or reported nothing
  std::string log;                   // its log file
};

}  // namespace xrunlab
