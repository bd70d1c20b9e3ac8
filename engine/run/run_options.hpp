// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The options of `xrunlab run`, typed: the command line (engine/app/cli/run_cli.cpp) turns
// every flag into these types once, and everything after takes the types, so nothing is parsed
// twice.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/loads/load_spec.hpp"
#include "engine/report/plot_format.hpp"
#include "engine/result/run_spec.hpp"
#include "engine/sched/policy.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/source_audio.hpp"

namespace xrunlab {

// --policy fifo, as parse_policy("fifo") gives it.
inline PolicySpec default_policy() {
  PolicySpec p;
  p.text = "fifo";
  return p;
}

// The most clients a run starts: JACK2 (Debian's build: CLIENT_NUM 256) keeps two of its
// client slots for its drivers (the card and the freewheel driver) and the engine's monitor takes
// one more (a 254th client is refused: "No more refnum available").
inline constexpr int kMaxClients = 253;

// --baseline: the timer baseline run beside the measurement (engine/result/baseline.hpp).
enum class BaselineTool { kNone, kCyclictest };

// "none" | "cyclictest": the words --baseline takes and run.json's spec.baseline.
const char* baseline_tool_name(BaselineTool tool);
std::optional<BaselineTool> parse_baseline_tool(std::string_view word);

// --ramp STEP_PCT[:EVERY]: the clients' DSP load (all together) grows from --dsp-load by STEP_PCT
// of the period every EVERY cycles (0: ramp_every_cycles, about 40 ms) up to 100 %, and the
// window ends at its first xrun event (engine/result/ramp.hpp, docs/headroom.md).
struct RampOption {
  double step_pct = 1;
  uint32_t every = 0;
  std::string text;  // as given, for run.json's spec
};
// Parses "STEP_PCT[:EVERY]" (0 < STEP_PCT <= 100, EVERY 1..1000000); nullopt and *why when not.
std::optional<RampOption> parse_ramp_option(const std::string& text, std::string* why);
// Where a ramp stops growing: all clients together, % of the period.
inline constexpr double kRampTopPct = 100.0;
// How long after the window's start the ramp's first step comes, at least: the engine names
// the ramp's first cycle this far ahead, so that every client has read it before.
inline constexpr double kRampLeadS = 0.2;

struct RunOptions {
  int clients = 14;
  int ports = 4;
  uint32_t period = 64;   // frames
  uint32_t rate = 48000;  // Hz
  double duration_s = 300;
  double dsp_load_pct = 30;  // total over all clients, percent of the period
  std::string label = "default";
  std::string output = "results";
  // The history database the run adds itself to at its end (--history FILE; "" =
  // OUTPUT/history.sqlite), or none (--no-history).
  std::string history;
  bool no_history = false;
  int priority = 70;                            // jackd -P; clients run 5 below (JACK2)
  bool priority_given = false;                  // --priority was on the command line
  PolicySpec policy = default_policy();         // --policy SPEC
  std::vector<LoadSpec> loads;                  // --load SPEC, repeatable
  BaselineTool baseline = BaselineTool::kNone;  // --baseline
  bool dma_latency = false;                     // --dma-latency: hold /dev/cpu_dma_latency at 0
  bool ping = false;                            // --ping: the network companion (engine/ping)
  int ping_rate = 100;                          // --ping-rate: echo requests per second
  int ping_drop_every = 0;     // --ping-drop-every N: an nftables rule drops every Nth (0: none)
  std::vector<int> cpus;       // --cpus LIST: jackd's and the clients' affinity (empty: none set)
  std::vector<int> load_cpus;  // --load-cpus LIST: the loads' affinity (empty: none set)
  int explain = 0;  // --explain[=N]: the N worst cycles' late hops from a kernel trace (0: off)
  bool trace_on_xrun = false;  // --trace-on-xrun: a trace ring frozen at the first xrun, saved
  bool full_log = false;       // --full-log: jackd.log and clients/*.log keep every line
  std::optional<InjectSpec> inject;  // --inject USEC:EVERY_N_CYCLES[:STEP] or spin:CYCLE
  int inject_client = 1;
  std::optional<RampOption> ramp;  // --ramp (none: a steady --dsp-load)
  std::string jackd = "jackd";
  std::string client_binary;  // default: xrunlab-client next to the xrunlab binary
  double server_timeout_s = 10;
  std::optional<BackendSpec> backend;  // --backend; none: vcard without a card, alsa with one
  int nperiods = 2;                    // periods in the card's buffer (vcard, alsa)
  bool period_given = false;  // --period / --rate were on the command line (attach checks them)
  bool rate_given = false;
  bool plots = true;
  PlotFormat plot_format = PlotFormat::kPng;  // --plot-format png|svg (run.json spec.plot_format)
  bool audio_check = true;  // the audible chain: a test signal through port 1 of every client
  bool record = false;      // write the received signal and glitch excerpts (audio/*.wav)
  std::string record_format = "wav";  // --record-format wav|flac
  std::string source;                 // --source FILE: the user's audio instead of the signal
  std::optional<SourceAudioInfo> source_info;  // its probe (check_source), when given
  bool quiet = false;    // --quiet: no progress; the verdict line and the folder at the end
  bool verbose = false;  // --verbose: the whole summary at the end
  int repeat = 1;        // --repeat N: a one-case campaign of N runs (engine/campaign)

  // The server's realtime priority: fifo:PRIO / rr:PRIO carry it, every other policy takes
  // --priority.
  int server_priority() const;
};

// run.json's "spec": every option as the user would write it (specs by their text).
RunSpec run_spec(const RunOptions& o);

// The checks that involve more than one flag, and the ranges. Throws xrunlab::Error(kUsage)
// naming the option at fault.
void validate(const RunOptions& o);

// What --cpus and --load-cpus are checked against (read_cpu_facts(): this machine).
struct CpuFacts {
  std::vector<int> online;   // /sys/devices/system/cpu/online
  std::vector<int> allowed;  // the engine's own affinity (sched_getaffinity)
};
CpuFacts read_cpu_facts();

// --cpus / --load-cpus, before anything starts: every CPU online and in the engine's allowed
// set (a child cannot be given a CPU its parent may not use), and SCHED_DEADLINE (--policy
// deadline) only with --cpus spanning every online CPU, the root domain, as the kernel refuses
// sched_setattr for a narrower affinity. Throws xrunlab::Error(kUsage), one line naming the flag,
// the CPU and what is available.
void check_cpus(const RunOptions& o, const CpuFacts& facts);

// --source FILE, before anything starts: the file exists, libsndfile reads it, it has frames,
// and its rate is the run's (unless the run attaches to a server without --rate: then the
// engine compares it with the server's rate once connected, before any client starts). Sets
// o.source_info. Throws xrunlab::Error(kUsage), one line naming the file and what is wrong.
void check_source(RunOptions& o);

}  // namespace xrunlab
