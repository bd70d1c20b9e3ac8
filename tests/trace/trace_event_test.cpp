// SPDX-License-Identifier: GPL-2.0-or-later
// parse_trace_line on lines as this kernel's trace_pipe prints them (copied from a real
// instance with trace_clock mono).
#include "engine/trace/trace_event.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(TraceEvent, SchedSwitchGivesBothTasksTheirPrioAndTheTimeInNanoseconds) {
  const TraceLine l = parse_trace_line(
      "         cc1plus-3361    [001] d..2. 19534.648190: sched_switch: prev_comm=cc1plus "
      "prev_pid=3361 prev_prio=120 prev_state=R ==> next_comm=jackd next_pid=3385 next_prio=29\n");
  ASSERT_TRUE(l.event);
  const TraceEvent& e = *l.event;
  EXPECT_EQ(e.kind, TraceKind::kSwitch);
  EXPECT_EQ(e.cpu, 1);
  EXPECT_EQ(e.t_ns, 19534648190000);
  EXPECT_EQ(comm_text(e.comm), "cc1plus");
  EXPECT_EQ(e.pid, 3361);
  EXPECT_EQ(e.prio, 120);
  EXPECT_EQ(e.prev_state, 'R');
  EXPECT_EQ(comm_text(e.next_comm), "jackd");
  EXPECT_EQ(e.next_pid, 3385);
  EXPECT_EQ(e.next_prio, 29);
}

TEST(TraceEvent, CommsWithSpacesDashesAndBracketsAreReadWhole) {
  const TraceLine l = parse_trace_line(
      "   my task-[1]-x-77      [000] d..2.   12.000001: sched_switch: prev_comm=my task-[1]-x "
      "prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120");
  ASSERT_TRUE(l.event);
  EXPECT_EQ(l.event->cpu, 0);
  EXPECT_EQ(l.event->t_ns, 12000001000);
  EXPECT_EQ(comm_text(l.event->comm), "my task-[1]-x");
  EXPECT_EQ(l.event->pid, 77);
  EXPECT_EQ(l.event->prev_state, 'S');
  EXPECT_EQ(comm_text(l.event->next_comm), "swapper/0");
  EXPECT_EQ(l.event->next_pid, 0);
}

TEST(TraceEvent, WakingIrqAndSoftirqEventsKeepTheirNumbersAndNames) {
  const TraceLine w = parse_trace_line(
      "         cc1plus-3385    [001] dNs3. 19534.652142: sched_waking: comm=rcu_preempt pid=15 "
      "prio=120 target_cpu=000");
  ASSERT_TRUE(w.event);
  EXPECT_EQ(w.event->kind, TraceKind::kWaking);
  EXPECT_EQ(w.event->pid, 15);
  EXPECT_EQ(w.event->num, 0);
  EXPECT_EQ(comm_text(w.event->comm), "rcu_preempt");
  const TraceLine i = parse_trace_line(
      "          <idle>-0       [000] d.h1.   100.000010: irq_handler_entry: irq=11 name=virtio0");
  ASSERT_TRUE(i.event);
  EXPECT_EQ(i.event->kind, TraceKind::kIrqEntry);
  EXPECT_EQ(i.event->num, 11);
  EXPECT_EQ(comm_text(i.event->comm), "virtio0");
  const TraceLine ix = parse_trace_line(
      "          <idle>-0       [000] d.h1.   100.000020: irq_handler_exit: irq=11 ret=handled");
  ASSERT_TRUE(ix.event);
  EXPECT_EQ(ix.event->kind, TraceKind::kIrqExit);
  EXPECT_EQ(ix.event->num, 11);
  const TraceLine s = parse_trace_line(
      "          <idle>-0       [001] ..s1.   100.000030: softirq_entry: vec=1 [action=TIMER]");
  ASSERT_TRUE(s.event);
  EXPECT_EQ(s.event->kind, TraceKind::kSoftirqEntry);
  EXPECT_EQ(s.event->num, 1);
  EXPECT_EQ(comm_text(s.event->comm), "TIMER");
  const TraceLine sx = parse_trace_line(
      "          <idle>-0       [001] ..s1.   100.000040: softirq_exit: vec=1 [action=TIMER]");
  ASSERT_TRUE(sx.event);
  EXPECT_EQ(sx.event->kind, TraceKind::kSoftirqExit);
}

TEST(TraceEvent, EachEventNamesTheTaskRunningThen) {
  const TraceLine l = parse_trace_line(
      "  my task-[1]-x-77      [001] d.h3. 22109.869401: sched_waking: comm=python3 pid=32152 "
      "prio=9 target_cpu=001");
  ASSERT_TRUE(l.event);
  EXPECT_EQ(l.event->current, 77);
  EXPECT_EQ(parse_trace_line("          <idle>-0       [001] d.h3. 1.000000: irq_handler_exit: "
                             "irq=1 ret=handled")
                .event->current,
            0);
}

TraceEvent at(int64_t t_us, int cpu, int current, TraceKind kind) {
  TraceEvent e;
  e.t_ns = t_us * 1000;
  e.cpu = cpu;
  e.current = current;
  e.kind = kind;
  return e;
}

TEST(TraceEvent, ASwitchFromIdleTheTraceDidNotRecordIsInsertedAtTheWakeUp) {
  // As this kernel left it on CPU 1: busy loop 42 switched out to idle, woken from idle at
  // 1000 us, then seen running at 3000 us (a tick) with no switch-in recorded.
  TraceEvent out = at(500, 1, 42, TraceKind::kSwitch);
  out.pid = 42;
  set_comm(out.comm, "busyloop");
  out.prio = 9;
  out.next_pid = 0;
  set_comm(out.next_comm, "swapper/1");
  out.next_prio = 120;
  TraceEvent wake = at(1000, 1, 0, TraceKind::kWaking);
  wake.pid = 42;
  set_comm(wake.comm, "busyloop");
  wake.prio = 9;
  wake.num = 1;
  const TraceEvent tick = at(3000, 1, 42, TraceKind::kSoftirqEntry);
  // CPU 0: the first event there says who runs; that is not a missing switch.
  const TraceEvent other = at(2000, 0, 7, TraceKind::kIrqEntry);
  std::vector<TraceEvent> events = {out, wake, other, tick};
  EXPECT_EQ(add_unseen_switches(events), 1u);
  ASSERT_EQ(events.size(), 5u);
  const TraceEvent& sw = events[2];
  EXPECT_EQ(sw.kind, TraceKind::kSwitch);
  EXPECT_EQ(sw.t_ns, 1000000);
  EXPECT_EQ(sw.cpu, 1);
  EXPECT_EQ(sw.pid, 0);
  EXPECT_EQ(sw.next_pid, 42);
  EXPECT_EQ(comm_text(sw.next_comm), "busyloop");
  EXPECT_EQ(sw.next_prio, 9);
  // Switches revealed late but dated earlier keep the list in time order; one is not put
  // before the CPU's previous event (which still showed the old task).
  TraceEvent idle_tick = at(3500, 0, 7, TraceKind::kSoftirqEntry);
  TraceEvent wake0 = at(2500, 1, 42, TraceKind::kWaking);
  wake0.pid = 9;
  wake0.num = 0;
  TraceEvent seen9 = at(4000, 0, 9, TraceKind::kIrqEntry);
  std::vector<TraceEvent> later = events;
  later.push_back(wake0);
  later.push_back(idle_tick);
  later.push_back(seen9);
  std::stable_sort(later.begin(), later.end(),
                   [](const TraceEvent& l, const TraceEvent& r) { return l.t_ns < r.t_ns; });
  EXPECT_EQ(add_unseen_switches(later), 1u);
  for (size_t i = 1; i < later.size(); ++i) ASSERT_LE(later[i - 1].t_ns, later[i].t_ns);
  for (const TraceEvent& e : later) {
    if (e.kind == TraceKind::kSwitch && e.next_pid == 9) {
      EXPECT_EQ(e.t_ns, 3500000);
    }
  }
  // A complete trace gets nothing.
  std::vector<TraceEvent> again = events;
  EXPECT_EQ(add_unseen_switches(again), 0u);
}

TEST(TraceEvent, LostMarkerIsCountedAndOtherLinesAreNeitherEventNorLoss) {
  const TraceLine lost = parse_trace_line("CPU:1 [LOST 4242 EVENTS]");
  EXPECT_FALSE(lost.event);
  EXPECT_EQ(lost.lost, 4242u);
  for (const char* other :
       {"", "# tracer: nop",
        "            bash-1 [000] d..2. 1.000000: sched_wakeup: comm=a pid=2 prio=120 "
        "target_cpu=000",
        "garbage [x] no stamp"}) {
    const TraceLine l = parse_trace_line(other);
    EXPECT_FALSE(l.event) << other;
    EXPECT_EQ(l.lost, 0u) << other;
  }
}

}  // namespace
}  // namespace xrunlab
