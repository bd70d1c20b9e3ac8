// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The engine's watchdog over the clients' audio threads, during start-up and the measurement:
// a thread in a realtime class (realtime_class) that has run longer than the limit's watchdog_us
// of CPU without blocking once is killed (SIGKILL to its client) and named; a client that
// RLIMIT_RTTIME stopped is named too. "Without blocking" is the kernel's own sense
// (RLIMIT_RTTIME's): the thread's voluntary context switches (/proc/PID/task/TID/status) did not
// advance while its CPU time (schedstat) did.
//
// RunawayWatchdog is the decision, from the looks it is given (unit-tested with made-up looks);
// RunawayGuard takes the looks from /proc, kills through the fleet and records the verdict.
// Non-realtime: the run's thread.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/run/client_fleet.hpp"
#include "engine/run/live_result.hpp"
#include "engine/run/rt_time_limit.hpp"

namespace xrunlab {

// One look at a thread.
struct ThreadRun {
  uint64_t exec_ns = 0;             // CPU time so far (schedstat's first field)
  uint64_t voluntary_switches = 0;  // how often it blocked so far
  int64_t at_ns = 0;                // when the look was taken (CLOCK_MONOTONIC)
};

// The first field of /proc/PID/task/TID/schedstat; nullopt when malformed.
std::optional<uint64_t> parse_schedstat_exec_ns(std::string_view text);
// "voluntary_ctxt_switches:" of /proc/PID/task/TID/status; nullopt when absent.
std::optional<uint64_t> parse_voluntary_switches(std::string_view status);
// Both for thread `tid` of `pid`, now; nullopt when the thread is gone or unreadable.
std::optional<ThreadRun> read_thread_run(pid_t pid, pid_t tid, int64_t at_ns);

// Whether a thread of kernel policy `policy` can take its CPU from everything else by never
// blocking: SCHED_FIFO, SCHED_RR and SCHED_DEADLINE. A fair-class thread (SCHED_OTHER, BATCH,
// IDLE: iso-emu's demoted clients among them) is preempted by the scheduler however long it runs;
// one whose callbacks overrun back to back never sleeps either, and is no runaway.
bool realtime_class(int policy);

class RunawayWatchdog {
 public:
  RunawayWatchdog(size_t threads, uint64_t threshold_ns);

  // A look at thread k (a new tid for k starts afresh: `tid` keys the stretch). Returns the CPU
  // time it has run without blocking as far as the looks show: from the first look after its
  // last block (a lower bound: what ran between the block and that look is not counted).
  uint64_t observe(size_t k, pid_t tid, const ThreadRun& look);
  bool runaway(size_t k) const { return ran_ns(k) >= threshold_ns_; }
  // Thread k was seen outside a realtime class: what it ran there does not count (as for
  // RLIMIT_RTTIME), a stretch starts again at the next look.
  void restart(size_t k) { threads_.at(k).seen = false; }
  uint64_t ran_ns(size_t k) const;
  // When the current stretch was first seen (CLOCK_MONOTONIC; 0 = no stretch): the thread was
  // already running without blocking then, and did not block again until the last look.
  int64_t running_since_ns(size_t k) const;

 private:
  struct Stretch {
    pid_t tid = 0;
    bool seen = false;
    ThreadRun first, last;  // the stretch's first look and the latest
  };
  std::vector<Stretch> threads_;
  uint64_t threshold_ns_;
};

class RunawayGuard {
 public:
  // Watches `clients` client threads against `limit`.
  void start(const RtTimeLimit& limit, size_t clients);

  // Classifies every client that ended (each call) and looks at every live client's audio
  // thread (at most every `every`); kills a runaway. Returns "" while nothing ran away, else the
  // run's one-line reason (the same on every later call); r.runaway records it.
  std::string check(ClientFleet& fleet, LiveResult& live);
  bool tripped() const { return !reason_.empty(); }

  static constexpr std::chrono::milliseconds every{200};

 private:
  std::string trip(size_t k, RunawayCause cause, const std::string& policy, LiveResult& live);

  RtTimeLimit limit_;
  std::optional<RunawayWatchdog> watchdog_;
  std::vector<bool> killed_;
  std::vector<std::string> policy_;  // the thread's policy when last seen running a stretch
  int64_t next_look_ns_ = 0;
  std::string reason_;
};

}  // namespace xrunlab
