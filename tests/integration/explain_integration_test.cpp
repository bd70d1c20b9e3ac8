// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab run --explain` on the real jackd, clients and kernel trace, against a competitor the
// test controls: one SCHED_FIFO 90 busy loop per CPU (above jackd's 70 and the clients' 65),
// pinned there and spinning in bursts; the loops record when each burst really ran. Every
// explained hop whose runnable part (after its thread's wake-up) lies mostly inside a burst of
// every loop must name a busy loop, by pid, as its largest blocker; no hop whose window lies
// outside every burst may name one. The trace instance and mount of a run SIGKILLed together
// with its janitor are removed by the next run. Needs root (tracefs, SCHED_FIFO); skipped
// otherwise.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <utility>
#include <vector>

#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

int64_t mono_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

timespec to_timespec(int64_t ns) {
  return {static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
}

constexpr int64_t kMs = 1000000;
// Shorter than the period (5.33 ms at 256 frames): the cycle a burst hits completes late
// instead of being skipped, so it ranks among the worst by slack.
constexpr int64_t kBurstEvery = 300 * kMs;
constexpr int64_t kBurstLength = 4 * kMs;
constexpr int kBursts = 10;

// When each burst of one busy loop really ran (CLOCK_MONOTONIC ns), written by the loop into
// memory shared with the test: on this VM a timer's wake-up can itself be late by ms.
struct Bursts {
  int64_t from[kBursts];
  int64_t to[kBursts];
};

// A forked busy loop on `cpu` at SCHED_FIFO 90: bursts of kBurstLength from start + k *
// kBurstEvery (or from its late wake-up), then it sleeps until killed (alive, so the run can
// read its policy).
pid_t start_busy_loop(int cpu, int64_t start_ns, Bursts* out) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_NAME, "xrl-busyloop");
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0) ::_exit(2);
  sched_param p{};
  p.sched_priority = 90;
  if (::sched_setscheduler(0, SCHED_FIFO, &p) != 0) ::_exit(3);
  for (int k = 0; k < kBursts; ++k) {
    const timespec at = to_timespec(start_ns + k * kBurstEvery);
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
    }
    const int64_t from = mono_now_ns();
    int64_t now = from;
    while (now < from + kBurstLength) now = mono_now_ns();
    out->from[k] = from;
    out->to[k] = now;
  }
  while (true) ::pause();
}

bool tracefs_mounted() {
  struct statfs s {};
  return ::statfs("/sys/kernel/tracing", &s) == 0 && static_cast<long>(s.f_type) == 0x74726163;
}

TEST(Explain, AKnownRealtimeCompetitorIsNamedByPidForTheCyclesItDelayedAndNeverOutsideIt) {
  if (::geteuid() != 0) GTEST_SKIP() << "--explain and SCHED_FIFO need root";
  const bool mounted_before = tracefs_mounted();
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "6", "--no-plots", "--explain=16"});
  wait_until_measuring(r);
  // The window starts 0.3 s after "measuring"; the bursts start well inside it.
  const int64_t start_ns = mono_now_ns() + 1000 * kMs;
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  void* shared = ::mmap(nullptr, sizeof(Bursts) * static_cast<size_t>(cpus), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(shared, MAP_FAILED);
  Bursts* bursts = static_cast<Bursts*>(shared);
  std::vector<pid_t> loops;
  for (int cpu = 0; cpu < cpus; ++cpu)
    loops.push_back(start_busy_loop(cpu, start_ns, &bursts[cpu]));
  finish(r, 90s);
  for (const pid_t pid : loops) {
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
  }
  // Every CPU busy: the stretches in which all loops spun at once.
  std::vector<std::pair<int64_t, int64_t>> all_busy, any_busy;
  for (int k = 0; k < kBursts; ++k) {
    int64_t from = INT64_MIN, to = INT64_MAX;
    for (long c = 0; c < cpus; ++c) {
      ASSERT_GT(bursts[c].to[k], 0) << "busy loop " << c << " did not run burst " << k;
      from = std::max(from, bursts[c].from[k]);
      to = std::min(to, bursts[c].to[k]);
      any_busy.emplace_back(bursts[c].from[k], bursts[c].to[k]);
    }
    if (to > from) all_busy.emplace_back(from, to);
  }
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  const json& e = j["explain"];
  ASSERT_TRUE(e.is_object()) << j.dump().substr(0, 2000);
  EXPECT_EQ(e["requested"], 16);
  EXPECT_GT(e["trace"]["events"].get<uint64_t>(), 1000u) << e["trace"];
  EXPECT_EQ(e["trace"]["dropped_store"], 0) << e["trace"];
  ASSERT_FALSE(e["cycles"].empty());

  auto is_loop = [&](int64_t pid) {
    return std::find(loops.begin(), loops.end(), static_cast<pid_t>(pid)) != loops.end();
  };
  size_t inside = 0, outside = 0;
  for (const json& c : e["cycles"]) {
    for (const json& h : c["hops"]) {
      if (!h["traced"].get<bool>() || h["cpu"].is_null()) continue;
      const int64_t a = h["window_mono_ns"][0], b = h["window_mono_ns"][1];
      // The part in which the thread was runnable: before its wake-up nothing could hold it
      // (its waker was late, e.g. held by a loop itself), and the run says so ("asleep").
      const int64_t runnable_from = a + h["asleep_ns"].get<int64_t>();
      int64_t in_burst = 0;
      bool near_burst = false;
      for (const auto& [from, to] : all_busy) {
        in_burst += std::max<int64_t>(0, std::min(b, to) - std::max(runnable_from, from));
      }
      for (const auto& [from, to] : any_busy) {
        // 2 ms either side: the trace's stamps are whole usecs, the loops' switches take time.
        near_burst = near_burst || (a < to + 2 * kMs && b > from - 2 * kMs);
      }
      std::string bursts_text;
      for (long cpu = 0; cpu < cpus; ++cpu) {
        for (int k = 0; k < kBursts; ++k) {
          if (bursts[cpu].to[k] > a - 10 * kMs && bursts[cpu].from[k] < b + 10 * kMs) {
            bursts_text += " cpu" + std::to_string(cpu) + ":[" +
                           std::to_string(bursts[cpu].from[k] - a) + "," +
                           std::to_string(bursts[cpu].to[k] - a) + "]";
          }
        }
      }
      const std::string where = "cycle " + std::to_string(c["cycle"].get<uint64_t>()) + " " +
                                h["hop"].get<std::string>() + ": " + h["line"].get<std::string>() +
                                " (window " + std::to_string(b - a) +
                                " ns; bursts from its start:" + bursts_text + ")";
      if (b > runnable_from && in_burst * 2 > b - runnable_from) {
        ++inside;
        ASSERT_FALSE(h["blockers"].empty()) << where;
        const json& top = h["blockers"][0];
        EXPECT_TRUE(is_loop(top["pid"])) << where;
        EXPECT_EQ(top["comm"], "xrl-busyloop") << where;
        EXPECT_EQ(top["policy"], "SCHED_FIFO 90") << where;
        EXPECT_NE(c["line"].get<std::string>().find("xrl-busyloop pid " +
                                                    std::to_string(top["pid"].get<int64_t>())),
                  std::string::npos)
            << c["line"];
      } else if (!near_burst) {
        ++outside;
        for (const json& bl : h["blockers"]) EXPECT_FALSE(is_loop(bl["pid"])) << where;
      }
    }
  }
  ::munmap(shared, sizeof(Bursts) * static_cast<size_t>(cpus));
  // The bursts made the worst cycles: explained windows lie in several of them.
  EXPECT_GE(inside, 3u) << e["cycles"].dump(1);
  std::fprintf(stderr, "explained hops: %zu inside a burst, %zu outside all\n", inside, outside);

  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(" Explained (kernel trace) "), std::string::npos) << summary;
  EXPECT_NE(summary.find("xrl-busyloop pid "), std::string::npos) << summary;
  // The instance is gone, tracefs as it was, the journal empty.
  EXPECT_FALSE(std::filesystem::exists("/sys/kernel/tracing/instances/xrunlab-" +
                                       std::to_string(r.child.pid())));
  EXPECT_EQ(tracefs_mounted(), mounted_before);
  EXPECT_FALSE(
      std::filesystem::exists("/run/xrunlab/journal-0-" + std::to_string(r.child.pid()) + ".json"));
  expect_nothing_left(r);
}

TEST(Explain, AKilledRunsTraceInstanceAndMountAreRemovedByTheNextRun) {
  if (::geteuid() != 0) GTEST_SKIP() << "--explain needs root";
  const bool mounted_before = tracefs_mounted();
  XrunlabRun killed = start({"run", "--clients", "2", "--ports", "1", "--period", "256",
                             "--duration", "30", "--no-plots", "--explain"});
  wait_until_measuring(killed);
  const std::string instance =
      "/sys/kernel/tracing/instances/xrunlab-" + std::to_string(killed.child.pid());
  ASSERT_TRUE(std::filesystem::is_directory(instance));
  kill_engine_and_janitor(killed);  // the janitor alone would remove it
  finish(killed);
  EXPECT_TRUE(std::filesystem::is_directory(instance)) << "nothing restores after a SIGKILL";
  XrunlabRun next;
  ASSERT_EQ(run_to_end({"run", "--clients", "1", "--ports", "1", "--period", "256", "--duration",
                        "1", "--no-plots"},
                       &next),
            0)
      << next.log();
  EXPECT_NE(
      next.log().find("restored " + instance + ": removed the directory left by a crashed run"),
      std::string::npos)
      << next.log();
  EXPECT_FALSE(std::filesystem::exists(instance));
  EXPECT_EQ(tracefs_mounted(), mounted_before);
}

TEST(Explain, WithoutRootItIsRefusedInOneLineBeforeAnythingStarts) {
  if (::geteuid() == 0) GTEST_SKIP() << "checks the refusal for other users";
  XrunlabRun r = start({"run", "--duration", "1", "--explain"});
  finish(r);
  EXPECT_EQ(r.exit_code, 7) << r.log();
  EXPECT_NE(r.log().find("--explain needs root"), std::string::npos) << r.log();
}

TEST(Explain, AValueOutOfRangeIsAUsageError) {
  XrunlabRun r = start({"run", "--duration", "1", "--explain=0"});
  finish(r);
  EXPECT_EQ(r.exit_code, 2) << r.log();
  EXPECT_NE(r.log().find("--explain=0: must be 1..100"), std::string::npos) << r.log();
}

}  // namespace
}  // namespace xrunlab::testing_support
