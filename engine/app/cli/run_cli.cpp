// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab run`: its options, typed once into RunOptions.
#include <algorithm>
#include <cmath>
#include <optional>
#include <thread>
#include <tuple>

#include "engine/app/cli/subcommand.hpp"
#include "engine/backend/backend.hpp"
#include "engine/base/errors.hpp"
#include "engine/loads/load_spec.hpp"
#include "engine/result/ramp.hpp"
#include "engine/sched/policy.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

// The specs given as text become typed once, here; a bad one is a usage error naming the flag.
void make_specs(const std::string& policy_text, const std::vector<std::string>& load_texts,
                const std::string& inject_text, const std::string& backend_text,
                const std::string& cpus_text, const std::string& load_cpus_text, RunOptions& o) {
  auto bad = [](const std::string& flag, const std::string& text, const std::string& why) {
    throw Error(ExitCode::kUsage, flag + " '" + text + "': " + why);
  };
  std::string why;
  const std::optional<PolicySpec> policy = parse_policy(policy_text, &why);
  if (!policy) bad("--policy", policy_text, why);
  o.policy = *policy;
  const int ncpus = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  for (const std::string& text : load_texts) {
    const std::optional<LoadSpec> load = parse_load(text, ncpus, &why);
    if (!load) bad("--load", text, why);
    o.loads.push_back(*load);
  }
  if (!inject_text.empty()) {
    const std::optional<InjectSpec> inject = parse_inject_spec(inject_text, &why);
    if (!inject) bad("--inject", inject_text, why);
    o.inject = *inject;
  }
  if (!backend_text.empty()) o.backend = parse_backend(backend_text);  // kUsage naming the value
  for (const auto& [flag, text, cpus] :
       {std::tuple{"--cpus", &cpus_text, &o.cpus},
        std::tuple{"--load-cpus", &load_cpus_text, &o.load_cpus}}) {
    if (text->empty()) continue;
    const std::optional<std::vector<int>> list = parse_cpu_list_checked(*text, &why);
    if (!list) bad(flag, *text, why);
    *cpus = *list;
  }
}

// `words` less every occurrence of `options` and its value, the rest kept as written: what
// each run of `run --repeat` gets. An option's value is the next word, or follows '=' in the
// same word (--label=NAME); a flag has none. CLI11 has parsed the same words, so a word that
// names one of these options is that option, not another option's value.
std::vector<std::string> words_without(const std::vector<std::string>& words,
                                       const std::vector<const CLI::Option*>& options) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    bool dropped = false;
    for (const CLI::Option* opt : options) {
      const bool takes_value = opt->get_items_expected_min() > 0;
      for (const std::string& n : opt->get_lnames()) {
        if (w == "--" + n) {
          dropped = true;
          if (takes_value) ++i;
        } else if (takes_value && w.rfind("--" + n + "=", 0) == 0) {
          dropped = true;
        }
      }
      for (const std::string& n : opt->get_snames()) {
        if (w == "-" + n) {
          dropped = true;
          if (takes_value) ++i;
        }
      }
      if (dropped) break;
    }
    if (!dropped) kept.push_back(w);
  }
  return kept;
}

class RunCli : public SubcommandCli {
 public:
  explicit RunCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand("run", "Run one measurement.")) {
    app_->add_option("--clients", o_.clients,
                     "Number of DSP clients in the chain (c1 -> c2 -> ... -> cN).")
        ->capture_default_str()
        ->type_name("N");
    app_->add_option("--ports", o_.ports, "Input and output ports per client.")
        ->capture_default_str()
        ->type_name("P");
    app_->add_option("--period", o_.period, "JACK period (buffer size) in FRAMES, a power of two.")
        ->capture_default_str()
        ->type_name("FRAMES");
    app_->add_option("--rate", o_.rate, "Sample rate in HZ.")
        ->capture_default_str()
        ->type_name("HZ");
    app_->add_option("--duration", o_.duration_s, "Measured time in SECONDS.")
        ->capture_default_str()
        ->type_name("SECONDS");
    app_->add_option("--dsp-load", o_.dsp_load_pct,
                     "DSP work of all clients together as PERCENT of the period (split evenly).")
        ->capture_default_str()
        ->type_name("PERCENT");
    label_ =
        app_->add_option("--label", o_.label, "NAME of the test case; results go to DIR/NAME/.")
            ->capture_default_str()
            ->type_name("NAME");
    output_ = app_->add_option("--output", o_.output, "Results go to DIR/NAME/<UTC timestamp>/.")
                  ->capture_default_str()
                  ->type_name("DIR");
    app_->add_option("--history", o_.history,
                     "The history database (SQLite) the run adds itself to at its end "
                     "(default: DIR/history.sqlite of --output; `xrunlab history` shows it).")
        ->type_name("FILE");
    app_->add_flag("--no-history", o_.no_history, "Add the run to no history database.");
    app_->add_option("--priority", o_.priority,
                     "SCHED_FIFO priority N of jackd (-P); clients run at N-5. 0: no realtime.")
        ->capture_default_str()
        ->type_name("N");
    // The four specs arrive as text and become types once, after parsing (make_specs).
    app_->add_option("--policy", policy_text_, policy_help())
        ->type_name("SPEC")
        ->capture_default_str();
    app_->add_option("--load", load_texts_, load_help())->type_name("SPEC");
    app_->add_option("--baseline", o_.baseline,
                     "A timer baseline beside the measurement: cyclictest (rt-tests) runs through "
                     "the window at the clients' priority, waking every period; its p50/p99/max "
                     "and the run's p99s divided by its p99 go into run.json and the summary.")
        ->transform(enum_words({BaselineTool::kNone, BaselineTool::kCyclictest}, baseline_tool_name,
                               parse_baseline_tool))
        ->default_str(baseline_tool_name(o_.baseline))
        ->type_name("TOOL");
    CLI::Option* ping = app_->add_flag(
        "--ping", o_.ping,
        "The 2004 question, does the audio load starve the network stack: --ping-rate ICMP echo "
        "requests a second, on a fixed schedule through the window, from this machine across a "
        "veth pair into a network namespace the run makes and removes (addresses of "
        "198.18.0.0/15, the benchmarking range; nothing else is pinged, no packet leaves the "
        "machine). Sent, lost, % lost and the round trip's p50/p99/max go into run.json (ping), "
        "the summary and ping.csv (one row per request). Needs root and iproute2.");
    app_->add_option("--ping-rate", o_.ping_rate, "Echo requests per second of --ping (1..1000).")
        ->capture_default_str()
        ->type_name("HZ")
        ->needs(ping);
    app_->add_option("--ping-drop-every", o_.ping_drop_every,
                     "Fault injection for --ping: an nftables rule in the run's namespace drops "
                     "every Nth echo request (the 1st, the N+1st, ...), so the loss is known in "
                     "advance, ceil(sent / N), and run.json says whether the count matched. Needs "
                     "nftables.")
        ->type_name("N")
        ->needs(ping);
    app_->add_flag("--dma-latency", o_.dma_latency,
                   "Hold /dev/cpu_dma_latency at 0 for the whole run, as cyclictest does by "
                   "default: the CPUs stay out of deep idle states, whose exit latency adds to "
                   "every wake-up. Needs write access to the device (root); recorded and read "
                   "back in run.json (dma_latency); the kernel drops the hold when the run ends, "
                   "however it ends.");
    app_->add_option("--cpus", cpus_text_,
                     "Run jackd (or the private PipeWire) and every client on these CPUs only: "
                     "LIST as taskset -c takes it (0, 0-1, 0,2-3), set before exec so every thread "
                     "inherits it. Every audio thread's affinity is read back at the start and the "
                     "end and must be LIST, like its policy; recorded in run.json (affinity).")
        ->type_name("LIST");
    app_->add_option("--load-cpus", load_cpus_text_,
                     "Run every --load (and the processes it starts) on these CPUs only: LIST as "
                     "for --cpus; each load's affinity is read back at its start and recorded in "
                     "run.json (affinity, loads[].cpus).")
        ->type_name("LIST");
    app_->add_flag(
        "--trace-on-xrun", o_.trace_on_xrun,
        "Keep a kernel trace ring (a private tracefs instance, the scheduler's and "
        "interrupts' events) through the run, freeze it at the first xrun and save it as "
        "xrun-trace.dat, for trace-cmd report and KernelShark; how far back it reaches is "
        "measured and recorded in run.json (trace_on_xrun). Needs root and trace-cmd.");
    app_->add_flag("--full-log", o_.full_log,
                   "Keep every line of jackd.log and clients/*.log. Without it, JACK's debug lines "
                   "(\"Jack: ...\", printed with jackd -v: every notification, connection and port "
                   "operation) are kept for the first 20 of each kind and then only counted "
                   "(run.json logs); xrun lines, errors, warnings, configuration, jackd's start-up "
                   "and the clients' own lines are always kept.");
    app_->add_option(
            "--explain", o_.explain,
            "Off unless given; --explain alone: the 5 worst cycles, --explain=N: the N worst "
            "(1..100), explained from a private kernel trace "
            "(tracefs, mounted if needed, restored at the end): for each late hop, which "
            "tasks (pid, policy, priority), interrupts and softirqs ran on that thread's CPU "
            "between its wake-up and its callback, or that nothing competed (steal). In "
            "run.json (explain) and one line per cycle in the summary. Needs root.")
        ->expected(0, 1)
        ->default_str("5")
        ->type_name("[=N]");
    app_->add_option("--inject", inject_text_,
                     "Make one client overrun on purpose: USEC:EVERY_N_CYCLES extra busy time "
                     "(USEC:EVERY_N_CYCLES:STEP: only from --ramp's step STEP on); or "
                     "spin:CYCLE: its CYCLE-th callback busy-waits forever, a runaway that "
                     "RLIMIT_RTTIME stops (exit code 5).")
        ->type_name("USEC:EVERY_N_CYCLES[:STEP]|spin:CYCLE");
    app_->add_option("--ramp", ramp_text_,
                     "A DSP ramp: the clients' load (all together, starting at --dsp-load, "
                     "default 0 with --ramp) grows by STEP_PCT of the period every EVERY cycles "
                     "(default: the cycles in 40 ms, at least 4) up to 100 %; the window ends at "
                     "the first xrun event, and run.json's ramp says the load in that cycle, "
                     "exactly, and the hop that broke. Without --duration the window is as long "
                     "as the ramp. One ramp of `xrunlab headroom` (docs/headroom.md).")
        ->type_name("STEP_PCT[:EVERY]");
    app_->add_option("--inject-client", o_.inject_client, "Which client INDEX gets --inject.")
        ->capture_default_str()
        ->type_name("INDEX");
    app_->add_option("--jackd", o_.jackd, "The jackd PROGRAM to run.")
        ->capture_default_str()
        ->type_name("PROGRAM");
    app_->add_option("--client-binary", o_.client_binary,
                     "The xrunlab-client PROGRAM (default: next to xrunlab).")
        ->type_name("PROGRAM");
    app_->add_option("--server-timeout", o_.server_timeout_s,
                     "SECONDS to wait for jackd to accept clients.")
        ->capture_default_str()
        ->type_name("SECONDS");
    app_->add_option("--backend", backend_text_,
                     "The sound card: vcard (xrunlab's virtual ALSA card with exact interrupt "
                     "times; the default without a sound card), dummy (JACK's timer driver), "
                     "alsa[:DEVICE] (a real card, default the first; the default with a card), "
                     "attach[:SERVER] (measure under an already running JACK or PipeWire-JACK "
                     "server; nothing is launched), pipewire (a private headless PipeWire with its "
                     "Dummy-Driver, quantum --period and rate --rate, reached through PipeWire's "
                     "libjack; docs/backends.md).")
        ->type_name("SPEC");
    app_->add_option("--nperiods", o_.nperiods,
                     "Periods in the card's buffer (vcard and alsa; jackd -n).")
        ->capture_default_str()
        ->type_name("N");
    app_->add_flag_callback(
        "--no-audio-check", [this] { o_.audio_check = false; },
        "Do not send the test signal through the chain (port 1 is then filtered like the others).");
    app_->add_flag("--record", o_.record,
                   "Write what the end of the chain received (audio/received.wav) and a 200 ms "
                   "excerpt around every glitch (audio/glitch-NNN.wav).");
    app_->add_option("--record-format", o_.record_format,
                     "FORMAT of --record's files: wav (32-bit float) or flac (24-bit integer; "
                     "samples beyond +-1.0 are clipped and counted in run.json).")
        ->check(CLI::IsMember({"wav", "flac"}))
        ->capture_default_str()
        ->type_name("FORMAT");
    app_->add_option("--source", o_.source,
                     "Play your own audio FILE through the chain instead of the test signal (WAV, "
                     "FLAC, Ogg: channel 1, at the run's --rate, looped, at most 300 s) and check "
                     "the tail's audio against it where the file allows (docs/measurement.md: Your "
                     "own audio).")
        ->type_name("FILE");
    app_->add_flag_callback(
        "--no-plots", [this] { o_.plots = false; }, "Do not draw the PNG plots.");
    CLI::Option* quiet =
        app_->add_flag("--quiet,-q", o_.quiet,
                       "No progress; at the end print only the verdict line and the run "
                       "folder.");
    CLI::Option* verbose =
        app_->add_flag("--verbose,-v", o_.verbose,
                       "At the end print the whole summary (summary.txt) instead of the short "
                       "result.");
    quiet->excludes(verbose);
    quiet_ = quiet;
    verbose_ = verbose;
    fail_if_ = app_->add_option("--fail-if", fail_if_texts_, fail_if_help())->type_name("COND");
    junit_ = app_->add_option("--junit", junit_text_,
                              "Write a JUnit XML report to FILE (one testcase per run).")
                 ->type_name("FILE");
    lava_opt_ = app_->add_flag(
        "--lava", lava_,
        "At the end, report each figure (jack_test's xrun_count, delay_max, cycle_max; xruns, "
        "slack_p1, wakeup_p99; any --fail-if names) as a LAVA test case: with "
        "lava-test-case on PATH (inside LAVA) call it once per case, else print "
        "its command lines ('lava-test-case NAME --result pass|fail|skip "
        "--measurement V --units U') on stdout; docs/commands.md. With "
        "--repeat: each figure is the runs' median.");
    repeat_ =
        app_->add_option(
                "--repeat", o_.repeat,
                "Run N times as a one-case campaign into OUTPUT/campaigns/LABEL/ (campaign.json; "
                "the same command continues an interrupted one; docs/commands.md).")
            ->capture_default_str()
            ->type_name("N");
    add_plot_format_option(app_, plot_format_text_, "the run's plots/*.png or plots/*.svg");
    app_->footer(
        "Examples:\n"
        "  $ xrunlab run --period 256 --duration 10 --label demo\n"
        "  $ xrunlab run --policy rr:80 --load compile --duration 60\n"
        "  $ xrunlab run --duration 60 --fail-if 'xruns>0' --junit ci.xml");
  }

  void finish(Command& cmd, const std::vector<std::string>& words) override {
    cmd.fail_if = parse_thresholds(fail_if_texts_);
    o_.plot_format = plot_format_flag(plot_format_text_);  // kUsage naming the flag
    cmd.kind = Command::Kind::kRun;
    o_.priority_given = app_->count("--priority") > 0;
    o_.period_given = app_->count("--period") > 0;
    o_.rate_given = app_->count("--rate") > 0;
    // --explain=0 would silently mean "off": refused like any value outside 1..100.
    if (app_->count("--explain") > 0 && o_.explain == 0) o_.explain = -1;
    make_specs(policy_text_, load_texts_, inject_text_, backend_text_, cpus_text_, load_cpus_text_,
               o_);
    if (!ramp_text_.empty()) set_ramp();
    validate(o_);
    check_source(o_);
    cmd.junit = junit_text_;
    cmd.lava = lava_;
    // The campaign gives each run its own --label and --output, and checks --fail-if, --junit
    // and --lava
    // itself on the runs' medians.
    cmd.repeat_run_args = words_without(
        words, {repeat_, label_, output_, fail_if_, junit_, lava_opt_, quiet_, verbose_});
    cmd.run = o_;
  }

 private:
  // --ramp: its spec; the load starts at 0 unless --dsp-load is given, and the window lasts the
  // ramp from there to the top plus 1 s unless --duration is given.
  void set_ramp() {
    std::string why;
    o_.ramp = parse_ramp_option(ramp_text_, &why);
    if (!o_.ramp) throw Error(ExitCode::kUsage, "--ramp '" + ramp_text_ + "': " + why);
    if (app_->count("--dsp-load") == 0) o_.dsp_load_pct = 0;
    if (app_->count("--duration") == 0) {
      const uint32_t every =
          o_.ramp->every != 0 ? o_.ramp->every : ramp_every_cycles(o_.period, o_.rate);
      o_.duration_s = std::ceil(
          ramp_seconds(o_.dsp_load_pct, kRampTopPct, o_.ramp->step_pct, every, o_.period, o_.rate) +
          kRampLeadS + 1.0);
    }
  }

  RunOptions o_;
  std::string ramp_text_;
  std::string policy_text_ = "fifo", inject_text_, backend_text_, cpus_text_, load_cpus_text_;
  std::vector<std::string> load_texts_, fail_if_texts_;
  std::string junit_text_, plot_format_text_ = "png";
  bool lava_ = false;
  const CLI::Option *label_ = nullptr, *output_ = nullptr, *fail_if_ = nullptr, *junit_ = nullptr,
                    *lava_opt_ = nullptr, *repeat_ = nullptr, *quiet_ = nullptr,
                    *verbose_ = nullptr;
};

}  // namespace

std::unique_ptr<SubcommandCli> add_run_cli(CLI::App& top) {
  return std::make_unique<RunCli>(top);
}

}  // namespace xrunlab
