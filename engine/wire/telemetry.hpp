// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The telemetry wire format between xrunlab-client and the engine: one JSON object per line.
//
//   client -> engine (telemetry fd):
//     {"type":"hello", ...}    after jack_activate: identity, JACK settings, DSP calibration
//     {"type":"second", ...}   one per measured second per client: exact per-second deltas
//     {"type":"glitch", ...}   the chain's tail (--sink): one audible discontinuity of the test
//                              signal, as soon as it is classified
//     {"type":"final", ...}    after the stop time: totals, then the client exits
//     {"type":"error", ...}    a fatal client error, then the client exits non-zero
//     {"type":"connections", ...}
//                              the connections of the client's own ports, in reply to
//                              "report-connections"
//   engine -> client (the client's stdin):
//     "connect <src> <dst>\n"  make this connection (one into the client's own ports)
//     "report-connections\n"   send "connections" (after the connect commands: they are made)
//     "start <jack_usecs> [<end_usecs>]\n"
//                             measure cycles whose callback starts at or after this JACK time,
//                             and (when given) before the planned end, unless a stop ends the
//                             window earlier
//     "stop <jack_usecs>\n"   ... and before this one (final); then flush, send "final", exit
//
// Times are jack_get_time() microseconds (CLOCK_MONOTONIC_RAW on Linux), the same clock in the
// engine (its monitor client) and in every client, so a window is the same for all of them.
// Every per-second delta is exact: (value, count) pairs of every value seen in that second.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "engine/wire/dsp_ramp.hpp"

namespace xrunlab::telemetry {

inline constexpr int kWireVersion = 1;

// value (µs) -> number of cycles with that value, exact.
using ValueCounts = std::map<int64_t, uint64_t>;

struct WorstCycle {
  int64_t t_us = 0;         // callback entry, µs since the start of the measurement window
  uint32_t frame = 0;       // jack_last_frame_time() of that cycle
  int64_t delay_us = 0;     // callback delay
  int64_t duration_us = 0;  // callback duration
  int64_t cycle_us = 0;     // callback exit minus period start
};

struct Hello {
  int index = 0;     // 1-based position in the chain
  std::string name;  // JACK client name
  int64_t pid = 0;
  uint32_t rate = 0;    // JACK sample rate as the client sees it
  uint32_t frames = 0;  // JACK buffer size as the client sees it
  int ports = 0;
  int dsp_stages = 0;           // biquad stages per cycle (all ports together)
  double dsp_target_us = 0;     // requested DSP time per cycle
  double dsp_ns_per_stage = 0;  // calibration result: one stage over one buffer
  int64_t rt_tid = 0;           // the client's JACK process thread (0: unknown)
  std::string sched_target;     // what the client applied to it (sched_target.hpp text form)
  std::string sched_error;      // why applying it failed ("" = it did not fail)
  // --dsp-ramp: the client's ramp in stages, so the engine knows the stages of any cycle, also
  // one in which the client did not run (absent: a steady load).
  std::optional<DspRampStages> ramp;
};

// A Second lists at most this many of its worst cycles.
inline constexpr size_t kWorstPerSecond = 3;

struct Second {
  int index = 0;
  int64_t second = 0;  // 0-based second of the measurement window
  uint64_t cycles = 0;
  ValueCounts delay;          // from the backend's period-start reference (--reference)
  ValueCounts delay_dll;      // period start from jack_get_cycle_times() current_usecs (DLL)
  ValueCounts signal;         // vcard only: callback entry - jackd's wake-up for the same boundary
  uint64_t unreferenced = 0;  // cycles without a usable reference (no marker on vcard)
  ValueCounts duration;
  ValueCounts cycle;
  uint64_t over_spare = 0;        // delay > spare time (one period)
  uint64_t over_1000 = 0;         // delay > 1000 µs
  uint64_t late = 0;              // callback exit after the next period start
  uint64_t injected = 0;          // cycles with an injected overrun
  std::vector<WorstCycle> worst;  // the worst cycles of this second by delay, worst first
                                  // (at most kWorstPerSecond)
};

// One discontinuity of the test signal as the tail of the chain received it.
struct GlitchReport {
  int index = 0;
  std::string kind;       // dropped, repeated, corrupted, silence, lost
  int64_t t_us = 0;       // JACK time of the cycle that carried its first sample
  uint32_t frame = 0;     // jack_last_frame_time() of that cycle
  uint64_t at_frame = 0;  // position in the received stream (frames since the window start)
  int64_t jump = 0;       // frames skipped (+) or replayed (-) in the signal
  uint64_t length = 0;    // received frames affected
  double max_deviation = 0;
  std::string excerpt;  // file name of its recorded excerpt ("" = none)
};

// The tail's audio check, sent with Final when the client is the sink.
struct AudioTotals {
  uint64_t frames = 0;           // received frames checked inside the window
  uint64_t unlocked_frames = 0;  // before the signal first arrived (the chain filling)
  uint64_t glitches = 0;
  double delta_max = 0;           // jack_test4's "Delta Maximum": max |received - expected|
  uint64_t ring_dropped = 0;      // audio chunks lost between callback and checker (never expected)
  uint64_t recorded_frames = 0;   // frames written to the recording (--record)
  std::string recording;          // its file name ("" = not recording)
  double check_ns_per_frame = 0;  // the detector's cost on the drain thread
  // What it was checked against, and how much of it could be judged.
  std::string reference = "test-signal";  // or "file" (--source FILE)
  uint64_t received_frames = 0;           // frames received inside the window, checked or not
  uint32_t block_frames = 0;     // B: the block a dropped or repeated period is (0: not counted)
  uint64_t judged_blocks = 0;    // blocks that arrived locked whose loss or repeat would be heard
  uint64_t unjudged_blocks = 0;  // blocks that arrived locked equal to a neighbour block
  std::string not_checked;       // why nothing was checked ("" = it was)
  std::string record_format;     // "wav", "flac" ("" = not recording)
  uint64_t clipped_samples = 0;  // recorded samples beyond +-1.0 (clipped in FLAC)
};

struct Final {
  int index = 0;
  uint64_t cycles_total = 0;     // every callback since activation
  uint64_t cycles_measured = 0;  // callbacks inside the window
  uint64_t ring_dropped = 0;     // records lost because the ring was full (never expected)
  uint64_t injected = 0;
  std::optional<AudioTotals> audio;  // the sink only
};

struct Error {
  int index = 0;
  std::string message;
};

// The connections of a client's ports as JACK's graph has them, read through the client's own
// port handles (a lookup by name scans every port of the graph), each one output -> input.
struct Connections {
  int index = 0;
  std::vector<std::pair<std::string, std::string>> connections;
};

using Message = std::variant<Hello, Second, Final, Error, GlitchReport, Connections>;

std::string encode(const Message& message);  // one line, with the trailing '\n'
// nullopt (and `error` set) when the line is not a valid message of this wire version.
std::optional<Message> decode(std::string_view line, std::string* error = nullptr);

}  // namespace xrunlab::telemetry
