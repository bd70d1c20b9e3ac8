#pragma once
// Options of xrunlab-client (parsed with CLI11 in client_options.cpp).
#include <cstdint>
#include <optional>
#include <string>

namespace xrunlab {

struct InjectSpec {
  uint64_t usec = 0;   // busy time added to the callback
  uint64_t every = 0;  // every Nth cycle (the Nth, 2Nth, ...)
};

struct ClientOptions {
  std::string server;  // JACK server name; empty: the default server
  std::string name = "xrunlab-client";
  int index = 1;
  int ports = 4;
  double dsp_load_pct = 0.0;  // DSP time per cycle, percent of the period
  std::optional<InjectSpec> inject;
  int telemetry_fd = 1;
  bool wait_start = false;   // take start/stop times from stdin (the engine does this)
  double duration_s = 0.0;   // standalone: stop after this long (0: until Ctrl-C)
  std::string sched_target;  // scheduling for the process thread ("" = leave JACK's)
  // Period-start reference for the delay: "frames" (jack_frames_since_cycle_start), "dll"
  // (jack_get_cycle_times) or "card" (the vcard boundary named by the marker on the clock port).
  std::string reference = "frames";
  bool clock_port = false;  // register the "clock" input for the vcard's period marker
  std::string card_shm;     // the vcard's shared-memory record ("" = none)
  // The audible chain (issue: known signal through all clients). Port 1 carries it.
  bool check_port = false;  // pass port 1 through exactly (its DSP work goes to a scratch buffer)
  bool source = false;      // the head: play the test signal on port 1
  bool sink = false;        // the tail: check what arrives on port 1 for glitches
  std::string record_dir;   // the sink: write received.wav and glitch excerpts here
};

// Parses "USEC:EVERY_N_CYCLES"; nullopt (and *why set) when malformed.
std::optional<InjectSpec> parse_inject_spec(const std::string& text, std::string* why);

// Returns the options, or exits (help/version: 0; bad usage: 2 with a one-line error).
ClientOptions parse_client_options(int argc, char** argv);

}  // namespace xrunlab
