// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A hand-built RunResult shared by the writer tests (summary, JSON): every number is chosen by
// hand; finalize() derives the totals.
#include <fmt/core.h>

#include "engine/result/cycle_join.hpp"
#include "engine/result/result.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab::testing_support {

inline telemetry::Second second_of(int index, int64_t second, uint64_t cycles,
                                   telemetry::ValueCounts delay, telemetry::ValueCounts duration,
                                   telemetry::ValueCounts cycle) {
  telemetry::Second s;
  s.index = index;
  s.second = second;
  s.cycles = cycles;
  s.delay = std::move(delay);
  s.delay_dll = s.delay;
  s.duration = std::move(duration);
  s.cycle = std::move(cycle);
  return s;
}

// Two clients, three seconds, 256 frames at 48 kHz; client 2 is late once in second 1 and then
// dies, so the run failed. Every number is chosen by hand; finalize() derives the totals.
inline RunResult sample_result() {
  RunResult r;
  r.status = RunStatus::kFailed;
  r.status_detail = "client 2 exited with status 1";
  r.clients = 2;
  r.ports = 4;
  r.frames = 256;
  r.rate = 48000;
  r.period_us = 256.0 * 1e6 / 48000.0;
  r.spare_us = r.period_us;
  r.seconds_ran = 3.02;
  r.delay_reference = "jack_frames_since_cycle_start";
  r.scheduling = "requested SCHED_FIFO 70 (jackd), 65 (clients: JACK2 server - 5)";
  r.delay_resolution_us = 1e6 / 48000.0;
  for (int index = 1; index <= 2; ++index) {
    ClientResult c;
    c.index = index;
    c.name = fmt::format("xrunlab-c{}", index);
    for (int64_t s = 0; s < 3; ++s) {
      telemetry::Second sec =
          second_of(index, s, 188, {{8, 100}, {11, 80}, {35 + s, 8}}, {{50, 180}, {70 + index, 8}},
                    {{120, 180}, {300 + 10 * s, 8}});
      if (index == 2 && s == 1) {
        sec.delay = {{8, 100}, {11, 85}, {1500, 1}, {6000, 2}};
        sec.cycle = {{120, 185}, {6200, 3}};
        sec.over_spare = 2;
        sec.over_1000 = 3;
        sec.late = 3;
      }
      add_second(c, sec);
    }
    if (index == 2) c.error = "exited with status 1";
    r.client_results.push_back(std::move(c));
  }
  for (int s = 0; s < 3; ++s) {
    SystemSecond sys;
    sys.t_s = s + 1.0;
    sys.user_pct = 20.5 + s;
    sys.system_pct = 5.25;
    sys.iowait_pct = 0.1;
    sys.softirq_pct = 0.05;
    sys.intr_per_s = 1680.1;
    sys.ctxt_per_s = 14361.3 + s;
    sys.dsp_load_pct = 36.3 - s;
    sys.xruns = s == 1 ? 2 : 0;
    r.system.push_back(sys);
  }
  r.xruns.monitor_events = 2;
  r.xruns.monitor_callbacks = 3;
  r.xruns.log_client_events = 2;
  r.xruns.log_client_lines = 3;
  r.xruns.late_clients = {"xrunlab-c2"};
  r.policy_spec = "fifo";
  r.loads = std::vector<LoadRecord>(2);
  LoadRecord& compile = (*r.loads)[0];
  compile.spec = "compile:2";
  compile.kind = "compile";
  compile.argv = {"compile", "2"};
  compile.pid = 5101;
  compile.start_s = -1.5;
  compile.stop_s = 3.25;
  compile.report.emplace();
  compile.report->cpu_user_s = 30.5;
  compile.report->cpu_system_s = 5.0;
  compile.report->iterations = 3;
  compile.report->kind = "compile";
  compile.report->args = {"2"};
  compile.report->workers_started = 3;
  compile.report->exit_statuses = {0, 0, 0};
  compile.report->scratch_removed = true;
  compile.report->stopped_by = "SIGTERM";
  compile.report->duration_s = 4.75;
  compile.log = "loads/1-compile.log";
  LoadRecord& io = (*r.loads)[1];
  io.spec = "io-write:8@nice=5";
  io.kind = "io-write";
  io.nice = 5;
  io.argv = {"io-write", "8"};
  io.pid = 5102;
  io.cpus = std::vector<int>{1};
  io.start_s = -1.5;
  io.stop_s = 3.25;
  io.report.emplace();
  io.report->cpu_user_s = 0.1;
  io.report->cpu_system_s = 1.5;
  io.report->bytes = uint64_t{8} * 1024 * 1024 * 100;
  io.report->kind = "io-write";
  io.report->args = {"8"};
  io.report->workers_started = 1;
  io.report->scratch_removed = true;
  io.report->stopped_by = "SIGTERM";
  io.report->duration_s = 4.75;
  io.report->nice = 5;
  io.log = "loads/2-io-write.log";
  for (int k = 0; k < 2; ++k) {
    AudioThread a;
    a.role = k == 0 ? "server" : "xrunlab-c1";
    a.sched.pid = 100 + k;
    a.sched.tid = 200 + k;
    a.sched.process = k == 0 ? "jackd" : "xrunlab-client";
    a.sched.thread = a.sched.process;
    a.sched.policy = 1;  // SCHED_FIFO
    a.sched.rt_priority = k == 0 ? 70 : 65;
    a.sched.cpus = {0, 1};
    a.expected = k == 0 ? "SCHED_FIFO 70" : "SCHED_FIFO 65";
    r.threads_start.push_back(a);
  }
  r.threads_end = r.threads_start;
  r.threads_end[1].sched.policy = 0;  // demoted behind our back: the summary must flag it
  r.threads_end[1].sched.rt_priority = 0;
  r.threads_end[1].mismatch = "SCHED_OTHER nice 0, expected SCHED_FIFO 65";
  r.logs = LogsRecord{};
  r.logs->jackd.lines = 1200;
  r.logs->jackd.kept = 310;
  r.logs->jackd.dropped = {{"Jack: JackEngine::ClientNotify", 850},
                           {"Jack: JackClient::Close", 40}};
  r.logs->clients.lines = 400;
  r.logs->clients.kept = 400;
  r.warnings.push_back("2 xruns in 3 seconds: try a larger period (--period 512)");
  // jack_test's fields by JACK1's rules and a few cycles hop by hop, as the engine joins them.
  r.xruns.card_xruns = 1;
  r.xruns.log_timed_out_lines = 0;
  JoinConfig jc;
  jc.rate = 48000;
  jc.frames = 256;
  jc.card = true;
  jc.time_source = "the vcard's record (test)";
  jc.resolution_us = 0.001;
  jc.client_names = {"c01", "c02"};
  jc.dsp_nominal_us = {60, 60};
  CycleJoiner j(jc);
  const int64_t t0 = static_cast<int64_t>(vcard::boundary_ns(1000, 48000, 256));
  j.set_origin(t0);
  for (uint64_t m = 1000; m < 1004; ++m) {
    JoinRow row;
    row.id = m;
    row.interrupt_ns = static_cast<int64_t>(vcard::boundary_ns(m, 48000, 256));
    row.jackd_wake_ns = *row.interrupt_ns + 40000 + static_cast<int64_t>(m - 1000) * 1000;
    int64_t t = *row.jackd_wake_ns;
    for (int k = 0; k < 2; ++k) {
      JoinCell c;
      c.ran = !(m == 1002 && k == 1);  // c02 did not run for boundary 1002
      c.entry_ns = t + 30000;
      c.exit_ns = c.entry_ns + 62000 + static_cast<int64_t>(m - 1000) * 500;
      c.wake_ns = *row.jackd_wake_ns;
      c.frame = static_cast<uint32_t>(m * 256);
      if (c.ran) t = c.exit_ns;
      row.cells.push_back(c);
    }
    j.add(row);
  }
  r.cycle_table = j.table();
  r.jack_test = j.jack_test();
  // The monitor's two callbacks arrived in cycle 1003 (both late clients of 1002); jackd's log
  // printed one line then, and one before any xrun cycle.
  XrunReports reports;
  reports.monitor.cycles = {1003, 1003};
  reports.monitor.t_s = {0.0155, 0.0155};
  reports.log = {{0.001, false, "xrunlab-c02", true}, {0.0165, false, "xrunlab-c02", true}};
  count_against_cycles(r, j.xrun_runs(), j.frames(), reports);
  finalize(r);
  return r;
}

}  // namespace xrunlab::testing_support
