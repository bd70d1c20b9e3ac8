// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The bench load (--load bench[:N]): the one fixed benchmark job its workers run back to back,
// and what the supervisor reports of their counters. The job is the same in every run, on every
// machine (a constant number of rounds of an integer mixing loop, never calibrated), so that
// its wall time in a run beside a realtime task and in a run without one can be compared: the
// realtime task's cost to the benchmark. Non-realtime.
#include <cstdint>
#include <vector>

#include "engine/result/load_record.hpp"

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

// The size of one job: rounds of bench_job's mixing loop, a chain of dependent integer
// operations. A constant, never calibrated, so that two runs do the same work: 28-31 ms of CPU
// time per job on one core of the 2-core development VM (AMD EPYC), long against the clock
// reads around a job and short against a run.
inline constexpr uint64_t kBenchJobIterations = 10'000'000;

// One job: kBenchJobIterations rounds of an xorshift and a multiply-add on `seed`, each round
// depending on the one before (no round can be skipped or vectorized). Returns the final state,
// which the caller stores to a volatile so that the job is not optimized away.
uint64_t bench_job(uint64_t seed);

// What one bench worker's slot held at the end (see Slot): its finished jobs, the sums of
// their wall and CPU times, and the shortest job's wall time (0 before the first job).
struct BenchWorkerFigures {
  uint64_t jobs = 0;
  uint64_t wall_ns_sum = 0;
  uint64_t wall_ns_min = 0;
  uint64_t cpu_ns_sum = 0;
};

// What a bench load reports (LoadReport): its figures, and its units as x11 and top fill them.
struct BenchReport {
  BenchFigures figures;
  uint64_t units = 0;  // jobs finished, every worker's
  double units_s = 0;  // the seconds the jobs cover: the longest of the workers' job wall sums
};

// The workers' figures summed up: the jobs of every worker, the mean wall and CPU time per job
// (weighted by jobs), the shortest job of any worker, kBenchJobIterations; the means and the
// minimum are nullopt when no job finished. A pure function of its argument.
BenchReport bench_report(const std::vector<BenchWorkerFigures>& workers);

}  // namespace xrunlab::load_tool
