// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The kernel traces a run may take through its window, and what comes of them:
//   --explain N       the scheduler and interrupts traced through the whole window
//                     (engine/trace/trace_session.hpp); at the end the N worst cycles are
//                     explained from it (engine/trace/explain.hpp) into run.json "explain";
//   --trace-on-xrun   a ring kept running and frozen at the window's first xrun
//                     (engine/trace/xrun_trace.hpp), saved as xrun-trace.dat (run.json
//                     "trace_on_xrun").
// Both trace instances are recorded in the run's journal, which removes them on every exit
// path. Non-realtime: the run's own thread.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/run/live_result.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/trace/explain.hpp"
#include "engine/trace/trace_session.hpp"
#include "engine/trace/xrun_trace.hpp"

namespace xrunlab {

// run.json's "explain": what was asked, how complete the trace was, and the explained cycles.
ExplainRecord explain_section(int requested, const std::string& instance, const TraceStats& st,
                              const TraceCoverage& coverage, const std::vector<double>& steal,
                              std::vector<ExplainedCycle> cycles);

class WindowTraces {
 public:
  // `explain`: --explain's N (0: none); `on_xrun`: --trace-on-xrun.
  WindowTraces(SysJournal& journal, int explain, bool on_xrun)
      : journal_(journal), explain_(explain), on_xrun_(on_xrun) {}

  // Before anything starts: can this run take the traces it asks for? Throws Error as
  // TraceSession::check_available and XrunTrace::check_available.
  void check_available() const;

  // Right before the window: starts the traces asked for. Returns what to tell the user.
  std::vector<std::string> start();

  // During the window: the --trace-on-xrun ring is waiting for the first xrun.
  bool waiting_for_xrun() const { return xrun_ && !xrun_->frozen(); }
  // Freezes that ring for the xrun at `xrun_mono_ns` (CLOCK_MONOTONIC).
  void freeze(int64_t xrun_mono_ns) noexcept;

  // After the window, once r.cycle_table holds every cycle: stops --explain's trace and
  // explains the worst cycles (those of the cycle table's worst list) into r.explain, the
  // window starting at `t0_ns` (CLOCK_MONOTONIC). Lost kernel events become a warning.
  // `also`: a cycle explained first whatever its slack (--ramp's first xrun cycle), beside the
  // worst ones.
  void explain(LiveResult& live, int64_t t0_ns, const CycleRow* also = nullptr);

  // Saves the frozen ring into `run_dir` (r.trace_on_xrun). Returns what to tell the user ("":
  // nothing); a ring that froze but could not be saved becomes a warning.
  std::string save_xrun_trace(LiveResult& live, const std::string& run_dir);

  // Stops both readers (their instances can then be removed). Idempotent; never throws.
  void stop() noexcept;

 private:
  SysJournal& journal_;
  int explain_;
  bool on_xrun_;
  std::unique_ptr<TraceSession> trace_;
  std::unique_ptr<XrunTrace> xrun_;
  int64_t start_ns_ = 0;
  std::string stat_before_;
};

}  // namespace xrunlab
