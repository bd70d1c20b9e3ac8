// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/iso_governor.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmath>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

using Action = IsoAccounting::Action;
using namespace std::chrono_literals;

constexpr uint64_t kMs = 1'000'000;  // ns

// ---------------------------------------------------------------------------------------------
// IsoAccounting: synthetic feeds

TEST(IsoAccounting, StartsAtZeroAndIgnoresEmptySamples) {
  IsoAccounting acc(70, 5.0, 2);
  EXPECT_EQ(acc.share_pct(), 0.0);
  EXPECT_FALSE(acc.demoted());
  EXPECT_EQ(acc.update(0, 123), Action::kNone);
  EXPECT_EQ(acc.share_pct(), 0.0);
}

TEST(IsoAccounting, RejectsBadParametersNamingThem) {
  EXPECT_THROW(IsoAccounting(0, 5.0, 2), Error);
  EXPECT_THROW(IsoAccounting(101, 5.0, 2), Error);
  EXPECT_THROW(IsoAccounting(70, 0.0, 2), Error);
  EXPECT_THROW(IsoAccounting(70, 5.0, 0), Error);
  try {
    IsoAccounting(70, -1.0, 2);
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("ISO_PERIOD"), std::string::npos) << e.what();
  }
}

// One CPU busy all the time on a 2-CPU machine is a 50% share. After one period (tau) the
// average is 50 x (1 - 1/e); after many it is 50.
TEST(IsoAccounting, SteadyLoadConvergesWithTimeConstantIsoPeriod) {
  IsoAccounting acc(70, 5.0, 2);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(acc.update(5 * kMs, 5 * kMs), Action::kNone);  // 5 s
  EXPECT_NEAR(acc.share_pct(), 50.0 * (1.0 - std::exp(-1.0)), 1e-6);
  for (int i = 0; i < 20000; ++i) acc.update(5 * kMs, 5 * kMs);  // 20 more periods
  EXPECT_NEAR(acc.share_pct(), 50.0, 1e-6);
  EXPECT_FALSE(acc.demoted());
}

TEST(IsoAccounting, DemotesOnTheFirstSampleAboveIsoCpu) {
  IsoAccounting acc(20, 0.5, 2);
  int demotions = 0;
  int demote_sample = -1;
  for (int i = 0; i < 2000; ++i) {  // 1 ms samples of a 50% load
    const double before = acc.share_pct();
    const Action a = acc.update(1 * kMs, 1 * kMs);
    const bool crossed = before <= 20.0 && acc.share_pct() > 20.0;
    EXPECT_EQ(a == Action::kDemote, crossed) << "sample " << i << " share " << acc.share_pct();
    EXPECT_NE(a, Action::kPromote);
    if (a == Action::kDemote) {
      ++demotions;
      demote_sample = i;
    }
  }
  EXPECT_EQ(demotions, 1);
  EXPECT_TRUE(acc.demoted());
  // Analytic crossing time: 0.5 s x -ln(1 - 20/50) = 255.4 ms -> the sample ending at 256 ms.
  const double t_cross_ms = -500.0 * std::log(1.0 - 20.0 / 50.0);
  EXPECT_EQ(demote_sample + 1, static_cast<int>(std::ceil(t_cross_ms)));
}

TEST(IsoAccounting, PromotesOnlyBelowNinetyPercentOfIsoCpu) {
  IsoAccounting acc(20, 0.5, 1);
  // 100% of the single CPU until demoted.
  int guard = 0;
  while (acc.update(1 * kMs, 1 * kMs) != Action::kDemote) ASSERT_LT(++guard, 10000);
  ASSERT_TRUE(acc.demoted());
  EXPECT_DOUBLE_EQ(acc.promote_below_pct(), 18.0);

  // A steady 19% (0.95 x ISO_CPU) load: the average settles at 19 and no promotion happens.
  for (int i = 0; i < 20000; ++i) {
    ASSERT_EQ(acc.update(10 * kMs, 1'900'000), Action::kNone) << "sample " << i;
  }
  EXPECT_NEAR(acc.share_pct(), 19.0, 1e-6);
  EXPECT_TRUE(acc.demoted());

  // Idle: promoted on the first sample below 18, exactly once.
  int promotions = 0;
  for (int i = 0; i < 2000; ++i) {
    const double before = acc.share_pct();
    const Action a = acc.update(1 * kMs, 0);
    const bool crossed = before >= 18.0 && acc.share_pct() < 18.0;
    EXPECT_EQ(a == Action::kPromote, crossed) << "sample " << i;
    EXPECT_NE(a, Action::kDemote);
    if (a == Action::kPromote) ++promotions;
  }
  EXPECT_EQ(promotions, 1);
  EXPECT_FALSE(acc.demoted());
}

TEST(IsoAccounting, ResultDoesNotDependOnTheSamplingInterval) {
  IsoAccounting fine(99, 5.0, 2), coarse(99, 5.0, 2);
  for (int i = 0; i < 1000; ++i) fine.update(5 * kMs, 3'700'000);  // 37% of 2 CPUs, 5 s
  for (int i = 0; i < 50; ++i) coarse.update(100 * kMs, 74 * kMs);
  EXPECT_NEAR(fine.share_pct(), coarse.share_pct(), 1e-9 * coarse.share_pct());

  // A load that changes every 100 ms, cut into 5 ms or 100 ms samples.
  IsoAccounting fine2(99, 0.5, 2), coarse2(99, 0.5, 2);
  for (int block = 0; block < 50; ++block) {
    const uint64_t pct = static_cast<uint64_t>((block * 37) % 101);  // 0..100 % of 2 CPUs
    for (int i = 0; i < 20; ++i) fine2.update(5 * kMs, 5 * kMs * 2 * pct / 100);
    coarse2.update(100 * kMs, 100 * kMs * 2 * pct / 100);
    ASSERT_NEAR(fine2.share_pct(), coarse2.share_pct(), 1e-9 * coarse2.share_pct() + 1e-12);
  }
}

// ---------------------------------------------------------------------------------------------
// IsoGovernor with real threads of this process

pid_t this_tid() {
  return static_cast<pid_t>(syscall(SYS_gettid));
}

struct ProcSched {
  int policy = -1;
  int rt_priority = -1;
};

// Fields 40 (rt_priority) and 41 (policy) of /proc/self/task/TID/stat.
ProcSched read_sched(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');
  if (paren == std::string::npos) return {};
  std::istringstream rest(text.substr(paren + 1));
  std::vector<std::string> fields;  // fields[0] is field 3 (state)
  for (std::string f; rest >> f;) fields.push_back(f);
  if (fields.size() < 39) return {};
  return {std::stoi(fields[41 - 3]), std::stoi(fields[40 - 3])};
}

int online_cpus() {
  return static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
}

ThreadTarget fifo(int prio) {
  ThreadTarget t;
  t.policy = kSchedFifo;
  t.rt_priority = prio;
  return t;
}

ThreadTarget other(int nice) {
  ThreadTarget t;
  t.policy = kSchedOther;
  t.nice = nice;
  return t;
}

// A thread that sleeps until go(), then burns its CPU in a yield-free loop until rest() or a hard
// 10 s limit, whichever comes first, so it cannot keep a CPU after the test; it then sleeps until
// quit() (so it still exists while the governor stops). It is pinned to
// CPU 0 (when there are several) so the governor (pinned to the last CPU) and the test's main
// thread always have a CPU it does not hog.
class Spinner {
 public:
  Spinner() : thread_([this] { body(); }) {
    while (tid_.load() == 0) std::this_thread::sleep_for(1ms);
  }
  ~Spinner() { quit(); }
  pid_t tid() const { return tid_.load(); }
  void go() { go_.store(true); }
  void rest() { rest_.store(true); }
  void quit() {
    rest_.store(true);
    quit_.store(true);
    if (thread_.joinable()) thread_.join();
  }

 private:
  void body() {
    if (online_cpus() > 1) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(0, &one);
      pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    }
    tid_.store(this_tid());
    while (!go_.load() && !rest_.load()) std::this_thread::sleep_for(1ms);
    const auto limit = std::chrono::steady_clock::now() + 10s;
    uint64_t n = 0;
    while (!rest_.load(std::memory_order_relaxed)) {
      if ((++n & 0xffff) == 0 && std::chrono::steady_clock::now() > limit) break;
    }
    while (!quit_.load()) std::this_thread::sleep_for(1ms);
  }

  std::atomic<pid_t> tid_{0};
  std::atomic<bool> go_{false}, rest_{false}, quit_{false};
  std::thread thread_;
};

// A thread that sleeps on a condition variable (no CPU) until released.
class Sleeper {
 public:
  Sleeper() : thread_([this] { body(); }) {
    while (tid_.load() == 0) std::this_thread::sleep_for(1ms);
  }
  ~Sleeper() { release(); }
  pid_t tid() const { return tid_.load(); }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  void body() {
    tid_.store(this_tid());
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return released_; });
  }

  std::atomic<pid_t> tid_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  std::thread thread_;
};

// Polls the thread's class every 10 ms until it is `policy` or `timeout` passed.
bool wait_for_policy(pid_t tid, int policy, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (read_sched(tid).policy == policy) return true;
    std::this_thread::sleep_for(10ms);
  }
  return read_sched(tid).policy == policy;
}

void expect_alternating_events(const IsoReport& r) {
  EXPECT_EQ(r.events.size(), r.demotions + r.promotions);
  for (size_t i = 0; i < r.events.size(); ++i) {
    EXPECT_EQ(r.events[i].demote, i % 2 == 0) << "event " << i;
    if (i > 0) {
      EXPECT_GE(r.events[i].t_s, r.events[i - 1].t_s);
    }
  }
}

TEST(IsoGovernor, SpinningThreadIsDemotedThenPromotedWhenIdle) {
  const int ncpus = online_cpus();
  Spinner spinner;
  IsoGovernor gov(20, 0.5, ncpus);
  ASSERT_EQ(gov.start({{getpid(), spinner.tid()}}, fifo(1), other(0), 10), "");
  // Promoted by start(). A demotion cannot come before ~0.25 s (the average starts at 0).
  const ProcSched promoted = read_sched(spinner.tid());
  EXPECT_EQ(promoted.policy, kSchedFifo);
  EXPECT_EQ(promoted.rt_priority, 1);

  // Phase 1: burn ~100% of a CPU (50% share on 2 CPUs) until the governor demotes the thread.
  spinner.go();
  const bool seen_other = wait_for_policy(spinner.tid(), kSchedOther, 5s);
  EXPECT_EQ(read_sched(spinner.tid()).rt_priority, 0);
  // Phase 2: keep burning as SCHED_OTHER for a while (the average keeps rising towards 50%).
  std::this_thread::sleep_for(500ms);
  const double share_burning = gov.share_pct();
  // Phase 3: stop burning; the average decays below 0.9 x 20% and the governor promotes again.
  spinner.rest();
  const bool seen_fifo_again = wait_for_policy(spinner.tid(), kSchedFifo, 5s);
  const IsoReport r = gov.stop();
  const ProcSched after_stop = read_sched(spinner.tid());
  spinner.quit();

  std::cout << "spinning thread: ncpus " << ncpus << ", samples " << r.samples << ", demotions "
            << r.demotions << ", promotions " << r.promotions << ", first demotion at "
            << (r.events.empty() ? -1.0 : r.events[0].t_s) << " s (share "
            << (r.events.empty() ? -1.0 : r.events[0].share_pct) << " %), peak share "
            << r.peak_share_pct << " %, share while burning demoted " << share_burning
            << " %, mean share " << r.mean_share_pct << " %, time demoted " << r.time_demoted_s
            << " s\n";
  for (const IsoEvent& e : r.events) {
    std::cout << "  " << (e.demote ? "demote" : "promote") << " at " << e.t_s << " s, share "
              << e.share_pct << " %\n";
  }
  EXPECT_TRUE(seen_other) << "the spinning thread never ran as SCHED_OTHER";
  EXPECT_TRUE(seen_fifo_again) << "the idle thread was never promoted back to SCHED_FIFO";
  EXPECT_GE(r.demotions, 1u);
  EXPECT_GE(r.promotions, 1u);
  ASSERT_FALSE(r.events.empty());
  EXPECT_TRUE(r.events[0].demote);
  EXPECT_GT(r.events[0].share_pct, 20.0);
  EXPECT_GT(r.events[0].t_s, 0.1);  // analytic: 0.255 s for an exact 50% load
  EXPECT_LT(r.events[0].t_s, 5.0);
  EXPECT_FALSE(r.events.back().demote);
  EXPECT_LT(r.events.back().share_pct, 18.0);
  EXPECT_GT(r.peak_share_pct, 20.0);
  EXPECT_LE(r.peak_share_pct, 100.0 / ncpus + 5.0);
  EXPECT_GT(r.mean_share_pct, 0.0);
  EXPECT_GT(r.time_demoted_s, 0.4);  // phase 2 alone is 0.5 s
  EXPECT_GT(r.samples, 10u);
  expect_alternating_events(r);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  EXPECT_EQ(r.label, "EMULATED SCHED_ISO (user-space governor)");
  // stop() leaves the thread as it was: promoted.
  EXPECT_EQ(after_stop.policy, kSchedFifo);
  EXPECT_EQ(after_stop.rt_priority, 1);
}

TEST(IsoGovernor, SleepingThreadIsNeverDemoted) {
  Sleeper sleeper;
  IsoGovernor gov(70, 0.5, online_cpus());
  ASSERT_EQ(gov.start({{getpid(), sleeper.tid()}}, fifo(1), other(0), 10), "");
  std::this_thread::sleep_for(1500ms);
  EXPECT_EQ(read_sched(sleeper.tid()).policy, kSchedFifo);
  const IsoReport r = gov.stop();
  std::cout << "sleeping thread: samples " << r.samples << ", demotions " << r.demotions
            << ", peak share " << r.peak_share_pct << " %, mean share " << r.mean_share_pct
            << " %\n";
  EXPECT_EQ(r.demotions, 0u);
  EXPECT_EQ(r.promotions, 0u);
  EXPECT_TRUE(r.events.empty());
  EXPECT_EQ(r.time_demoted_s, 0.0);
  EXPECT_GT(r.samples, 30u);  // ~300 expected at 5 ms; generous for a noisy VM
  EXPECT_LT(r.peak_share_pct, 5.0);
  EXPECT_LT(r.mean_share_pct, 5.0);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  // stop() leaves the thread as it is: still promoted.
  EXPECT_EQ(read_sched(sleeper.tid()).policy, kSchedFifo);
}

TEST(IsoGovernor, VanishedThreadIsRecordedOnceAndNotFatal) {
  Sleeper stays, leaves;
  const pid_t gone_tid = leaves.tid();
  IsoGovernor gov(70, 0.5, online_cpus());
  ASSERT_EQ(gov.start({{getpid(), stays.tid()}, {getpid(), gone_tid}}, fifo(1), other(0), 10), "");
  std::this_thread::sleep_for(50ms);
  leaves.release();  // joins: the thread has exited
  std::this_thread::sleep_for(200ms);
  const IsoReport r = gov.stop();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("thread " + std::to_string(gone_tid)), std::string::npos)
      << r.errors[0];
  EXPECT_NE(r.errors[0].find("vanished"), std::string::npos) << r.errors[0];
  EXPECT_GT(r.samples, 5u);
  EXPECT_EQ(read_sched(stays.tid()).policy, kSchedFifo);
}

TEST(IsoGovernor, StartRefusesWhatItCannotGovern) {
  Sleeper sleeper;
  {
    IsoGovernor gov(70, 0.5, online_cpus());
    // pid_max is at most 2^22, so this tid cannot exist.
    const std::string err = gov.start({{getpid(), 0x3fffffff}}, fifo(1), other(0), 10);
    EXPECT_NE(err.find("cannot read the CPU time"), std::string::npos) << err;
    EXPECT_EQ(gov.stop().samples, 0u);
  }
  {
    IsoGovernor gov(70, 0.5, online_cpus());
    const std::string err = gov.start({{getpid(), sleeper.tid()}}, fifo(10), other(0), 10);
    EXPECT_NE(err.find("must be above"), std::string::npos) << err;
    EXPECT_EQ(read_sched(sleeper.tid()).policy, kSchedOther);  // untouched
  }
  {
    IsoGovernor gov(70, 0.5, online_cpus());
    EXPECT_NE(gov.start({}, fifo(1), other(0), 10), "");
  }
  {
    IsoGovernor gov(70, 0.5, online_cpus());
    ASSERT_EQ(gov.start({{getpid(), sleeper.tid()}}, fifo(1), other(0), 10), "");
    EXPECT_NE(gov.start({{getpid(), sleeper.tid()}}, fifo(1), other(0), 10), "");
    gov.stop();
  }
}

}  // namespace
}  // namespace xrunlab
