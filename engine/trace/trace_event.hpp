// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One scheduler or interrupt event of the kernel's trace, as a tracefs instance's trace_pipe
// prints it, parsed into a compact struct (engine/trace/trace_session.hpp reads the pipe).
//
// The text format (kernel/trace/trace_output.c, default options):
//   "     <comm>-<pid>  [<cpu>] <flags> <secs>.<usecs>: <event>: <fields>"
// The time is printed in whole microseconds (the clock, here mono, counts ns, but the text
// keeps usecs): every time below is a multiple of 1000 ns, 1 us resolution.
// Lost events are printed as "CPU:<n> [LOST <count> EVENTS]".
// Pure: no I/O. Non-realtime.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

enum class TraceKind : uint8_t {
  kSwitch,        // sched_switch: pid/comm/prio = prev, next_* = next
  kWaking,        // sched_waking: pid/comm/prio = the task being woken, num = target cpu
  kIrqEntry,      // irq_handler_entry: num = irq, comm = the handler's name
  kIrqExit,       // irq_handler_exit: num = irq
  kSoftirqEntry,  // softirq_entry: num = vec, comm = the action (TIMER, NET_RX ...)
  kSoftirqExit,   // softirq_exit: num = vec
};

using TraceComm = std::array<char, 16>;  // the kernel's TASK_COMM_LEN, NUL-terminated

struct TraceEvent {
  int64_t t_ns = 0;  // the trace clock (mono = CLOCK_MONOTONIC), 1 us resolution
  int32_t cpu = 0;
  int32_t current = -1;  // the task running on that CPU at the event (the line's "comm-pid")
  TraceKind kind = TraceKind::kSwitch;
  int32_t pid = 0;  // sched_switch: prev_pid; sched_waking: pid
  int32_t prio =
      0;  // the kernel's prio: 0..99 realtime (rt priority 99 - prio), 100..139 nice + 120
  int32_t next_pid = 0, next_prio = 0;  // sched_switch only
  int32_t num = 0;                      // irq, softirq vec, or sched_waking's target cpu
  char prev_state = 0;                  // sched_switch: 'R' (preempted), 'S', 'D' ...
  TraceComm comm{};                     // prev_comm / comm / irq name / softirq action
  TraceComm next_comm{};                // sched_switch only
};

// One trace_pipe line: an event, a lost-events marker, or something else (an event this
// parser does not read, a header): then neither is set.
struct TraceLine {
  std::optional<TraceEvent> event;
  uint64_t lost = 0;  // "[LOST n EVENTS]"
};
TraceLine parse_trace_line(std::string_view line);

// Adds the switches the trace does not show. On this kernel (6.18 on a VM) a CPU's switch from
// idle to a task is sometimes not recorded (the idle path runs while the tracer may not
// record: every switch to idle on CPU 1 was there, none from it). Each event names the task
// running when it fired, so a task seen running without its switch-in was switched in unseen:
// a sched_switch is inserted at its last sched_waking for that CPU (the switch follows the
// wake-up), but not before the CPU's previous event, which still showed the old task. `events` in
// time order; returns how many were inserted. Pure.
uint64_t add_unseen_switches(std::vector<TraceEvent>& events);

std::string comm_text(const TraceComm& c);
void set_comm(TraceComm& c, std::string_view text);

}  // namespace xrunlab
