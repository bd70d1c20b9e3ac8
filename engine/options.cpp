#include "engine/options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>

#include "clients/client_options.hpp"
#include "engine/backend.hpp"
#include "engine/errors.hpp"
#include "engine/load_spec.hpp"
#include "engine/policy.hpp"
#include "engine/version.hpp"

namespace xrunlab {

nlohmann::json to_json(const RunOptions& o) {
  return {{"clients", o.clients},
          {"ports", o.ports},
          {"period_frames", o.period},
          {"rate_hz", o.rate},
          {"duration_s", o.duration_s},
          {"dsp_load_pct", o.dsp_load_pct},
          {"label", o.label},
          {"output", o.output},
          {"priority", o.priority},
          {"policy", o.policy},
          {"loads", o.loads},
          {"inject", o.inject},
          {"inject_client", o.inject_client},
          {"jackd", o.jackd},
          {"client_binary", o.client_binary},
          {"server_timeout_s", o.server_timeout_s},
          {"plots", o.plots},
          {"backend", o.backend},
          {"nperiods", o.nperiods},
          {"audio_check", o.audio_check},
          {"record", o.record}};
}

void validate(const RunOptions& o) {
  auto bad = [](const std::string& msg) { throw Error(ExitCode::kUsage, msg); };
  if (o.clients < 1 || o.clients > 200) {
    bad("--clients " + std::to_string(o.clients) + ": must be 1..200 (JACK2 allows ~254 clients)");
  }
  if (o.ports < 1 || o.ports > 64) bad("--ports " + std::to_string(o.ports) + ": must be 1..64");
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
  {
    std::string why;
    const auto policy = parse_policy(o.policy, &why);
    if (!policy) bad("--policy '" + o.policy + "': " + why);
    // fifo:PRIO and rr:PRIO carry the server priority; every other spec takes --priority.
    const bool rt_kind = policy->kind == PolicyKind::kFifo || policy->kind == PolicyKind::kRr;
    if (rt_kind && o.priority_given && o.policy.find(':') != std::string::npos &&
        policy->priority != o.priority) {
      bad("--priority " + std::to_string(o.priority) + " and --policy '" + o.policy +
          "' disagree: give the priority once");
    }
    if (o.priority == 0 && policy->kind != PolicyKind::kFifo) {
      bad("--priority 0 (jackd without realtime) cannot be combined with --policy '" + o.policy +
          "': the policies act on jackd's realtime thread");
    }
  }
  for (const std::string& load : o.loads) {
    std::string why;
    if (!parse_load(load, 1, &why)) bad("--load '" + load + "': " + why);
  }
  if (!o.inject.empty()) {
    std::string why;
    if (!parse_inject_spec(o.inject, &why)) bad("--inject '" + o.inject + "': " + why);
  }
  if (o.inject_client < 1 || o.inject_client > o.clients) {
    bad("--inject-client " + std::to_string(o.inject_client) + ": must be 1..--clients");
  }
  if (!(o.server_timeout_s > 0)) bad("--server-timeout: must be more than 0 seconds");
  if (!o.backend.empty()) parse_backend(o.backend);  // throws kUsage naming the value
  if (o.record && !o.audio_check) bad("--record needs the audio check (drop --no-audio-check)");
  if (o.nperiods < 2 || o.nperiods > 32) {
    bad("--nperiods " + std::to_string(o.nperiods) + ": must be 2..32 periods");
  }
}

namespace {

constexpr const char* kPolicyHelp =
    "Scheduling of jackd's realtime thread and of every client's process thread: "
    "fifo[:PRIO], rr[:PRIO] (PRIO is the server's; clients run 5 below, as in JACK2), "
    "other[:NICE], batch[:NICE] (NICE is one signed number, -20..19: other:-20 is 'nice -20'), "
    "idle, deadline[:RUNTIME_US,PERIOD_US][,reclaim], iso[:ISO_CPU] (the kernel's SCHED_ISO, "
    "-ck kernels only), iso-emu[:ISO_CPU[,ISO_PERIOD_S]] (a user-space emulation of SCHED_ISO), "
    "rt-throttle:PCT[,PERIOD_US] (SCHED_FIFO in a cgroup-v1 group with PCT% RT bandwidth).";

constexpr const char* kLoadHelp =
    "Run a background load during the measurement (repeatable): compile[:JOBS], "
    "hackbench[:GROUPS], cpu:N, io-write[:MIB], io-read[:MIB], io-copy[:MIB], net, "
    "stress-ng:\"ARGS\", cmd:\"ARGV\"; append @nice=N for a nice value.";

}  // namespace

Command parse_command_line(int argc, char** argv, int* exit_code) {
  Command cmd;
  RunOptions& o = cmd.run;
  CLI::App app{
      "xrunlab: realtime audio tester. Launches a private JACK2 server and N synthetic "
      "DSP clients, measures every process cycle of every client, and writes a "
      "jack_test-style summary, run.json, CSV files and plots."};
  app.set_version_flag("--version", std::string("xrunlab ") + kVersion);
  app.require_subcommand(1);
  CLI::App* run = app.add_subcommand("run", "Run one measurement.");
  run->add_option("--clients", o.clients,
                  "Number of DSP clients in the chain (c1 -> c2 -> ... -> cN).")
      ->capture_default_str()
      ->type_name("N");
  run->add_option("--ports", o.ports, "Input and output ports per client.")
      ->capture_default_str()
      ->type_name("P");
  run->add_option("--period", o.period, "JACK period (buffer size) in FRAMES, a power of two.")
      ->capture_default_str()
      ->type_name("FRAMES");
  run->add_option("--rate", o.rate, "Sample rate in HZ.")->capture_default_str()->type_name("HZ");
  run->add_option("--duration", o.duration_s, "Measured time in SECONDS.")
      ->capture_default_str()
      ->type_name("SECONDS");
  run->add_option("--dsp-load", o.dsp_load_pct,
                  "DSP work of all clients together as PERCENT of the period (split evenly).")
      ->capture_default_str()
      ->type_name("PERCENT");
  run->add_option("--label", o.label, "NAME of the test case; results go to DIR/NAME/.")
      ->capture_default_str()
      ->type_name("NAME");
  run->add_option("--output", o.output, "Results go to DIR/NAME/<UTC timestamp>/.")
      ->capture_default_str()
      ->type_name("DIR");
  run->add_option("--priority", o.priority,
                  "SCHED_FIFO priority N of jackd (-P); clients run at N-5. 0: no realtime.")
      ->capture_default_str()
      ->type_name("N");
  run->add_option("--policy", o.policy, kPolicyHelp)->type_name("SPEC")->capture_default_str();
  run->add_option("--load", o.loads, kLoadHelp)->type_name("SPEC");
  run->add_option("--inject", o.inject,
                  "Make one client overrun on purpose: USEC:EVERY_N_CYCLES extra busy time.")
      ->type_name("USEC:EVERY_N_CYCLES");
  run->add_option("--inject-client", o.inject_client, "Which client INDEX gets --inject.")
      ->capture_default_str()
      ->type_name("INDEX");
  run->add_option("--jackd", o.jackd, "The jackd PROGRAM to run.")
      ->capture_default_str()
      ->type_name("PROGRAM");
  run->add_option("--client-binary", o.client_binary,
                  "The xrunlab-client PROGRAM (default: next to xrunlab).")
      ->type_name("PROGRAM");
  run->add_option("--server-timeout", o.server_timeout_s,
                  "SECONDS to wait for jackd to accept clients.")
      ->capture_default_str()
      ->type_name("SECONDS");
  run->add_option("--backend", o.backend,
                  "The sound card: vcard (xrunlab's virtual ALSA card with exact interrupt "
                  "times; the default without a sound card), dummy (JACK's timer driver), "
                  "alsa[:DEVICE] (a real card, default the first; the default with a card), "
                  "attach[:SERVER] (measure under an already running JACK or PipeWire-JACK "
                  "server; nothing is launched).")
      ->type_name("SPEC");
  run->add_option("--nperiods", o.nperiods,
                  "Periods in the card's buffer (vcard and alsa; jackd -n).")
      ->capture_default_str()
      ->type_name("N");
  run->add_flag_callback(
      "--no-audio-check", [&o] { o.audio_check = false; },
      "Do not send the test signal through the chain (port 1 is then filtered like the others).");
  run->add_flag("--record", o.record,
                "Write what the end of the chain received (audio/received.wav) and a 200 ms "
                "excerpt around every glitch (audio/glitch-NNN.wav).");
  run->add_flag_callback(
      "--no-plots", [&o] { o.plots = false; }, "Do not draw the PNG plots.");
  run->add_flag("--quiet,-q", o.quiet, "Print only the summary.");
  ReportOptions& ro = cmd.report;
  CLI::App* plot = app.add_subcommand("plot", "Draw a run folder's plots again (plots/*.png).");
  plot->add_option("RUN_DIR", ro.paths, "Run folders.")->required()->type_name("RUN_DIR");
  CLI::App* summary = app.add_subcommand(
      "summary",
      "Walk run folders and write SUMMARY: jack_test's .SUMMARY layout (one '# label' block "
      "per metric) and a table per label.");
  summary
      ->add_option("DIR", ro.paths,
                   "Result folders, label folders, run folders or imported "
                   "*.records.json files.")
      ->required()
      ->type_name("DIR");
  summary->add_option("--format", ro.format, "text, json or csv.")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  summary->add_option("--write", ro.write, "FILE to write (default: SUMMARY in the first DIR).")
      ->type_name("FILE");
  CLI::App* compare = app.add_subcommand(
      "compare", "Side-by-side columns in jack_test's field names, and compare.png.");
  compare->add_option("RUN_OR_LABEL", ro.paths, "Run folders, label folders or imported files.")
      ->required()
      ->type_name("PATH");
  compare->add_option("--by", ro.by, "One column per label or per run.")
      ->check(CLI::IsMember({"label", "run"}))
      ->capture_default_str();
  compare->add_option("--format", ro.format, "text, json or csv.")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  compare->add_option("--write", ro.write, "FILE for the plot (default: compare.png here).")
      ->type_name("FILE");
  CLI::App* import = app.add_subcommand(
      "import",
      "Read old jack_test summaries into run records (*.records.json) that summary "
      "and compare show next to new runs, marked as imported.");
  import
      ->add_option("FILE", ro.paths,
                   "jack_test summary files (blocks, multi-run blocks, "
                   ".SUMMARY).")
      ->required()
      ->type_name("FILE");
  import->add_option("--write", ro.write, "DIR for the records (default: results/imported).")
      ->type_name("DIR");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    *exit_code = app.exit(e);
    return cmd;
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    throw Error(ExitCode::kUsage, msg + " (see xrunlab --help)");
  }
  if (plot->parsed()) cmd.kind = Command::Kind::kPlot;
  if (summary->parsed()) cmd.kind = Command::Kind::kSummary;
  if (compare->parsed()) cmd.kind = Command::Kind::kCompare;
  if (import->parsed()) cmd.kind = Command::Kind::kImport;
  if (!run->parsed()) return cmd;
  cmd.kind = Command::Kind::kRun;
  o.priority_given = run->count("--priority") > 0;
  o.period_given = run->count("--period") > 0;
  o.rate_given = run->count("--rate") > 0;
  validate(o);
  return cmd;
}

}  // namespace xrunlab
