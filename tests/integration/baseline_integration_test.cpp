// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab run --baseline cyclictest` with the real jackd, clients and rt-tests' cyclictest:
// cyclictest runs through the window at the clients' priority and period, its figures and the
// run's ratios to them land in run.json and summary.txt, an interrupted run keeps them, no
// cyclictest outlives the run, and a missing cyclictest is named before anything starts.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>

#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

void expect_baseline(const json& b, const std::string& run_dir) {
  ASSERT_TRUE(b.is_object()) << b.dump();
  EXPECT_FALSE(b.contains("error")) << b.dump();
  EXPECT_EQ(b["tool"], "cyclictest");
  EXPECT_EQ(b["policy"], "SCHED_FIFO");
  EXPECT_EQ(b["priority"], 65) << "the clients' priority: jackd's 70 - 5";
  EXPECT_EQ(b["interval_us"], 5333) << "256 frames at 48 kHz";
  const std::vector<std::string> argv = b["argv"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--laptop"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "--json=" + run_dir + "/baseline-cyclictest.json"),
            argv.end());
  EXPECT_GT(b["wakeups"].get<uint64_t>(), 100u) << "it ran through the window";
  EXPECT_TRUE(b["p99"]["value_us"].is_number()) << b.dump();
  EXPECT_TRUE(b["max_us"].is_number()) << b.dump();
}

TEST(Baseline, CyclictestRunsBesideTheRunAndTheRunReadsAgainstIt) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "4", "--baseline", "cyclictest"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  expect_baseline(j["baseline"], r.run_dir());
  if (j["baseline"]["p99"]["exact"] == true) {
    // vcard has jackd's wake-up and the head client's delay: both ratios are figures.
    EXPECT_TRUE(j["baseline"]["ratios_to_p99"]["jackd_wakeup_p99"].is_number()) << j["baseline"];
    EXPECT_TRUE(j["baseline"]["ratios_to_p99"]["head_client_delay_p99"].is_number());
  }
  EXPECT_EQ(j["spec"]["baseline"], "cyclictest");
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(" Timer baseline (cyclictest) . : p50 "), std::string::npos) << summary;
  EXPECT_NE(summary.find(" Against its p99 . . . . . . . : jackd wake-up p99 "), std::string::npos)
      << summary;
  EXPECT_EQ(processes_mentioning(r.run_dir()), std::vector<std::string>{})
      << "cyclictest outlived the run";
  expect_nothing_left(r);
}

TEST(Baseline, AnInterruptedRunKeepsItsBaseline) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "60", "--baseline", "cyclictest"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(2s);
  r.child.signal(SIGINT);
  finish(r);
  EXPECT_EQ(r.exit_code, 130) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "interrupted");
  expect_baseline(j["baseline"], r.run_dir());
  EXPECT_EQ(processes_mentioning(r.run_dir()), std::vector<std::string>{});
  expect_nothing_left(r);
}

// cyclictest killed in the window: the run completes with a warning naming the kill, and the
// file cyclictest keeps in /dev/shm (removed only at its clean exit) goes with the run.
TEST(Baseline, AKilledCyclictestLeavesNothingInDevShm) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "4", "--baseline", "cyclictest"});
  wait_until_measuring(r);
  pid_t ct = -1;  // its command line names the run folder (--json=...), under this run's output
  for (const std::string& p : processes_mentioning(r.out_dir)) {
    if (p.find("cyclictest ") != std::string::npos) ct = static_cast<pid_t>(std::stol(p));
  }
  ASSERT_GT(ct, 0) << r.log();
  const std::string shm_file = "/dev/shm/cyclictest" + std::to_string(ct);
  for (int i = 0; i < 200 && !std::filesystem::exists(shm_file); ++i) {
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_TRUE(std::filesystem::exists(shm_file)) << "cyclictest made no " << shm_file;
  ::kill(ct, SIGKILL);
  finish(r);
  EXPECT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  EXPECT_NE(j.dump().find("cyclictest killed by signal 9"), std::string::npos) << j["warnings"];
  EXPECT_FALSE(std::filesystem::exists(shm_file)) << shm_file << " left by the killed cyclictest";
  expect_nothing_left(r);
}

TEST(Baseline, AMissingCyclictestIsNamedBeforeAnythingStarts) {
  const TempDir empty("empty-path");
  XrunlabRun r =
      start({"run", "--jackd", "/usr/bin/jackd", "--duration", "1", "--baseline", "cyclictest"},
            {{"PATH", empty.str()}});
  finish(r);
  EXPECT_EQ(r.exit_code, 3) << r.log();
  EXPECT_NE(r.log().find("--baseline cyclictest: cyclictest not found: install rt-tests"),
            std::string::npos)
      << r.log();
  EXPECT_EQ(r.log().find("started jackd"), std::string::npos) << r.log();
}

// --dma-latency on the real /dev/cpu_dma_latency: the kernel's target is 0 while the run
// measures (the least of all holders' requests, ours 0), run.json records what was read back,
// and after the run the target is what it was before (the kernel drops a closed holder).
std::optional<int32_t> dma_target() {
  std::ifstream in("/dev/cpu_dma_latency", std::ios::binary);
  int32_t v = 0;
  if (!in.read(reinterpret_cast<char*>(&v), sizeof v)) return std::nullopt;
  return v;
}

TEST(Conditions, DmaLatencyIsHeldAtZeroDuringTheRunAndReleasedAfter) {
  const std::optional<int32_t> before = dma_target();
  if (!before) GTEST_SKIP() << "/dev/cpu_dma_latency cannot be read here";
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--dma-latency", "--no-plots"});
  wait_until_measuring(r);
  const std::optional<int32_t> during = dma_target();
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  ASSERT_TRUE(during.has_value());
  EXPECT_EQ(*during, 0);
  const json j = r.run_json();
  EXPECT_EQ(j["dma_latency"]["device"], "/dev/cpu_dma_latency");
  EXPECT_EQ(j["dma_latency"]["requested_us"], 0);
  EXPECT_EQ(j["dma_latency"]["read_back_us"], 0);
  EXPECT_EQ(j["spec"]["dma_latency"], true);
  EXPECT_NE(read_text_or_empty(r.run_dir() + "/summary.txt").find("CPU DMA latency"),
            std::string::npos);
  EXPECT_EQ(dma_target(), before) << "the hold outlived the run";
}

}  // namespace
}  // namespace xrunlab::testing_support
