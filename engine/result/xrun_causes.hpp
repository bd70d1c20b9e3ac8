// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One xrun count for the run, and who made each xrun.
//
// The cycle table's xrun events (engine/result/xrun_cycles.hpp) are the xruns of the run's own
// chain. JACK also reports xruns the chain never saw: a foreign client on the same server (a
// DAW, a plugin host, `jack_cpu`) that is still running at the deadline makes the card and every
// listener miss a cycle, while the run's clients finished theirs in time. Those reports (monitor
// callbacks and jackd's lines) fall to no event of the table; here they become xrun events of
// their own, "outside the chain", so that the run's count is every xrun JACK reported:
//
//  * A report falls to a chain event when it arrives no later than report_lag_cycles() after
//    the event's last cycle (engine/result/xrun_cycles.hpp). A report later than that is not
//    the event's.
//  * The monitor callbacks no chain event explains, by their arrival cycle: callbacks less than
//    kOutsideGapCycles cycles apart are one outside event (JACK2 notifies once per late client
//    and again in the next cycle when the stall lasts).
//  * jackd's lines no chain event explains join the outside event whose first callback is
//    nearest, within the same bound; lines near no callback are outside events of their own
//    (lines less than kOutsideGapCycles periods apart are one).
//  * An xrun of a cycle before the window is not the window's: an outside event whose first
//    callback arrived in the window's first cycle (JACK's frame time then; a stall in the first
//    cycle is reported in the second), or with no callback whose first line came in the first
//    two periods, is left out.
//
// The cause of an event is read from jackd's lines that fell to it:
//  * "driver": a driver xrun line (jackd's own cycle, or the card, was late);
//  * "client": the first client jackd found still running at the deadline, or that finished
//    after it (by name: the run's clients and foreign ones alike; the report tells them apart);
//  * "not_started": jackd named only clients that had not started (state Triggered): the graph
//    was not scheduled in time, no client ran long;
//  * "unnamed": no line fell to it (no jackd log: --backend attach, PipeWire; or the log was
//    cut).
// Pure; non-realtime.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/result/xrun_cycles.hpp"

namespace xrunlab {

// One xrun line of jackd's log as the run keeps it.
struct XrunLogLine {
  double t_s = 0;  // arrival, seconds since the window start
  bool driver = false;
  std::string client;        // client lines: the client jackd named
  bool late_itself = false;  // running at the deadline, or finished after it
};

inline constexpr uint64_t kOutsideGapCycles = 3;

// What made an xrun event.
struct XrunCause {
  std::string kind;    // "client" | "driver" | "not_started" | "unnamed"
  std::string client;  // kind "client": the name jackd gave
  bool operator==(const XrunCause& o) const { return kind == o.kind && client == o.client; }
};
XrunCause cause_of(const std::vector<const XrunLogLine*>& lines);

// An xrun event outside the run's chain.
struct OutsideXrun {
  double t_s = 0;                 // its first report, seconds since the window start
  std::optional<uint64_t> cycle;  // its first callback's arrival cycle (none: log lines only)
  uint64_t callbacks = 0, lines = 0;
  XrunCause cause;
};

// Events per cause, in the chain and outside it.
struct CauseCount {
  XrunCause cause;
  uint64_t chain = 0, outside = 0;
  bool run_client = false;  // kind "client": one of the run's own (count_against_cycles sets it)
};

struct XrunAttribution {
  static constexpr size_t kOutsideKept = 10000;
  uint64_t outside_events = 0;
  std::vector<OutsideXrun> outside;  // the first kOutsideKept
  std::vector<CauseCount> causes;    // in the order first met
  void count(const XrunCause& c, bool chain);
};
void merge_attribution(XrunAttribution& into, const XrunAttribution& more);

// The monitor's callbacks: arrival cycle (nullopt: before the table) and arrival time.
struct CallbackArrivals {
  std::vector<std::optional<uint64_t>> cycles;
  std::vector<double> t_s;  // seconds since the window start
};

// Attributes the chain's events and builds the outside events (see the header comment).
// `first_cycle`: the window's first row (nullopt: not known, nothing is left out).
XrunAttribution attribute_xruns(const std::vector<XrunRun>& runs, const CallbackArrivals& callbacks,
                                const std::vector<XrunLogLine>& lines, double period_ms,
                                std::optional<uint64_t> first_cycle = std::nullopt);

}  // namespace xrunlab
