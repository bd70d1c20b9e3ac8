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
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/result/cycle_hops.hpp"
#include "engine/result/explain_record.hpp"
#include "engine/trace/trace_event.hpp"

namespace xrunlab {

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

inline constexpr int64_t kSilentNs = 5000000;  // 5 ms: longer than a 250 Hz tick

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

// The whole --explain for run.json's "cycles": each worst cycle with its explained hops and its
// line "slack S us: <latest hop's line>[; <next> ...]".
std::vector<ExplainedCycle> explain_cycles(const std::vector<TraceEvent>& events,
                                           const CycleTableResult& table, size_t n,
                                           const ExplainThreads& threads, int64_t origin_ns,
                                           const TraceCoverage& coverage,
                                           const PolicyLookup& policy,
                                           const std::vector<double>& steal_pct);

// Each CPU's steal share (percent of its jiffies) between two /proc/stat texts ("cpuN ..."
// lines); empty when they cannot be read.
std::vector<double> steal_pct_per_cpu(const std::string& before, const std::string& after);

}  // namespace xrunlab
