// SPDX-License-Identifier: GPL-2.0-or-later
// A runaway realtime client cannot take the machine: the real jackd (dummy driver) and two real
// clients at SCHED_FIFO, all on one CPU (--cpus), the second client's callback spinning forever
// from cycle 300 (--inject spin:300). A SCHED_OTHER heartbeat on that same CPU, forked by the
// test, records the time every 10 ms for a fixed span and then ends by itself.
//
// What must hold, by construction: RLIMIT_RTTIME is on the client and on jackd while they run
// (their /proc/PID/limits); the spinning client is stopped by it (its SIGXCPU, not the watchdog,
// not the run's end); the run ends failed with exit code 5 and a reason naming the client; no
// process of the run is left; the heartbeat recorded ticks while the thread spun (the kernel
// keeps a share of the CPU for SCHED_OTHER) and after it, and ended by itself. No latency
// threshold is asserted. Needs root (SCHED_FIFO); skipped otherwise.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <sstream>

#include "engine/base/file.hpp"
#include "engine/wire/thread_sched.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

int64_t mono_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

constexpr int64_t kMs = 1000000;
constexpr int64_t kTickEvery = 10 * kMs;
constexpr int kTicks = 2500;  // 25 s of ticks

// What the heartbeat writes, in memory shared with the test.
struct Heartbeat {
  std::atomic<int> count{0};
  int64_t at[kTicks];
};

// A forked SCHED_OTHER loop on `cpu`: the time every 10 ms (absolute deadlines), kTicks times,
// then it exits 0 by itself.
pid_t start_heartbeat(int cpu, Heartbeat* out) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  ::prctl(PR_SET_NAME, "xrl-heartbeat");
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0) ::_exit(2);
  sched_param p{};
  if (::sched_setscheduler(0, SCHED_OTHER, &p) != 0) ::_exit(3);
  const int64_t start = mono_now_ns();
  for (int k = 0; k < kTicks; ++k) {
    const int64_t due = start + (k + 1) * kTickEvery;
    const timespec at{static_cast<time_t>(due / 1000000000), static_cast<long>(due % 1000000000)};
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
    }
    out->at[k] = mono_now_ns();
    out->count.store(k + 1, std::memory_order_release);
  }
  ::_exit(0);
}

// "Max realtime timeout" of /proc/PID/limits as {soft, hard} words ("" when unreadable).
std::pair<std::string, std::string> rttime_limits(pid_t pid) {
  const std::string text = read_text_or_empty("/proc/" + std::to_string(pid) + "/limits");
  const auto at = text.find("Max realtime timeout");
  if (at == std::string::npos) return {};
  std::istringstream in(text.substr(at + 20, text.find('\n', at) - at - 20));
  std::string soft, hard;
  in >> soft >> hard;
  return {soft, hard};
}

TEST(Runaway, ASpinningFifoClientIsStoppedByRlimitRttimeAndTheHeartbeatKeepsTicking) {
  if (::geteuid() != 0) GTEST_SKIP() << "SCHED_FIFO needs root";
  const int cpu = 1;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  if (!CPU_ISSET(cpu, &mine)) GTEST_SKIP() << "needs CPU 1";

  void* shared =
      ::mmap(nullptr, sizeof(Heartbeat), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  auto* beat = new (shared) Heartbeat;
  const pid_t heartbeat = start_heartbeat(cpu, beat);
  ASSERT_GT(heartbeat, 0);

  // 1024 frames (21.3 ms): cycle 300 comes about 6.4 s after the clients activate, inside the
  // window; the run would last 20 s if nothing stopped it.
  XrunlabRun r = start({"run",
                        "--backend",
                        "dummy",
                        "--clients",
                        "2",
                        "--ports",
                        "1",
                        "--period",
                        "1024",
                        "--duration",
                        "20",
                        "--cpus",
                        std::to_string(cpu),
                        "--inject",
                        "spin:300",
                        "--inject-client",
                        "2",
                        "--no-plots",
                        "--label",
                        "runaway"});
  // The limits as the kernel holds them for the running programs.
  std::pair<std::string, std::string> client_limits, jackd_limits;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (r.child.running() && std::chrono::steady_clock::now() < deadline &&
         (client_limits.first.empty() || jackd_limits.first.empty())) {
    for (const std::string& p : processes_mentioning(r.server_name())) {
      const auto pid = static_cast<pid_t>(std::stol(p));
      if (p.find("xrunlab-client") != std::string::npos &&
          p.find(r.client_name(2)) != std::string::npos) {
        client_limits = rttime_limits(pid);
      } else if (p.find("jackd") != std::string::npos) {
        jackd_limits = rttime_limits(pid);
      }
    }
    std::this_thread::sleep_for(50ms);
  }
  finish(r, 90s);
  const int64_t run_ended = mono_now_ns();

  EXPECT_EQ(client_limits, (std::pair<std::string, std::string>{"1000000", "2000000"}));
  EXPECT_EQ(jackd_limits, (std::pair<std::string, std::string>{"1000000", "2000000"}));

  // Failed, with the clients' exit code, naming the client and RLIMIT_RTTIME.
  EXPECT_EQ(r.exit_code, 5) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["exit_code"], 5);
  const std::string detail = j.value("status_detail", "");
  EXPECT_EQ(detail.rfind(r.client_name(2) + "'s process thread ran ", 0), 0u) << detail;
  EXPECT_NE(detail.find(" at SCHED_FIFO 65 without blocking: stopped by RLIMIT_RTTIME (SIGXCPU"),
            std::string::npos)
      << detail;
  EXPECT_NE(r.log().find(r.client_name(2) + "'s process thread ran"), std::string::npos) << r.log();
  const json& ra = j["runaway"];
  ASSERT_TRUE(ra.is_object()) << j.dump(1).substr(0, 2000);
  EXPECT_EQ(ra["client"], r.client_name(2));
  EXPECT_EQ(ra["stopped_by"], "RLIMIT_RTTIME");
  EXPECT_EQ(ra["signal"], "SIGXCPU");
  EXPECT_EQ(ra["policy"], "SCHED_FIFO 65");
  EXPECT_EQ(j["rt_time_limit"]["soft_us"], 1000000);
  EXPECT_EQ(j["rt_time_limit"]["hard_us"], 2000000);
  EXPECT_EQ(j["rt_time_limit"]["applied_to"], json::array({"jackd", "xrunlab-client"}));
  // The client said why itself, on its telemetry (the run's client record) and in its log.
  EXPECT_NE(j["clients"][1].value("error", "").find("stopped by SIGXCPU"), std::string::npos)
      << j["clients"][1].dump();
  EXPECT_NE(read_text_or_empty(r.run_dir() + "/clients/c02.log").find("stopped by SIGXCPU"),
            std::string::npos);
  // Stopped early: long before the window's planned 20 s.
  EXPECT_LT(j["measurement"].value("seconds_ran", 99.0), 20.0);
  expect_nothing_left(r);

  // The heartbeat ends by itself, having ticked while the thread spun and after it was stopped.
  int status = -1;
  const auto beat_deadline = std::chrono::steady_clock::now() + 40s;
  pid_t reaped = 0;
  while ((reaped = ::waitpid(heartbeat, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < beat_deadline) {
    std::this_thread::sleep_for(50ms);
  }
  if (reaped == 0) ::kill(heartbeat, SIGKILL);
  ASSERT_EQ(reaped, heartbeat) << "the heartbeat did not end by itself";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  ASSERT_TRUE(ra["running_since_mono_ns"].is_number()) << ra.dump();
  const int64_t since = ra["running_since_mono_ns"].get<int64_t>();
  const int64_t stopped = ra["stopped_mono_ns"].get<int64_t>();
  ASSERT_LT(since, stopped);
  int during = 0, after = 0;
  for (int k = 0; k < beat->count.load(); ++k) {
    if (beat->at[k] > since && beat->at[k] < stopped) ++during;
    if (beat->at[k] > run_ended) ++after;
  }
  std::printf("spin seen for %lld ms: %d heartbeat ticks during it, %d after the run\n",
              static_cast<long long>((stopped - since) / kMs), during, after);
  EXPECT_EQ(beat->count.load(), kTicks);
  EXPECT_GE(during, 1) << "no tick in the " << (stopped - since) / kMs << " ms of the spin";
  EXPECT_GE(after, 1);
  ::munmap(shared, sizeof(Heartbeat));
}

}  // namespace
}  // namespace xrunlab::testing_support
