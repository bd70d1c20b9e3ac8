// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// The `--policy SPEC` grammar, its human label, and the scheduling it asks of jackd's realtime
// thread and of every client's process thread.
// Non-realtime: parsed once from the command line; targets computed before any process starts.
//
// Grammar (the reference; policy_help() below is its one short form, for --help):
//
//   fifo[:PRIO]        SCHED_FIFO. PRIO is the server's RT priority, 6..95 (default 70);
//   rr[:PRIO]          SCHED_RR.   clients run 5 below the server, as in JACK2.
//   other[:NICE]       SCHED_OTHER with nice NICE: one signed integer -20..19 (default 0).
//   batch[:NICE]       SCHED_BATCH with nice NICE, as for other. other:-20 is the famous
//                      "nice -20" case; `--20` or `+-3` is refused (in a shell, `nice --20`
//                      means nice -20; here a nice value is a single signed number).
//   idle               SCHED_IDLE.
//   deadline[:RUNTIME_US,PERIOD_US][,reclaim]
//                      SCHED_DEADLINE (deadline = period), microseconds, 0 < runtime <= period;
//                      both or neither (default: period = the JACK period, runtime from the
//                      clients' DSP load with a margin). `reclaim` sets SCHED_FLAG_RECLAIM.
//   iso[:ISO_CPU]      the kernel's SCHED_ISO (policy 4; -ck/BFS/MuQSS kernels only),
//                      ISO_CPU percent 1..100 (default 70).
//   iso-emu[:ISO_CPU[,ISO_PERIOD_S]]
//                      EMULATED SCHED_ISO on any kernel (a user-space governor): ISO_CPU
//                      percent 1..100 (default 70), ISO_PERIOD_S seconds 0.1..600 (default 5).
//   rt-throttle:PCT[,PERIOD_US]
//                      SCHED_FIFO (at the server priority, clients 5 below) inside a cgroup-v1
//                      cpu group with RT bandwidth PCT percent 1..100 (required) of PERIOD_US
//                      microseconds 1000..1000000 (default 1000000).
//
// Percentages and ISO_PERIOD_S may have decimals (12.5); PRIO, NICE and microseconds are
// integers. Names are lower case; no spaces.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/wire/sched_target.hpp"

namespace xrunlab {

enum class PolicyKind { kFifo, kRr, kOther, kBatch, kIdle, kDeadline, kIso, kIsoEmu, kRtThrottle };

// iso-emu runs the audio threads SCHED_FIFO at these low RT priorities while promoted: the lowest
// RT priorities, so like real SCHED_ISO they sit above every SCHED_OTHER task and below every
// genuine RT task (the governor, IRQ threads), and, as in JACK, the server above its clients.
inline constexpr int kIsoEmuServerPriority = 2;
inline constexpr int kIsoEmuClientPriority = 1;

// JACK2's rule: client threads run this far below the server's RT priority (jackd -P).
inline constexpr int kJackClientPriorityOffset = 5;

struct PolicySpec {
  PolicyKind kind = PolicyKind::kFifo;
  std::string text;  // as the user wrote it
  // fifo/rr/rt-throttle: the SERVER's RT priority; clients run 5 below (JACK2's rule).
  // iso-emu: the server's RT priority while promoted (kIsoEmuServerPriority; clients run at
  // kIsoEmuClientPriority). Other kinds: unused (left at the default).
  int priority = 70;
  int nice = 0;                                         // other/batch: -20..19
  std::optional<uint64_t> dl_runtime_us, dl_period_us;  // deadline: both or neither
  bool dl_reclaim = false;  // deadline: "deadline:RUNTIME,PERIOD,reclaim" or "deadline:reclaim"
  double iso_cpu_pct = 70;  // iso / iso-emu
  double iso_period_s = 5;  // iso-emu
  double throttle_pct = 0;  // rt-throttle: required
  uint64_t throttle_period_us = 1000000;
};

// The --policy help text: the grammar above in one paragraph.
const char* policy_help();

// Parses SPEC (grammar above). On error returns nullopt and, if `why` is not null, sets it to one
// line naming the part at fault and the accepted form, e.g.
// "priority 200 is out of range 6..95; use fifo[:PRIO] with PRIO an integer 6..95 (default 70)".
// The caller adds the flag ("--policy 'fifo:200': ...").
std::optional<PolicySpec> parse_policy(std::string_view text, std::string* why);

// Human label for results. Never the bare kernel name for an emulation: iso-emu is
// "EMULATED SCHED_ISO (user-space governor), iso_cpu 70%, iso_period 5 s". Nice values are
// shown signed ("SCHED_OTHER nice -20", "SCHED_BATCH nice +5", "SCHED_OTHER nice 0").
// E.g. "SCHED_FIFO 70 (server) / 65 (clients)".
std::string describe(const PolicySpec& p);

// What the server's realtime thread and each client's process thread must run under.
// period_ns = frames * 1e9 / rate. client_dsp_ns = the DSP time each client is asked for.
//
//   fifo/rr, rt-throttle  server {FIFO|RR, priority}, clients {FIFO|RR, priority - 5}
//   other/batch           {OTHER|BATCH, nice} for both
//   idle                  {IDLE} for both
//   iso                   {kSchedIso} for both (only -ck kernels have it)
//   iso-emu               the promoted class: server {FIFO, 2}, clients {FIFO, 1}; the governor
//                         demotes both to {OTHER, nice 0} (see iso_governor.hpp)
//   deadline              period = PERIOD_US or the JACK period, deadline = period;
//                         client runtime = RUNTIME_US or
//                             min(0.95 period, max(2 x client_dsp_ns + 50 us, 100 us));
//                         server runtime = RUNTIME_US or min(0.95 period, max(period / 10, 100
//                         us)); `reclaim` -> dl_flags = kSchedFlagReclaim on both.
// rate == 0 gives a JACK period of 0.
struct PolicyTargets {
  ThreadTarget server, client;
};
PolicyTargets targets_for(const PolicySpec& p, uint32_t frames, uint32_t rate,
                          uint64_t client_dsp_ns);

}  // namespace xrunlab
