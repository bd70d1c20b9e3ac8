// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --explain: what kept the late hops of the worst cycles late, from the kernel's trace
// (engine/trace/trace_session.hpp). Pure functions over an event list and the cycle rows, so
// that unit tests feed them events made by hand. Non-realtime.
//
// For each of the N worst cycles (by slack, as the cycle table ranks them) the hops that were
// late (their time minus that hop's median over the run) are explained, the latest first:
//   interrupt -> jackd wake-up   the woken thread is jackd's realtime thread
//   upstream done -> cNN entry    cNN's process thread (c01: from jackd's wake-up)
//   cNN entry -> cNN exit         cNN's process thread, preempted during its DSP
// The thread's own timeline through the window [hop start, hop end] is followed from its
// switches: while it runs, the time is spent on its CPU; while it waits after a preemption, on
// the CPU it was preempted on; while it waits after a wake-up, on the CPU it next runs on. Every
// microsecond is given to what the trace shows on that CPU then: the interrupt or softirq handler
// running (innermost), else the task switched in (the thread itself, idle = pid 0, or another task:
// a blocker). Before the thread's last wake-up in the window it was not runnable: that part is
// "asleep" (its waker was late), given to no one. A window with no trace (before the trace started,
// after its store filled) says so. Time nobody competed for (idle, the thread itself) on a VM may
// be steal: the CPU's steal share over the run (/proc/stat) is given beside it. Limits: the trace
// prints whole microseconds; a thread that waited on one CPU's run queue and then migrated is
// attributed to the CPU it was preempted on, or (after a wake-up) to the one it ran on next.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/result/cycle_hops.hpp"
#include "engine/trace/trace_event.hpp"

namespace xrunlab {

// A hop of one cycle to explain: which thread was late, over which window (CLOCK_MONOTONIC ns).
struct HopWindow {
  uint64_t cycle = 0;
  double t_s = 0;
  std::optional<int64_t> slack_ns;
  std::string hop_key;   // "jackd_wakeup", "wakeup.c03", "dsp.c03" (HopSeries::key)
  std::string hop_text;  // "jackd's wake-up", "c03's wake-up", "c03's DSP"
  std::string thread;    // "jackd", "c03"
  pid_t tid = 0;
  int64_t start_ns = 0, end_ns = 0;          // absolute (the trace's clock)
  int64_t rel_start_ns = 0, rel_end_ns = 0;  // relative to the cycle's interrupt
  int64_t late_ns = 0;                       // duration minus the hop's median over the run
};

struct ExplainThreads {
  pid_t jackd_tid = 0;             // 0: unknown (its hop is not explained)
  std::vector<pid_t> client_tids;  // chain order; 0: unknown
  std::vector<std::string> client_names;
};

// The hops to explain: for each of the `n` worst rows (table.worst, worst first), its late
// hops (late >= min_late_ns, at most per_cycle, the latest first; the latest one always).
// `origin_ns` is the window start (the rows' t_s are seconds after it).
std::vector<HopWindow> select_late_hops(const CycleTableResult& table, size_t n,
                                        const ExplainThreads& threads, int64_t origin_ns,
                                        int64_t min_late_ns = 50000, size_t per_cycle = 3);

// The span the trace covers completely: from tracing on to its last kept event (the store
// filled) or to tracing off.
struct TraceCoverage {
  int64_t start_ns = 0, end_ns = 0;
};

struct TaskTime {
  pid_t pid = 0;
  std::string comm;
  int prio = 0;        // the kernel's prio (trace): <0 deadline, 0..99 realtime, 100..139 fair
  std::string policy;  // "SCHED_FIFO 90", "realtime 90", "SCHED_OTHER nice 0", "nice 0" ...
  int64_t ns = 0;
  // It ran while the (higher priority) thread was runnable: no preemption would allow that,
  // so the CPU did not act on the wake-up (interrupts off, or on a VM the host did not run the
  // virtual CPU).
  bool lower_priority = false;
};

struct IrqTime {
  int num = 0;       // irq number or softirq vec
  std::string name;  // handler name / softirq action
  uint64_t count = 0;
  int64_t ns = 0;
};

inline constexpr int64_t kSilentNs = 5000000;  // 5 ms: longer than a 250 Hz tick

struct HopExplanation {
  HopWindow hop;
  bool traced = false;   // the window lies inside the trace's coverage
  std::string no_trace;  // why not, when !traced
  int cpu = -1;          // where the thread ran last (-1: no switch of it in the trace)
  std::set<int> cpus;    // the CPUs its window was spent on (it may have migrated)
  std::optional<int64_t>
      woken_ns;                    // its last sched_waking in the window, relative to the interrupt
  std::vector<TaskTime> blockers;  // other tasks that ran there, most time first
  std::vector<IrqTime> irqs, softirqs;  // most time first
  int64_t asleep_ns = 0;   // before its last wake-up in the window: not runnable, so not held
                           // by anyone (its waker came late); not given to what ran meanwhile
  int64_t self_ns = 0;     // the thread itself ran (before reaching the hop's end)
  int64_t idle_ns = 0;     // the CPU idle (pid 0)
  int64_t unknown_ns = 0;  // no switch on that CPU tells who ran
  // The longest stretch of the window in which its CPU recorded no event at all: a busy CPU
  // records at least its timer tick every few ms, so a long silence suggests the host did not
  // run the virtual CPU (the line says so from kSilentNs).
  int64_t silent_ns = 0;
  int silent_cpu = -1;
  std::optional<double> cpu_steal_pct;  // that CPU's steal over the run
  std::string line;                     // one line for people
};

// The policy of a pid that is still alive (SCHED_* number), nullopt when it is gone: the
// trace gives the priority, not the class (FIFO or RR).
using PolicyLookup = std::function<std::optional<int>(pid_t)>;
// /proc/PID/stat's policy.
std::optional<int> proc_policy(pid_t pid);

// `events` in time order. `steal_pct` per CPU (empty: unknown).
HopExplanation explain_hop(const std::vector<TraceEvent>& events, const HopWindow& hop,
                           const TraceCoverage& coverage, const PolicyLookup& policy,
                           const std::vector<double>& steal_pct);

// "SCHED_FIFO 90" from the trace's prio and the policy if known.
std::string policy_text(int prio, std::optional<int> policy);

nlohmann::json to_json(const HopExplanation& e);

// The whole --explain for run.json's "cycles": per worst cycle {cycle, t_s, slack_ns, line,
// hops: [to_json ...]}, its line "slack S us: <latest hop's line>[; <next> ...]".
nlohmann::json explain_cycles(const std::vector<TraceEvent>& events, const CycleTableResult& table,
                              size_t n, const ExplainThreads& threads, int64_t origin_ns,
                              const TraceCoverage& coverage, const PolicyLookup& policy,
                              const std::vector<double>& steal_pct);

// Each CPU's steal share (percent of its jiffies) between two /proc/stat texts ("cpuN ..."
// lines); empty when they cannot be read.
std::vector<double> steal_pct_per_cpu(const std::string& before, const std::string& after);

}  // namespace xrunlab
