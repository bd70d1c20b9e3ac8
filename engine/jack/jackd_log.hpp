// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// Parses the xrun lines the JACK2 server (1.9.21) prints and counts xrun events from them.
// Non-realtime: used by the engine while it drains jackd's stdout/stderr.

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xrunlab {

enum class JackdLineKind { kOther, kClientNotFinished, kClientFinishedLate, kDriverXrun };

struct JackdLine {
  JackdLineKind kind = JackdLineKind::kOther;
  std::string client;          // client lines: the JACK client name, verbatim
  std::string state;           // kClientNotFinished: NotTriggered, Triggered, Running, ...
  double driver_delay_us = 0;  // kDriverXrun: the delay the driver reported, in µs
};

// Recognises, anywhere in the line (prefixes and trailing "\r\n" are tolerated):
//   "JackEngine::XRun: client = NAME was not finished, state = STATE"
//   "JackEngine::XRun: client NAME finished after current callback"
//   "JackTimedDriver::Process XRun = N usec"              (dummy driver)
//   "... xrun of at least X msecs"                        (ALSA driver, jackd -v)
// NAME may contain spaces; it is matched greedily up to the last fixed suffix.
// Anything else, including malformed variants of the above, is kOther.
JackdLine parse_jackd_line(std::string_view line);

// Groups lines into distinct xrun events. One JACK2 CheckXRun pass prints one line per late
// client, back to back; a new event starts when (a) a client name repeats inside the current
// group, or (b) the arrival time gap to the previous client-late line exceeds `gap_us`.
// Driver xrun lines are counted separately (each is one event) and do not affect grouping.
class JackdXrunCounter {
 public:
  // One xrun event as the log showed it: who was late (client lines), or the driver.
  struct Event {
    int64_t arrival_us = 0;
    bool driver = false;
    std::vector<std::string> clients;  // in the order jackd named them
  };
  static constexpr size_t kMaxEventsKept = 10000;
  explicit JackdXrunCounter(int64_t gap_us);
  void add(std::string_view line, int64_t arrival_us);  // arrival in microseconds, monotonic
  uint64_t client_events() const;  // distinct client-late events (grouped as above)
  uint64_t client_lines() const;   // raw client-late lines (not finished + finished late)
  uint64_t driver_xruns() const;   // driver xrun lines (each is one event)
  double driver_max_delay_us() const;
  // Lines containing "timed out" anywhere: jack_test's Timeout Count (its awk: /timed out/).
  uint64_t timed_out_lines() const { return timed_out_lines_; }
  // Unique client names reported late by either kind of line (jack_test's "Timeout Count").
  const std::set<std::string>& late_clients() const;
  // The first kMaxEventsKept events (driver and client-late), in arrival order.
  const std::vector<Event>& events() const { return events_; }
  // One xrun line as it arrived: what is counted against the cycle table and says who made
  // each xrun (engine/result/xrun_causes.hpp).
  struct LineArrival {
    int64_t arrival_us = 0;
    bool driver = false;  // a driver xrun line
    std::string client;   // client lines: the client jackd named
    // Late itself: "was not finished, state = Running" (it was running at the deadline) or
    // "finished after current callback"; false for clients that had not started.
    bool late_itself = false;
  };
  // Every xrun line (driver and client-late): what is counted against the cycle table
  // (engine/result/xrun_ledger.hpp). The run takes them as it goes (take_line_arrivals): only
  // those since the last take wait here, at most kMaxLinesKept; more are dropped and the list
  // is cut.
  static constexpr size_t kMaxLinesKept = size_t{1} << 21;
  const std::vector<LineArrival>& line_arrivals() const { return line_arrivals_; }
  bool line_arrivals_cut() const { return line_arrivals_cut_; }
  std::vector<LineArrival> take_line_arrivals() {
    std::vector<LineArrival> out;
    out.swap(line_arrivals_);
    return out;
  }

 private:
  void note_line(LineArrival line) {
    if (line_arrivals_.size() < kMaxLinesKept) {
      line_arrivals_.push_back(std::move(line));
    } else {
      line_arrivals_cut_ = true;
    }
  }

  int64_t gap_us_;
  uint64_t client_events_ = 0;
  uint64_t client_lines_ = 0;
  uint64_t driver_xruns_ = 0;
  uint64_t timed_out_lines_ = 0;
  double driver_max_delay_us_ = 0;
  bool in_group_ = false;
  int64_t last_client_arrival_us_ = 0;
  std::set<std::string> group_;  // names seen in the current event
  std::set<std::string> late_clients_;
  std::vector<Event> events_;
  bool current_kept_ = false;  // the current client event is events_[current_index_]
  size_t current_index_ = 0;
  std::vector<LineArrival> line_arrivals_;
  bool line_arrivals_cut_ = false;
};

}  // namespace xrunlab
