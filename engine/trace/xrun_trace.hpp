// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab run --trace-on-xrun`: a kernel trace ring frozen at the run's first xrun and saved as
// a trace-cmd file (xrun-trace.dat: `trace-cmd report -i`, KernelShark), so the moments before
// the xrun can be read event by event.
//
// A private tracefs instance of its own, instances/xrunlab-<pid>-xrun (apart from --explain's,
// whose reader consumes its ring): the same six events, trace_clock mono, a ring of
// buffer_kb_per_cpu per CPU in the kernel's default overwrite mode, so it always holds the
// newest events; nothing reads it during the run. Made through the system journal like
// --explain's (engine/trace/trace_session.hpp), so every exit path and, after a SIGKILL, the
// next start remove it. At the first xrun event the engine sees (the monitor's xrun callback,
// noticed within the run loop's 10 ms), tracing_on = 0 freezes the ring; after the window
// `trace-cmd extract -B <instance>` writes it to the file. How far back the ring reaches is not
// chosen but measured: each CPU's oldest event (per_cpu/cpuN/stats, "oldest event ts"), the
// latest of them being where every CPU is covered. trace-cmd 3.1's `split`, which could cut a
// file to the last N ms, does not read instance buffers, so the file holds the whole ring.
//
// Not for realtime code: file I/O and a child process; freeze() is one write(2).
#include <cstdint>
#include <optional>
#include <string>

#include "engine/result/run_records.hpp"
#include "engine/sched/sys_journal.hpp"
#include "engine/trace/trace_session.hpp"

namespace xrunlab {

inline constexpr int kXrunTraceBufferKb = 16384;

class XrunTrace {
 public:
  // Before anything starts: root and tracefs as for --explain, and trace-cmd on PATH
  // (Error(kMissingProgram) naming the Debian package otherwise). Changes nothing.
  static void check_available(const std::string& root = kTracefsRoot);

  explicit XrunTrace(SysJournal& journal, std::string root = kTracefsRoot,
                     int buffer_kb_per_cpu = kXrunTraceBufferKb);
  XrunTrace(const XrunTrace&) = delete;
  XrunTrace& operator=(const XrunTrace&) = delete;

  // Makes the instance and starts tracing. Throws SysChangeError naming the file at fault.
  void start();
  // Freezes the ring (tracing_on = 0) for the xrun at `xrun_mono_ns`. frozen_mono_ns is read
  // once the write has returned, so no event of the ring is later (the kernel stamps an event
  // after it found recording on). Only the first call counts; never throws.
  void freeze(int64_t xrun_mono_ns) noexcept;
  bool frozen() const { return xrun_mono_ns_.has_value(); }
  // Stops tracing (when no xrun froze it). Idempotent; never throws.
  void stop() noexcept;

  // After the window: writes the frozen ring to `path` with trace-cmd (its output to
  // `log_path`), and returns run.json's "trace_on_xrun" (oldest_mono_ns: from when every CPU is
  // covered); without an xrun, no file and why. Never throws.
  XrunTraceRecord save(const std::string& path, const std::string& log_path);

  const std::string& instance() const { return instance_; }

 private:
  SysJournal& journal_;
  std::string root_, instance_;
  int buffer_kb_;
  bool started_ = false, stopped_ = false;
  std::optional<int64_t> xrun_mono_ns_;
  int64_t frozen_mono_ns_ = 0;
};

// The latest "oldest event ts: S.US" of the per-CPU stats texts (seconds of the trace clock),
// in ns: from then on every CPU's events are in the ring. nullopt when no text has one.
std::optional<int64_t> covered_from_ns(const std::vector<std::string>& per_cpu_stats);

}  // namespace xrunlab
