#include "engine/wire/client_args.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>

#include "engine/wire/sched_target.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {

std::optional<InjectSpec> parse_inject_spec(const std::string& text, std::string* why) {
  const auto colon = text.find(':');
  auto bad = [&](const char* msg) -> std::optional<InjectSpec> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  if (colon == std::string::npos) return bad("expected USEC:EVERY_N_CYCLES, e.g. 2000:100");
  const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
  auto parse_pos = [](const std::string& s, uint64_t* out) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
    try {
      *out = std::stoull(s);
    } catch (...) {
      return false;
    }
    return *out > 0;
  };
  InjectSpec spec;
  if (!parse_pos(a, &spec.usec)) return bad("USEC must be a positive whole number of microseconds");
  if (!parse_pos(b, &spec.every)) return bad("EVERY_N_CYCLES must be a positive whole number");
  return spec;
}

ClientOptions parse_client_options(int argc, char** argv) {
  ClientOptions o;
  CLI::App app{
      "xrunlab-client: a synthetic JACK DSP client that measures every one of its process "
      "cycles (callback delay after the period start, duration, cycle time) and reports exact "
      "per-second statistics as JSON lines."};
  app.set_version_flag("--version", std::string("xrunlab-client ") + kVersion);
  std::string inject;
  app.add_option("--server", o.server, "JACK server name to connect to (never started).")
      ->type_name("NAME");
  app.add_option("--name", o.name, "JACK client name.")->capture_default_str()->type_name("NAME");
  app.add_option("--index", o.index, "Position of this client in the chain (1-based).")
      ->check(CLI::PositiveNumber)
      ->capture_default_str()
      ->type_name("N");
  app.add_option("--ports", o.ports, "Number of input and of output ports.")
      ->check(CLI::Range(1, 256))
      ->capture_default_str()
      ->type_name("P");
  app.add_option("--dsp-load", o.dsp_load_pct,
                 "DSP work per cycle as a percentage of the period, calibrated at start.")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str()
      ->type_name("PERCENT");
  app.add_option("--inject-overrun", inject,
                 "Busy-wait USEC extra microseconds in every EVERY_N_CYCLES-th callback, "
                 "as USEC:EVERY_N_CYCLES (fault injection for tests).")
      ->type_name("USEC:EVERY_N_CYCLES");
  app.add_option("--telemetry-fd", o.telemetry_fd, "File descriptor for the JSON-lines telemetry.")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str()
      ->type_name("FD");
  app.add_flag("--wait-start", o.wait_start,
               "Read 'start USECS' and 'stop USECS' (JACK time) lines from standard input.");
  app.add_option("--duration", o.duration_s,
                 "Without --wait-start: stop after SECONDS (0 runs until Ctrl-C).")
      ->check(CLI::NonNegativeNumber)
      ->type_name("SECONDS");
  app.add_option("--sched-target", o.sched_target,
                 "Scheduling of the JACK process thread, set from outside the callback once it "
                 "runs: FIFO:PRIO, RR:PRIO, OTHER:NICE, BATCH:NICE, IDLE, ISO or "
                 "DEADLINE:RUNTIME_NS,DEADLINE_NS,PERIOD_NS[,reclaim].")
      ->type_name("TARGET");
  app.add_option("--reference", o.reference,
                 "Period start the delay is measured from: frames (time since the driver woke, "
                 "dummy), dll (JACK's cycle-time estimate, real cards), card (the virtual "
                 "card's exact boundary; needs --clock-port).")
      ->check(CLI::IsMember({"frames", "dll", "card"}))
      ->capture_default_str()
      ->type_name("SOURCE");
  app.add_flag("--clock-port", o.clock_port,
               "Register an input port 'clock' for the virtual card's period marker.");
  app.add_option("--card-shm", o.card_shm,
                 "The virtual card's shared-memory record NAME (jackd's wake-up per period).")
      ->type_name("NAME");
  app.add_flag("--check-port", o.check_port,
               "Pass port 1 through exactly (its DSP work is done on a copy): the chain's "
               "test signal.");
  app.add_flag("--source", o.source, "Play the test signal (a ~1 kHz sine) on port 1.");
  app.add_flag("--sink", o.sink,
               "Check the test signal arriving on port 1 for glitches (dropped, repeated, "
               "corrupted, silent frames).");
  app.add_option("--record-dir", o.record_dir,
                 "With --sink: write the received signal (received.wav) and a 200 ms excerpt "
                 "around each glitch (glitch-NNN.wav) into DIR.")
      ->type_name("DIR");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    std::exit(app.exit(e));
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "xrunlab-client: error: %s (see --help)\n", e.what());
    std::exit(2);
  }
  if (!inject.empty()) {
    std::string why;
    o.inject = parse_inject_spec(inject, &why);
    if (!o.inject) {
      std::fprintf(stderr, "xrunlab-client: error: --inject-overrun '%s': %s\n", inject.c_str(),
                   why.c_str());
      std::exit(2);
    }
  }
  if (!o.sched_target.empty()) {
    std::string why;
    if (!parse_target(o.sched_target, &why)) {
      std::fprintf(stderr, "xrunlab-client: error: --sched-target '%s': %s\n",
                   o.sched_target.c_str(), why.c_str());
      std::exit(2);
    }
  }
  if ((o.source || o.sink) && !o.check_port) {
    std::fprintf(stderr, "xrunlab-client: error: --source and --sink need --check-port\n");
    std::exit(2);
  }
  if (o.reference == "card" && !o.clock_port) {
    std::fprintf(stderr, "xrunlab-client: error: --reference card needs --clock-port\n");
    std::exit(2);
  }
  return o;
}

}  // namespace xrunlab
