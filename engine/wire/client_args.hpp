// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The argv contract of xrunlab-client, typed: the engine builds a client's command line from a
// ClientArgs (to_argv) and the client parses it back into the same struct (parse_client_args),
// once, at its edge; nothing after that parses a string again. parse_client_args(to_argv(a))
// returns exactly `a` (see to_argv for the one rounding it applies).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/wire/sched_target.hpp"

namespace xrunlab {

// Where a cycle's period starts, the instant its callback delay is measured from
// (--reference frames|dll|card).
enum class ClientReference {
  kFrames,  // jack_frames_since_cycle_start: since the driver thread woke (dummy backend)
  kDll,     // jack_get_cycle_times current_usecs: JACK's DLL estimate (real cards)
  kCard,    // the vcard boundary named by the marker on the clock port (needs --clock-port)
};

// "frames", "dll", "card": the spelling on the command line.
const char* to_string(ClientReference r);
// The reference spelled `text`; nullopt for anything else.
std::optional<ClientReference> parse_client_reference(std::string_view text);

// --inject-overrun USEC:EVERY_N_CYCLES: busy-wait in every EVERY-th callback until it has
// lasted USEC microseconds. --inject-overrun spin:CYCLE: the CYCLE-th callback (1-based, counted
// from activation) busy-waits forever, reading only the clock: a runaway realtime thread, for
// RLIMIT_RTTIME and the engine's watchdog to stop (then usec and every are 0).
// --inject-overrun USEC:EVERY_N_CYCLES:STEP: as USEC:EVERY_N_CYCLES, but only once the DSP ramp
// (--dsp-ramp) has reached its step STEP (1-based: the ramp's first step up is step 1), so that a
// ramp's first xrun happens at a load known in advance (fault injection for tests).
struct InjectSpec {
  uint64_t usec = 0;       // busy time added to the callback
  uint64_t every = 0;      // every Nth cycle (the Nth, 2Nth, ...)
  uint64_t spin_at = 0;    // spin:CYCLE: this callback never returns (0 = not a spin)
  uint64_t from_step = 0;  // only from this ramp step on (0: from the start)
};

inline bool operator==(const InjectSpec& a, const InjectSpec& b) {
  return a.usec == b.usec && a.every == b.every && a.spin_at == b.spin_at &&
         a.from_step == b.from_step;
}
inline bool operator!=(const InjectSpec& a, const InjectSpec& b) {
  return !(a == b);
}

// The exit status of an xrunlab-client stopped by RLIMIT_RTTIME's soft limit (SIGXCPU): its
// handler sends an "error" telemetry line saying so and exits with this status.
inline constexpr int kClientExitRtTime = 4;

// Parses "USEC:EVERY_N_CYCLES[:STEP]" (positive whole numbers) or "spin:CYCLE" (a positive whole
// number); nullopt (and *why set, if given) when malformed.
std::optional<InjectSpec> parse_inject_spec(const std::string& text, std::string* why);
// "USEC:EVERY", "USEC:EVERY:STEP" or "spin:CYCLE": what parse_inject_spec reads back into `spec`.
std::string format_inject_spec(const InjectSpec& spec);

// --dsp-ramp STEP_PCT:EVERY:MAX_PCT: the client's DSP load grows from its --dsp-load by STEP_PCT
// (% of the period) every EVERY cycles, up to MAX_PCT, once the engine says from which cycle
// ("ramp CYCLE" on standard input, with --wait-start). Each cycle's stages go into the cycle
// table, so the load at any cycle is known exactly (docs/headroom.md).
struct DspRampSpec {
  double step_pct = 0;  // > 0
  uint32_t every = 1;   // >= 1
  double max_pct = 100;
};
inline bool operator==(const DspRampSpec& a, const DspRampSpec& b) {
  return a.step_pct == b.step_pct && a.every == b.every && a.max_pct == b.max_pct;
}
inline bool operator!=(const DspRampSpec& a, const DspRampSpec& b) {
  return !(a == b);
}
// Parses "STEP_PCT:EVERY:MAX_PCT" (0 < STEP_PCT <= 100, EVERY >= 1, 0 < MAX_PCT <= 100); nullopt
// (and *why set, if given) when malformed.
std::optional<DspRampSpec> parse_dsp_ramp_spec(const std::string& text, std::string* why);
// What parse_dsp_ramp_spec reads back into exactly `spec` (the shortest exact decimals).
std::string format_dsp_ramp_spec(const DspRampSpec& spec);

// Every option of xrunlab-client, with its default. One field per flag; the flag is named
// beside each field.
struct ClientArgs {
  std::string server;                   // --server NAME: JACK server ("" = the default server)
  std::string name = "xrunlab-client";  // --name NAME: the JACK client name
  int index = 1;                        // --index N: position in the chain, 1-based
  int ports = 4;                        // --ports P: input and output ports each, 1..256
  double dsp_load_pct = 0;  // --dsp-load PERCENT: DSP time per cycle, 0..100 % of a period
  // --dsp-ns-per-stage NS: one DSP stage's time as the engine calibrated it once for all clients
  // (0: this client calibrates itself at start).
  double dsp_ns_per_stage = 0;
  // --calibrate RATE:FRAMES: only calibrate the DSP for --ports at this rate and period, print
  // {"ns_per_stage": NS} and exit (0 = run as a client).
  uint32_t calibrate_rate = 0, calibrate_frames = 0;
  std::optional<InjectSpec> inject;     // --inject-overrun USEC:EVERY_N_CYCLES[:STEP]|spin:CYCLE
  std::optional<DspRampSpec> dsp_ramp;  // --dsp-ramp STEP_PCT:EVERY:MAX_PCT (none: a steady load)
  int telemetry_fd = 1;                 // --telemetry-fd FD: where the JSON-lines telemetry goes
  bool wait_start = false;  // --wait-start: take start/stop times from stdin (the engine does)
  double duration_s = 0;    // --duration SECONDS: standalone, stop after this long (0: Ctrl-C)
  // --sched-target TARGET: scheduling for the process thread (none: leave JACK's).
  std::optional<ThreadTarget> sched_target;
  ClientReference reference = ClientReference::kFrames;  // --reference frames|dll|card
  bool clock_port = false;  // --clock-port: register the "clock" input for the vcard's marker
  std::string card_shm;     // --card-shm NAME: the vcard's shared-memory record ("" = none)
  // --cycle-table NAME: the engine's cycle table (engine/wire/cycle_table.hpp) this client
  // writes its entry and exit into, every cycle, in column index - 1 ("" = none).
  std::string cycle_table;
  // The audible chain: port 1 carries a known test signal from the head to the tail.
  bool check_port = false;  // --check-port: pass port 1 through exactly (DSP on a copy)
  bool source = false;      // --source: the head, playing the test signal on port 1
  bool sink = false;        // --sink: the tail, checking what arrives on port 1 for glitches
  std::string record_dir;   // --record-dir DIR: the sink writes received.wav and excerpts here
  // --source-file FILE: the head plays this file (channel 1, looped) instead of the test
  // signal and the tail checks against it (engine/wire/source_audio.hpp); "" = the test signal.
  std::string source_file;
  std::string record_format = "wav";  // --record-format wav|flac: the sink's recordings
};

bool operator==(const ClientArgs& a, const ClientArgs& b);
inline bool operator!=(const ClientArgs& a, const ClientArgs& b) {
  return !(a == b);
}

// The argv (without argv[0]) that parse_client_args turns back into exactly `a`: only the
// options that differ from their defaults, in the order of ClientArgs' fields. --dsp-load is
// written with six decimals ("{:.6f}", as the engine always has), so it reads back exactly when
// it is a multiple of 0.000001 as a double would print it; --duration is written in the
// shortest form that reads back exactly.
std::vector<std::string> to_argv(const ClientArgs& a);

// Parses xrunlab-client's command line (argv[0] is the program). Returns the arguments, or
// nullopt with *exit_code set (both pointers must be non-null):
//   --help / --version: the text is printed to stdout; *exit_code 0, *error "".
//   bad usage: *exit_code 2 and *error one line naming the option at fault, e.g.
//     "--sched-target 'FIFO:0': expected FIFO:PRIO with PRIO 1..99".
// Never exits: the caller decides what to print and how to end.
std::optional<ClientArgs> parse_client_args(int argc, const char* const* argv, std::string* error,
                                            int* exit_code);

}  // namespace xrunlab
