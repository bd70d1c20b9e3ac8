// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/client_args.hpp"

#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "engine/wire/version.hpp"

namespace xrunlab {

const char* to_string(ClientReference r) {
  switch (r) {
    case ClientReference::kFrames:
      return "frames";
    case ClientReference::kDll:
      return "dll";
    case ClientReference::kCard:
      return "card";
  }
  return "frames";
}

std::optional<ClientReference> parse_client_reference(std::string_view text) {
  for (ClientReference r :
       {ClientReference::kFrames, ClientReference::kDll, ClientReference::kCard}) {
    if (text == to_string(r)) return r;
  }
  return std::nullopt;
}

std::optional<InjectSpec> parse_inject_spec(const std::string& text, std::string* why) {
  const auto colon = text.find(':');
  auto bad = [&](const char* msg) -> std::optional<InjectSpec> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  if (colon == std::string::npos) {
    return bad("expected USEC:EVERY_N_CYCLES, e.g. 2000:100, or spin:CYCLE, e.g. spin:500");
  }
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
  if (a == "spin") {
    if (!parse_pos(b, &spec.spin_at)) return bad("spin:CYCLE needs a positive whole CYCLE");
    return spec;
  }
  if (!parse_pos(a, &spec.usec)) return bad("USEC must be a positive whole number of microseconds");
  const auto second = b.find(':');
  if (!parse_pos(b.substr(0, second), &spec.every)) {
    return bad("EVERY_N_CYCLES must be a positive whole number");
  }
  if (second != std::string::npos && !parse_pos(b.substr(second + 1), &spec.from_step)) {
    return bad("STEP must be a positive whole number (the DSP ramp's step)");
  }
  return spec;
}

std::string format_inject_spec(const InjectSpec& spec) {
  if (spec.spin_at != 0) return fmt::format("spin:{}", spec.spin_at);
  if (spec.from_step != 0) return fmt::format("{}:{}:{}", spec.usec, spec.every, spec.from_step);
  return fmt::format("{}:{}", spec.usec, spec.every);
}

std::optional<DspRampSpec> parse_dsp_ramp_spec(const std::string& text, std::string* why) {
  auto bad = [&](const char* msg) -> std::optional<DspRampSpec> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  double step = 0, max = 0;
  unsigned long every = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%lf:%lu:%lf%n", &step, &every, &max, &used) != 3 ||
      static_cast<size_t>(used) != text.size() ||
      text.find_first_of(" \t+-") != std::string::npos) {
    return bad("expected STEP_PCT:EVERY:MAX_PCT, e.g. 0.25:30:25");
  }
  if (!std::isfinite(step) || step <= 0 || step > 100) return bad("STEP_PCT must be in (0, 100]");
  if (every < 1 || every > 1000000) return bad("EVERY must be 1..1000000 cycles");
  if (!std::isfinite(max) || max <= 0 || max > 100) return bad("MAX_PCT must be in (0, 100]");
  return DspRampSpec{step, static_cast<uint32_t>(every), max};
}

std::string format_dsp_ramp_spec(const DspRampSpec& spec) {
  return fmt::format("{}:{}:{}", spec.step_pct, spec.every, spec.max_pct);
}

bool operator==(const ClientArgs& a, const ClientArgs& b) {
  return a.server == b.server && a.name == b.name && a.index == b.index && a.ports == b.ports &&
         a.dsp_load_pct == b.dsp_load_pct && a.dsp_ns_per_stage == b.dsp_ns_per_stage &&
         a.calibrate_rate == b.calibrate_rate && a.calibrate_frames == b.calibrate_frames &&
         a.inject == b.inject && a.dsp_ramp == b.dsp_ramp && a.telemetry_fd == b.telemetry_fd &&
         a.wait_start == b.wait_start && a.duration_s == b.duration_s &&
         a.sched_target == b.sched_target && a.reference == b.reference &&
         a.clock_port == b.clock_port && a.card_shm == b.card_shm &&
         a.cycle_table == b.cycle_table && a.check_port == b.check_port && a.source == b.source &&
         a.sink == b.sink && a.record_dir == b.record_dir && a.source_file == b.source_file &&
         a.record_format == b.record_format;
}

std::vector<std::string> to_argv(const ClientArgs& a) {
  const ClientArgs d;
  std::vector<std::string> argv;
  auto option = [&](const char* flag, std::string value) {
    argv.emplace_back(flag);
    argv.push_back(std::move(value));
  };
  if (a.server != d.server) option("--server", a.server);
  if (a.name != d.name) option("--name", a.name);
  if (a.index != d.index) option("--index", std::to_string(a.index));
  if (a.ports != d.ports) option("--ports", std::to_string(a.ports));
  if (a.dsp_load_pct != d.dsp_load_pct) option("--dsp-load", fmt::format("{:.6f}", a.dsp_load_pct));
  if (a.dsp_ns_per_stage != d.dsp_ns_per_stage) {
    option("--dsp-ns-per-stage", fmt::format("{}", a.dsp_ns_per_stage));
  }
  if (a.calibrate_rate != d.calibrate_rate || a.calibrate_frames != d.calibrate_frames) {
    option("--calibrate", fmt::format("{}:{}", a.calibrate_rate, a.calibrate_frames));
  }
  if (a.inject) option("--inject-overrun", format_inject_spec(*a.inject));
  if (a.dsp_ramp) option("--dsp-ramp", format_dsp_ramp_spec(*a.dsp_ramp));
  if (a.telemetry_fd != d.telemetry_fd) option("--telemetry-fd", std::to_string(a.telemetry_fd));
  if (a.wait_start) argv.emplace_back("--wait-start");
  if (a.duration_s != d.duration_s) option("--duration", fmt::format("{}", a.duration_s));
  if (a.sched_target) option("--sched-target", format_target(*a.sched_target));
  if (a.reference != d.reference) option("--reference", to_string(a.reference));
  if (a.clock_port) argv.emplace_back("--clock-port");
  if (a.card_shm != d.card_shm) option("--card-shm", a.card_shm);
  if (a.cycle_table != d.cycle_table) option("--cycle-table", a.cycle_table);
  if (a.check_port) argv.emplace_back("--check-port");
  if (a.source) argv.emplace_back("--source");
  if (a.sink) argv.emplace_back("--sink");
  if (a.record_dir != d.record_dir) option("--record-dir", a.record_dir);
  if (a.source_file != d.source_file) option("--source-file", a.source_file);
  if (a.record_format != d.record_format) option("--record-format", a.record_format);
  return argv;
}

std::optional<ClientArgs> parse_client_args(int argc, const char* const* argv, std::string* error,
                                            int* exit_code) {
  ClientArgs o;
  *error = "";
  *exit_code = 0;
  auto usage = [&](std::string message) -> std::optional<ClientArgs> {
    *error = std::move(message);
    *exit_code = 2;
    return std::nullopt;
  };
  CLI::App app{
      "xrunlab-client: a synthetic JACK DSP client that measures every one of its process "
      "cycles (callback delay after the period start, duration, cycle time) and reports exact "
      "per-second statistics as JSON lines."};
  app.set_version_flag("--version", std::string("xrunlab-client ") + kVersion);
  // CLI11's PositiveNumber and NonNegativeNumber name the largest double in their messages;
  // these say the limit plainly.
  constexpr int kIntMax = std::numeric_limits<int>::max();
  const CLI::Validator seconds(
      [](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end != '\0' || !std::isfinite(v) || v < 0) {
          return "Value " + text + " is not a number of seconds >= 0";
        }
        return "";
      },
      "NONNEGATIVE");
  // The options whose text is turned into a type after CLI11 has read them.
  std::string inject, dsp_ramp, sched_target, reference = to_string(o.reference), calibrate;
  app.add_option("--server", o.server, "JACK server name to connect to (never started).")
      ->type_name("NAME");
  app.add_option("--name", o.name, "JACK client name.")->capture_default_str()->type_name("NAME");
  app.add_option("--index", o.index, "Position of this client in the chain (1-based).")
      ->check(CLI::Range(1, kIntMax))
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
  app.add_option("--dsp-ns-per-stage", o.dsp_ns_per_stage,
                 "One DSP stage's time in nanoseconds, as calibrated once by the engine for "
                 "all clients (default: calibrate at start).")
      ->check(CLI::Range(0.0, 1e9))
      ->type_name("NS");
  app.add_option("--calibrate", calibrate,
                 "Only calibrate the DSP work for --ports at RATE Hz and FRAMES per period, "
                 "print {\"ns_per_stage\": NS} and exit (no JACK server needed).")
      ->type_name("RATE:FRAMES");
  app.add_option("--inject-overrun", inject,
                 "Busy-wait USEC extra microseconds in every EVERY_N_CYCLES-th callback, "
                 "as USEC:EVERY_N_CYCLES (:STEP: only from the DSP ramp's step STEP on); or "
                 "spin:CYCLE: the CYCLE-th callback busy-waits "
                 "forever (a runaway thread; fault injection for tests).")
      ->type_name("USEC:EVERY_N_CYCLES[:STEP]|spin:CYCLE");
  app.add_option("--dsp-ramp", dsp_ramp,
                 "Grow the DSP load from --dsp-load by STEP_PCT of the period every EVERY "
                 "cycles up to MAX_PCT, from the cycle a 'ramp CYCLE' line on standard input "
                 "names (with --wait-start); each cycle's stages go into the cycle table.")
      ->type_name("STEP_PCT:EVERY:MAX_PCT");
  app.add_option("--telemetry-fd", o.telemetry_fd, "File descriptor for the JSON-lines telemetry.")
      ->check(CLI::Range(0, kIntMax))
      ->capture_default_str()
      ->type_name("FD");
  app.add_flag("--wait-start", o.wait_start,
               "Read 'start USECS' and 'stop USECS' (JACK time) lines from standard input.");
  app.add_option("--duration", o.duration_s,
                 "Without --wait-start: stop after SECONDS (0 runs until Ctrl-C).")
      ->check(seconds)
      ->type_name("SECONDS");
  app.add_option("--sched-target", sched_target,
                 "Scheduling of the JACK process thread, set from outside the callback once it "
                 "runs: FIFO:PRIO, RR:PRIO, OTHER:NICE, BATCH:NICE, IDLE, ISO or "
                 "DEADLINE:RUNTIME_NS,DEADLINE_NS,PERIOD_NS[,reclaim].")
      ->type_name("TARGET");
  app.add_option("--reference", reference,
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
  app.add_option("--cycle-table", o.cycle_table,
                 "The engine's cycle table NAME (shared memory): write this client's callback "
                 "entry and exit there every cycle, in column --index.")
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
  app.add_option("--source-file", o.source_file,
                 "With --source: play channel 1 of FILE (WAV, FLAC, Ogg; at the server's rate), "
                 "looped, instead of the test signal; with --sink: check against FILE.")
      ->type_name("FILE");
  app.add_option("--record-format", o.record_format,
                 "With --record-dir: wav (32-bit float) or flac (24-bit integer, clipped at "
                 "+-1.0).")
      ->check(CLI::IsMember({"wav", "flac"}))
      ->capture_default_str()
      ->type_name("FORMAT");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    *exit_code = app.exit(e);  // prints the help or the version to stdout
    return std::nullopt;
  } catch (const CLI::ParseError& e) {
    return usage(std::string(e.what()) + " (see --help)");
  }
  if (!inject.empty()) {
    std::string why;
    o.inject = parse_inject_spec(inject, &why);
    if (!o.inject) return usage("--inject-overrun '" + inject + "': " + why);
  }
  if (!dsp_ramp.empty()) {
    std::string why;
    o.dsp_ramp = parse_dsp_ramp_spec(dsp_ramp, &why);
    if (!o.dsp_ramp) return usage("--dsp-ramp '" + dsp_ramp + "': " + why);
  }
  if (o.inject && o.inject->from_step != 0 && !o.dsp_ramp) {
    return usage("--inject-overrun '" + inject + "': STEP needs --dsp-ramp");
  }
  if (!calibrate.empty()) {
    unsigned long rate = 0, frames = 0;
    char tail = 0;
    if (std::sscanf(calibrate.c_str(), "%lu:%lu%c", &rate, &frames, &tail) != 2 || rate < 1 ||
        rate > 1000000 || frames < 1 || frames > 65536) {
      return usage("--calibrate '" + calibrate +
                   "': expected RATE:FRAMES, e.g. 48000:1024 (RATE 1..1000000, FRAMES 1..65536)");
    }
    o.calibrate_rate = static_cast<uint32_t>(rate);
    o.calibrate_frames = static_cast<uint32_t>(frames);
  }
  if (!sched_target.empty()) {
    std::string why;
    o.sched_target = parse_target(sched_target, &why);
    if (!o.sched_target) return usage("--sched-target '" + sched_target + "': " + why);
  }
  // CLI11 has checked the spelling already; this cannot fail.
  o.reference = parse_client_reference(reference).value_or(ClientReference::kFrames);
  if ((o.source || o.sink) && !o.check_port) {
    return usage("--source and --sink need --check-port");
  }
  if (!o.source_file.empty() && !o.source && !o.sink) {
    return usage("--source-file needs --source or --sink");
  }
  if (o.reference == ClientReference::kCard && !o.clock_port) {
    return usage("--reference card needs --clock-port");
  }
  return o;
}

}  // namespace xrunlab
