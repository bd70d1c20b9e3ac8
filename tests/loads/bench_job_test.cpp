// SPDX-License-Identifier: GPL-2.0-or-later
// The bench load's job and its figures (engine/loads/bench_job.hpp): the job is a fixed function
// of its seed, and the supervisor's figures are the workers' slots summed up, checked here with
// numbers made by hand.
#include "engine/loads/bench_job.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace xrunlab {
namespace {

using load_tool::bench_job;
using load_tool::bench_report;
using load_tool::BenchReport;
using load_tool::BenchWorkerFigures;
using load_tool::kBenchJobIterations;

constexpr uint64_t kMs = 1'000'000;  // ns

TEST(BenchJob, IsTheSameWorkForTheSameSeed) {
  EXPECT_EQ(bench_job(42), bench_job(42));
  EXPECT_NE(bench_job(42), bench_job(44)) << "the result depends on the seed";
}

TEST(BenchReport, SumsTheWorkersAndWeightsTheMeansByTheirJobs) {
  const std::vector<BenchWorkerFigures> workers = {
      {100, 100 * 30 * kMs, 28 * kMs, 100 * 29 * kMs},  // 100 jobs of 30 ms, 29 ms CPU
      {300, 300 * 50 * kMs, 27 * kMs, 300 * 33 * kMs},  // 300 jobs of 50 ms, 33 ms CPU
  };
  const BenchReport r = bench_report(workers);
  EXPECT_EQ(r.figures.jobs, 400u);
  EXPECT_EQ(r.figures.job_iterations, kBenchJobIterations);
  EXPECT_DOUBLE_EQ(*r.figures.job_wall_ms_mean, 45.0) << "(100 x 30 + 300 x 50) / 400";
  EXPECT_DOUBLE_EQ(*r.figures.job_wall_ms_min, 27.0) << "the shortest job of any worker";
  EXPECT_DOUBLE_EQ(*r.figures.job_cpu_ms_mean, 32.0) << "(100 x 29 + 300 x 33) / 400";
  EXPECT_EQ(r.units, 400u);
  EXPECT_DOUBLE_EQ(r.units_s, 15.0) << "the longest worker's jobs: 300 x 50 ms";
}

TEST(BenchReport, AWorkerWithoutAJobAddsNothing) {
  const std::vector<BenchWorkerFigures> workers = {
      {0, 0, 0, 0},
      {2, 2 * 40 * kMs, 35 * kMs, 2 * 38 * kMs},
  };
  const BenchReport r = bench_report(workers);
  EXPECT_EQ(r.figures.jobs, 2u);
  EXPECT_DOUBLE_EQ(*r.figures.job_wall_ms_mean, 40.0);
  EXPECT_DOUBLE_EQ(*r.figures.job_wall_ms_min, 35.0) << "not the idle worker's 0";
  EXPECT_DOUBLE_EQ(*r.figures.job_cpu_ms_mean, 38.0);
}

TEST(BenchReport, NoJobFinishedHasNoTimesNotZeroes) {
  for (const std::vector<BenchWorkerFigures>& workers :
       {std::vector<BenchWorkerFigures>{}, std::vector<BenchWorkerFigures>{{0, 0, 0, 0}}}) {
    const BenchReport r = bench_report(workers);
    EXPECT_EQ(r.figures.jobs, 0u);
    EXPECT_EQ(r.figures.job_iterations, kBenchJobIterations);
    EXPECT_FALSE(r.figures.job_wall_ms_mean);
    EXPECT_FALSE(r.figures.job_wall_ms_min);
    EXPECT_FALSE(r.figures.job_cpu_ms_mean);
    EXPECT_EQ(r.units, 0u);
    EXPECT_EQ(r.units_s, 0.0);
  }
}

}  // namespace
}  // namespace xrunlab
