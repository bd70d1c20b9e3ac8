// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab run --explain`'s record: the worst cycles' late hops as the kernel trace explains them
// (engine/trace/explain.hpp computes them, engine/run/window_traces.cpp fills the record,
// engine/result/run_json.cpp writes it as run.json's "explain"). Non-realtime.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace xrunlab {

// One late hop of a worst cycle: the stretch of the cycle the trace is asked about.
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

// What the trace shows in one hop's window. run.json keeps the hop's key, thread, tid and
// windows of `hop`; its cycle, time and slack are the cycle's.
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

// One explained worst cycle: its late hops, latest first, and their lines joined.
struct ExplainedCycle {
  uint64_t cycle = 0;
  double t_s = 0;
  std::optional<int64_t> slack_ns;  // nullopt: a client did not run
  std::string line;                 // "slack S us: <latest hop's line>[; <next> ...]"
  std::vector<HopExplanation> hops;
};

// How complete the trace was.
struct ExplainTrace {
  std::string instance;  // the tracefs instance
  std::string clock = "mono";
  int resolution_us = 1;
  uint64_t events = 0, lost_kernel = 0, dropped_store = 0, unparsed_lines = 0, unseen_switches = 0;
  std::pair<int64_t, int64_t> coverage_ns{0, 0};  // [start, end] of what it holds, mono ns
  std::vector<double> cpu_steal_pct;              // per CPU over the run (empty: unknown)
};

struct ExplainRecord {
  int requested = 0;  // --explain=N
  ExplainTrace trace;
  std::vector<ExplainedCycle> cycles;
};

}  // namespace xrunlab
