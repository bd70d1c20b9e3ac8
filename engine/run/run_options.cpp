// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <iterator>

#include "engine/backend/backend.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/loads/load_spec.hpp"
#include "engine/sched/policy.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

// The CPUs a child of the engine may be given: online and in the engine's own set.
std::vector<int> allowed_online(const CpuFacts& f) {
  std::vector<int> out;
  std::set_intersection(f.online.begin(), f.online.end(), f.allowed.begin(), f.allowed.end(),
                        std::back_inserter(out));
  return out;
}

}  // namespace

const char* baseline_tool_name(BaselineTool tool) {
  return tool == BaselineTool::kCyclictest ? "cyclictest" : "none";
}

std::optional<BaselineTool> parse_baseline_tool(std::string_view word) {
  for (const BaselineTool tool : {BaselineTool::kNone, BaselineTool::kCyclictest}) {
    if (word == baseline_tool_name(tool)) return tool;
  }
  return std::nullopt;
}

int RunOptions::server_priority() const {
  const bool carries_priority =
      (policy.kind == PolicyKind::kFifo || policy.kind == PolicyKind::kRr) &&
      policy.text.find(':') != std::string::npos;
  return carries_priority ? policy.priority : priority;
}

std::optional<RampOption> parse_ramp_option(const std::string& text, std::string* why) {
  auto bad = [&](const char* msg) -> std::optional<RampOption> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  RampOption r;
  r.text = text;
  double step = 0;
  unsigned long every = 0;
  int used = 0;
  const bool digits_only = text.find_first_not_of("0123456789.:") == std::string::npos;
  if (digits_only && std::sscanf(text.c_str(), "%lf%n", &step, &used) == 1 &&
      static_cast<size_t>(used) == text.size()) {
    every = 0;
  } else if (!digits_only || std::sscanf(text.c_str(), "%lf:%lu%n", &step, &every, &used) != 2 ||
             static_cast<size_t>(used) != text.size()) {
    return bad(
        "expected STEP_PCT[:EVERY], e.g. 1 or 0.5:30 (STEP_PCT of the period every EVERY "
        "cycles)");
  } else if (every < 1 || every > 1000000) {
    return bad("EVERY must be 1..1000000 cycles");
  }
  if (!std::isfinite(step) || step <= 0 || step > 100) return bad("STEP_PCT must be in (0, 100]");
  r.step_pct = step;
  r.every = static_cast<uint32_t>(every);
  return r;
}

RunSpec run_spec(const RunOptions& o) {
  RunSpec s;
  s.clients = o.clients;
  s.ports = o.ports;
  s.period_frames = o.period;
  s.rate_hz = o.rate;
  s.duration_s = o.duration_s;
  s.dsp_load_pct = o.dsp_load_pct;
  s.label = o.label;
  s.output = o.output;
  s.priority = o.priority;
  s.policy = o.policy.text;
  for (const LoadSpec& l : o.loads) s.loads.push_back(l.text);
  s.baseline = baseline_tool_name(o.baseline);
  s.ping_rate_hz = o.ping ? o.ping_rate : 0;
  s.ping_drop_every = o.ping ? o.ping_drop_every : 0;
  s.dma_latency = o.dma_latency;
  s.cpus = format_cpu_list(o.cpus);
  s.load_cpus = format_cpu_list(o.load_cpus);
  s.explain = o.explain;
  s.trace_on_xrun = o.trace_on_xrun;
  s.full_log = o.full_log;
  s.inject = o.inject ? format_inject_spec(*o.inject) : std::string();
  s.inject_client = o.inject_client;
  s.ramp = o.ramp ? o.ramp->text : std::string();
  s.jackd = o.jackd;
  s.client_binary = o.client_binary;
  s.server_timeout_s = o.server_timeout_s;
  s.plots = o.plots;
  s.plot_format = plot_format_name(o.plot_format);
  s.backend = o.backend ? o.backend->text : std::string();
  s.nperiods = o.nperiods;
  s.audio_check = o.audio_check;
  s.record = o.record;
  s.record_format = o.record_format;
  s.source = o.source;
  return s;
}

void validate(const RunOptions& o) {
  auto bad = [](const std::string& msg) { throw Error(ExitCode::kUsage, msg); };
  if (o.clients < 1 || o.clients > kMaxClients) {
    bad(
        fmt::format("--clients {}: must be 1..{} (JACK2 has 256 client slots: its two drivers and "
                    "the monitor take three)",
                    o.clients, kMaxClients));
  }
  if (o.ports < 1 || o.ports > 64) bad("--ports " + std::to_string(o.ports) + ": must be 1..64");
  if (port_max_for(o.clients, o.ports) > kJackPortMax) {
    bad(
        fmt::format("--clients {} --ports {}: needs {} JACK ports, JACK2 has at most {}; use fewer "
                    "clients or ports",
                    o.clients, o.ports, port_max_for(o.clients, o.ports), kJackPortMax));
  }
  if (o.explain < 0 || o.explain > 100) {
    bad("--explain=" + std::to_string(std::max(o.explain, 0)) +
        ": must be 1..100 worst cycles (--explain alone: 5)");
  }
  if (o.ping_rate < 1 || o.ping_rate > 1000) {
    bad("--ping-rate " + std::to_string(o.ping_rate) +
        ": must be 1..1000 echo requests per second (default 100)");
  }
  if (o.ping_drop_every != 0 && (o.ping_drop_every < 2 || o.ping_drop_every > 1000)) {
    bad("--ping-drop-every " + std::to_string(o.ping_drop_every) +
        ": must be 2..1000 (every Nth echo request dropped)");
  }
  if (o.repeat < 1 || o.repeat > 1000) {
    bad("--repeat " + std::to_string(o.repeat) + ": must be 1..1000");
  }
  const bool pow2 = o.period != 0 && (o.period & (o.period - 1)) == 0;
  if (!pow2 || o.period < 16 || o.period > 8192) {
    bad("--period " + std::to_string(o.period) +
        ": JACK needs a power of two from 16 to 8192 frames (e.g. 64, 128, 256)");
  }
  if (o.rate < 8000 || o.rate > 384000) {
    bad("--rate " + std::to_string(o.rate) + ": must be 8000..384000 Hz (e.g. 44100, 48000)");
  }
  if (!(o.duration_s > 0) || o.duration_s > 7 * 86400) {
    bad("--duration: must be more than 0 and at most a week, in seconds");
  }
  if (!(o.dsp_load_pct >= 0) || o.dsp_load_pct > 95) {
    bad("--dsp-load: must be 0..95 (percent of the period, all clients together)");
  }
  if (o.label.empty() || o.label.size() > 64 ||
      !std::all_of(o.label.begin(), o.label.end(),
                   [](char c) {
                     return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                            c == '.';
                   }) ||
      o.label[0] == '.') {
    bad("--label '" + o.label + "': use 1-64 letters, digits, '-', '_' or '.' (it names a folder)");
  }
  if (o.output.empty()) bad("--output: must not be empty");
  if (o.priority != 0 && (o.priority < 6 || o.priority > 95)) {
    bad("--priority " + std::to_string(o.priority) +
        ": must be 6..95 (clients run 5 below it), or 0 for a non-realtime server");
  }
  // fifo:PRIO and rr:PRIO carry the server priority; every other spec takes --priority.
  const bool rt_kind = o.policy.kind == PolicyKind::kFifo || o.policy.kind == PolicyKind::kRr;
  if (rt_kind && o.priority_given && o.policy.text.find(':') != std::string::npos &&
      o.policy.priority != o.priority) {
    bad("--priority " + std::to_string(o.priority) + " and --policy '" + o.policy.text +
        "' disagree: give the priority once");
  }
  if (o.priority == 0 && o.policy.kind != PolicyKind::kFifo) {
    bad("--priority 0 (jackd without realtime) cannot be combined with --policy '" + o.policy.text +
        "': the policies act on jackd's realtime thread");
  }
  if (o.inject && o.inject->from_step != 0 && !o.ramp) {
    bad("--inject '" + format_inject_spec(*o.inject) + "': its STEP needs --ramp");
  }
  if (o.inject_client < 1 || o.inject_client > o.clients) {
    bad("--inject-client " + std::to_string(o.inject_client) + ": must be 1..--clients");
  }
  if (!(o.server_timeout_s > 0)) bad("--server-timeout: must be more than 0 seconds");
  if (o.record && !o.audio_check) bad("--record needs the audio check (drop --no-audio-check)");
  if (!o.source.empty() && !o.audio_check) {
    bad("--source needs the audio check (drop --no-audio-check)");
  }
  if (!o.source.empty() && o.clients < 2) {
    bad("--source needs --clients 2 or more (a head that plays the file, a tail that checks it)");
  }
  if (o.record_format != "wav" && o.record_format != "flac") {
    bad("--record-format '" + o.record_format + "': must be wav or flac");
  }
  if (o.nperiods < 2 || o.nperiods > 32) {
    bad("--nperiods " + std::to_string(o.nperiods) + ": must be 2..32 periods");
  }
  if (!o.load_cpus.empty() && o.loads.empty()) {
    bad("--load-cpus " + format_cpu_list(o.load_cpus) +
        " without --load: it sets the loads' CPUs; add a --load or leave --load-cpus out");
  }
}

CpuFacts read_cpu_facts() {
  CpuFacts f;
  f.online = parse_cpu_list(read_file("/sys/devices/system/cpu/online").value_or(""));
  f.allowed = read_affinity(0).value_or(std::vector<int>{});
  return f;
}

void check_cpus(const RunOptions& o, const CpuFacts& facts) {
  auto check = [&](const char* flag, const std::vector<int>& cpus) {
    for (const int c : cpus) {
      const bool online = std::binary_search(facts.online.begin(), facts.online.end(), c);
      const bool allowed = std::binary_search(facts.allowed.begin(), facts.allowed.end(), c);
      if (online && allowed) continue;
      throw Error(
          ExitCode::kUsage,
          fmt::format("{} {}: CPU {} is {}; choose from CPUs {}", flag, format_cpu_list(cpus), c,
                      online ? "not in the CPUs xrunlab itself may run on" : "not online",
                      format_cpu_list(allowed_online(facts))));
    }
  };
  check("--cpus", o.cpus);
  check("--load-cpus", o.load_cpus);
  if (o.policy.kind == PolicyKind::kDeadline && !o.cpus.empty() &&
      !std::includes(o.cpus.begin(), o.cpus.end(), facts.online.begin(), facts.online.end())) {
    throw Error(ExitCode::kUsage,
                fmt::format("--cpus {} with --policy {}: the kernel refuses SCHED_DEADLINE for a "
                            "thread whose affinity is narrower than its root domain (online CPUs "
                            "{}); leave --cpus out or give --cpus {}",
                            format_cpu_list(o.cpus), o.policy.text, format_cpu_list(facts.online),
                            format_cpu_list(facts.online)));
  }
}

void check_source(RunOptions& o) {
  if (o.source.empty()) return;
  std::string why;
  o.source_info = probe_source_audio(o.source, &why);
  if (!o.source_info) throw Error(ExitCode::kUsage, why);
  const bool rate_unknown =
      o.backend && o.backend->kind == BackendSpec::Kind::kAttach && !o.rate_given;
  if (!rate_unknown && o.source_info->rate != o.rate) {
    throw Error(ExitCode::kUsage, source_rate_mismatch(o.source, o.source_info->rate, o.rate));
  }
}

}  // namespace xrunlab
