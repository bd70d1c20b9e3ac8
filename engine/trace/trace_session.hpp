// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A private kernel trace for one run (--explain): a tracefs instance of its own, recording the
// scheduler's switches and wake-ups and the hard and soft interrupts of every CPU, read by a
// thread of its own into a bounded store.
//
// Set-up, each step through the system journal (engine/sched/sys_journal.hpp) BEFORE it is
// made, so that every exit path and, after a SIGKILL, the next start put it all back:
//   1. tracefs mounted at /sys/kernel/tracing if it is not ("mount": umount at the end);
//   2. instances/xrunlab-<pid> made ("mkdir": rmdir at the end, which also stops its tracing
//      and frees its buffer; the settings below live inside it and go with it);
//   3. trace_clock = mono (CLOCK_MONOTONIC, the cycle table's clock), buffer_size_kb, the six
//      events enabled, tracing_on = 1.
// The global trace (/sys/kernel/tracing/trace) and other instances are not touched.
//
// The store: events are kept in memory, up to max_events (72 bytes each); once full,
// later events are dropped and counted, and a window after the store's last event is said to
// have no trace, never guessed. The kernel's own losses (ring buffer overruns while the reader
// was not scheduled) are counted from the pipe's LOST markers and per_cpu/cpuN/stats.
//
// Not for realtime code. The reader thread runs at the engine's normal priority: tracing
// costs the traced CPUs the kernel's event recording (a few hundred ns per event), the
// reader's parsing runs whenever the CPUs are otherwise free.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/sched/sys_journal.hpp"
#include "engine/trace/trace_event.hpp"

namespace xrunlab {

inline constexpr const char* kTracefsRoot = "/sys/kernel/tracing";

struct TraceStats {
  uint64_t events = 0;           // parsed and kept
  uint64_t dropped_store = 0;    // parsed, not kept: the store was full
  uint64_t lost_kernel = 0;      // the kernel overwrote or dropped them (LOST markers + stats)
  uint64_t unparsed_lines = 0;   // lines the parser did not read
  uint64_t unseen_switches = 0;  // switches the trace did not record, inserted (trace_event.hpp)
  int64_t first_ns = 0, last_ns = 0;  // the kept events' span (0, 0 when none)
};

// Mounts tracefs at `root` if it is not, makes instances/NAME and sets it up stopped
// (tracing_on 0, trace_clock mono, buffer_size_kb per CPU, the six events enabled), each step
// journalled first. Returns the instance's folder. Throws SysChangeError naming the file at
// fault, Error(kUnsupported) naming `flag` when an event is missing.
std::string make_trace_instance(SysJournal& journal, const std::string& root,
                                const std::string& name, int buffer_kb_per_cpu,
                                const std::string& flag);

// Writes "0" or "1" to INSTANCE/tracing_on, outside the journal (the instance's rmdir at
// restore ends its tracing anyway). Never throws; false when the write failed.
bool set_tracing_on(const std::string& instance, bool on) noexcept;

class TraceSession {
 public:
  // Before anything starts: can a run trace here? Root (or CAP_SYS_ADMIN: the mount and the
  // instance need it), tracefs mounted or mountable at `root`, the events present. Throws
  // Error(kPermission) without root, Error(kUnsupported) without tracefs or its events, each
  // naming --explain. Changes nothing.
  // `flag` names the option in the messages (--explain, --trace-on-xrun).
  static void check_available(const std::string& root = kTracefsRoot,
                              const std::string& flag = "--explain");

  explicit TraceSession(SysJournal& journal, std::string root = kTracefsRoot,
                        size_t max_events = 4000000, int buffer_kb_per_cpu = 8192);
  // Stops the reader; the journal removes the instance (and the mount) at its restore_all().
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

  // Mounts, makes and starts the instance and the reader. Throws SysChangeError naming the
  // file at fault.
  void start();
  // Tracing off, the last events drained, the reader stopped, the kernel's loss counters read.
  // Idempotent; never throws.
  void stop() noexcept;

  // After stop(): the events in time order (each CPU's are in order in the pipe; the CPUs'
  // are merged here).
  const std::vector<TraceEvent>& events() const { return events_; }
  TraceStats stats() const;
  const std::string& instance() const { return instance_; }

 private:
  void read_loop();
  void drain(int fd, std::string& pending);
  void take_line(std::string_view line);

  SysJournal& journal_;
  std::string root_, instance_;
  size_t max_events_;
  int buffer_kb_;
  int pipe_fd_ = -1;
  bool started_ = false, stopped_ = false;
  std::atomic<bool> stop_reader_{false};
  std::thread reader_;
  std::vector<TraceEvent> events_;  // written by the reader until stop() joins it
  TraceStats stats_;
};

}  // namespace xrunlab
