// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab run --cpus LIST` and `--load-cpus LIST` with the real jackd, clients and loads on the
// vcard: every thread of jackd and of every client runs on the --cpus set while the run measures
// (read from the kernel here, independently of the engine), run.json shows every audio thread's
// affinity as that set at the start and the end, the loads and the processes below them run on
// the --load-cpus set, and bad sets are refused in one line before anything starts.
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/types.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/base/file.hpp"
#include "engine/wire/thread_sched.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

// The CPUs this test may hand out: online and in its own affinity (what the engine checks).
std::vector<int> usable_cpus() {
  const std::vector<int> online =
      parse_cpu_list(read_file("/sys/devices/system/cpu/online").value_or(""));
  const std::vector<int> mine = read_affinity(0).value_or(std::vector<int>{});
  std::vector<int> out;
  std::set_intersection(online.begin(), online.end(), mine.begin(), mine.end(),
                        std::back_inserter(out));
  return out;
}

// Skips unless CPUs 0 and 1 are both usable (the tests pin to one and load the other).
#define REQUIRE_CPUS_0_AND_1()                                               \
  do {                                                                       \
    const std::vector<int> cpus = usable_cpus();                             \
    if (std::find(cpus.begin(), cpus.end(), 0) == cpus.end() ||              \
        std::find(cpus.begin(), cpus.end(), 1) == cpus.end()) {              \
      GTEST_SKIP() << "needs CPUs 0 and 1 online and allowed; usable here: " \
                   << format_cpu_list(cpus);                                 \
    }                                                                        \
  } while (false)

// "pid/tid: cpus" for every thread of every process in `pids` whose affinity is not `want`.
std::vector<std::string> threads_not_on(const std::vector<pid_t>& pids,
                                        const std::vector<int>& want, int* threads_seen) {
  std::vector<std::string> off;
  for (const pid_t pid : pids) {
    for (const pid_t tid : list_threads(pid)) {
      const auto cpus = read_affinity(tid);
      if (!cpus) continue;  // the thread ended between the listing and the read
      ++*threads_seen;
      if (*cpus != want) {
        off.push_back(std::to_string(pid) + "/" + std::to_string(tid) + ": " +
                      format_cpu_list(*cpus));
      }
    }
  }
  return off;
}

std::vector<pid_t> pids_of(const std::vector<std::string>& processes) {
  std::vector<pid_t> pids;
  for (const std::string& p : processes) pids.push_back(static_cast<pid_t>(std::stol(p)));
  return pids;
}

void expect_audio_threads_on(const json& threads, const json& want, size_t count) {
  ASSERT_TRUE(threads.is_array()) << threads.dump();
  EXPECT_EQ(threads.size(), count) << "jackd's realtime thread and each client's" << threads.dump();
  for (const json& t : threads) {
    EXPECT_EQ(t["cpus"], want) << t.dump();
    EXPECT_EQ(t["mismatch"], "") << t.dump();
  }
}

TEST(Affinity, EveryAudioThreadRunsOnTheCpusAskedForFromStartToEnd) {
  REQUIRE_CPUS_0_AND_1();
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--cpus", "0", "--no-plots"});
  wait_until_measuring(r);
  // Every thread of jackd and of both clients, as the kernel has them during the window: set
  // before exec, inherited by every thread each program started (JACK's and libjack's too).
  const std::vector<pid_t> pids = pids_of(processes_mentioning(r.server_name()));
  int seen = 0;
  const std::vector<std::string> off = threads_not_on(pids, {0}, &seen);
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  EXPECT_EQ(pids.size(), 3u) << "jackd and two clients";
  EXPECT_GE(seen, 6) << "every one of them has more than one thread";
  EXPECT_EQ(off, std::vector<std::string>{});
  const json j = r.run_json();
  expect_audio_threads_on(j["scheduling"]["threads_start"], json::array({0}), 3);
  expect_audio_threads_on(j["scheduling"]["threads_end"], json::array({0}), 3);
  EXPECT_EQ(j["affinity"], json({{"cpus", {0}},
                                 {"load_cpus", nullptr},
                                 {"threads_checked", 6},
                                 {"loads_checked", 0},
                                 {"verified", true}}));
  EXPECT_EQ(j["spec"]["cpus"], "0");
  EXPECT_NE(read_text_or_empty(r.run_dir() + "/summary.txt")
                .find(": audio threads on CPUs 0 (verified: 6 thread and 0 load read-backs "
                      "matched)"),
            std::string::npos);
  expect_nothing_left(r);
}

// --backend pipewire: the private daemon, whose data loop runs the graph, is pinned like jackd;
// its data loop thread is the "server" audio thread read back.
TEST(Affinity, UnderPipewireTheDaemonsDataLoopAndTheClientsRunOnTheCpus) {
  REQUIRE_CPUS_0_AND_1();
  if (!find_program("pipewire")) {
    GTEST_SKIP() << "the pipewire program is not installed (scripts/setup.sh installs it)";
  }
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--backend", "pipewire", "--clients", "2", "--ports", "1",
                        "--period", "256", "--duration", "3", "--cpus", "1", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  expect_audio_threads_on(j["scheduling"]["threads_start"], json::array({1}), 3);
  expect_audio_threads_on(j["scheduling"]["threads_end"], json::array({1}), 3);
  EXPECT_EQ(j["scheduling"]["threads_start"][0]["process"], "pipewire");
  EXPECT_EQ(j["affinity"]["verified"], true) << j["affinity"].dump();
  expect_nothing_left(r);
}

// The check can fail: a client moved off --cpus during the window (every thread of it, from
// here, as taskset -p would) fails the run at its end-of-window read-back, like a policy
// mismatch.
TEST(Affinity, AClientMovedOffTheCpusDuringTheRunFailsIt) {
  REQUIRE_CPUS_0_AND_1();
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--cpus", "0", "--no-plots"});
  wait_until_measuring(r);
  const pid_t client = pid_of(r, r.client_name(1));
  ASSERT_GT(client, 0) << processes_mentioning(r.server_name()).size();
  cpu_set_t both;
  CPU_ZERO(&both);
  CPU_SET(0, &both);
  CPU_SET(1, &both);
  int moved = 0;
  for (const pid_t tid : list_threads(client)) {
    if (sched_setaffinity(tid, sizeof both, &both) == 0) ++moved;
  }
  finish(r);
  EXPECT_GT(moved, 0);
  EXPECT_EQ(r.exit_code, 1) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "failed");
  const std::string detail = j["status_detail"].get<std::string>();
  EXPECT_EQ(detail.rfind("at the end: " + r.client_name(1) + " thread ", 0), 0u) << detail;
  EXPECT_NE(detail.find(" is not on the requested CPUs: CPU affinity 0-1, expected 0 (--cpus)"),
            std::string::npos)
      << detail;
  expect_audio_threads_on(j["scheduling"]["threads_start"], json::array({0}), 3);
  EXPECT_EQ(j["affinity"]["verified"], false) << j["affinity"].dump();
  EXPECT_EQ(j["affinity"]["threads_checked"], 6);
  expect_nothing_left(r);
}

TEST(Affinity, LoadsAndTheirWorkersRunOnTheLoadCpus) {
  REQUIRE_CPUS_0_AND_1();
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--cpus", "0", "--load", "cpu:1", "--load-cpus", "1", "--no-plots"});
  wait_until_measuring(r);
  // The supervisor and the busy loop it forked: both name the load's report in their argv.
  std::vector<std::string> load_processes;
  for (const std::string& p : processes_mentioning(r.out_dir)) {
    if (p.find("/loads/1-cpu.json") != std::string::npos) load_processes.push_back(p);
  }
  int seen = 0;
  const std::vector<std::string> off = threads_not_on(pids_of(load_processes), {1}, &seen);
  int audio_seen = 0;
  const std::vector<std::string> audio_off =
      threads_not_on(pids_of(processes_mentioning(r.server_name())), {0}, &audio_seen);
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  EXPECT_GE(load_processes.size(), 2u) << "the supervisor and its worker";
  EXPECT_GE(seen, 2);
  EXPECT_EQ(off, std::vector<std::string>{});
  EXPECT_GE(audio_seen, 6);
  EXPECT_EQ(audio_off, std::vector<std::string>{});
  const json j = r.run_json();
  ASSERT_EQ(j["loads"].size(), 1u) << j["loads"].dump();
  EXPECT_EQ(j["loads"][0]["cpus"], json::array({1})) << j["loads"].dump();
  EXPECT_EQ(j["affinity"], json({{"cpus", {0}},
                                 {"load_cpus", {1}},
                                 {"threads_checked", 6},
                                 {"loads_checked", 1},
                                 {"verified", true}}));
  EXPECT_EQ(j["spec"]["load_cpus"], "1");
  EXPECT_EQ(processes_mentioning(r.out_dir + "/"), std::vector<std::string>{})
      << "a load outlived the run";
  expect_nothing_left(r);
}

// Refused in one line with exit code 2 before any server starts.
void expect_refused(const std::vector<std::string>& args, const std::string& message) {
  XrunlabRun r = start(args);
  finish(r);
  EXPECT_EQ(r.exit_code, 2) << r.log();
  EXPECT_NE(r.log().find("xrunlab: error: " + message + "\n"), std::string::npos) << r.log();
  EXPECT_EQ(r.log().find("started jackd"), std::string::npos) << r.log();
}

TEST(Affinity, BadCpuSetsAreRefusedBeforeAnythingStarts) {
  const std::vector<int> usable = usable_cpus();
  ASSERT_FALSE(usable.empty());
  const std::vector<int> online =
      parse_cpu_list(read_file("/sys/devices/system/cpu/online").value_or(""));
  const int absent = online.back() + 1;
  expect_refused({"run", "--duration", "1", "--cpus", std::to_string(absent)},
                 "--cpus " + std::to_string(absent) + ": CPU " + std::to_string(absent) +
                     " is not online; choose from CPUs " + format_cpu_list(usable));
  expect_refused({"run", "--duration", "1", "--cpus", "0-"},
                 "--cpus '0-': '0-' is not a CPU number or range (expected N or N-M, e.g. 0, 0-1 "
                 "or 0,2-3)");
  expect_refused({"run", "--duration", "1", "--load-cpus", "0"},
                 "--load-cpus 0 without --load: it sets the loads' CPUs; add a --load or leave "
                 "--load-cpus out");
  if (online.size() >= 2) {
    expect_refused({"run", "--duration", "1", "--policy", "deadline", "--cpus",
                    std::to_string(usable.front())},
                   "--cpus " + std::to_string(usable.front()) +
                       " with --policy deadline: the kernel refuses SCHED_DEADLINE for a thread "
                       "whose affinity is narrower than its root domain (online CPUs " +
                       format_cpu_list(online) + "); leave --cpus out or give --cpus " +
                       format_cpu_list(online));
  }
}

}  // namespace
}  // namespace xrunlab::testing_support
