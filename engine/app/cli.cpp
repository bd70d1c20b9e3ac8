// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/cli.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>
#include <thread>
#include <tuple>

#include "engine/backend/backend.hpp"
#include "engine/base/errors.hpp"
#include "engine/loads/load_spec.hpp"
#include "engine/sched/policy.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/thread_sched.hpp"
#include "engine/wire/version.hpp"

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

// `xrunlab --help` (and `xrunlab` alone) lists each subcommand on one line; the subcommand's own
// --help gives its whole description.
class OneLineSubcommands : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override {
    static const std::map<std::string, std::string> kLines = {
        {"run", "Run one measurement: a private jackd, N clients, every cycle measured."},
        {"plot", "Draw a run folder's plots again."},
        {"summary", "Write SUMMARY (jack_test's layout) and a table per label for runs."},
        {"compare", "Compare runs side by side in jack_test's field names; compare.png."},
        {"import", "Read old jack_test summaries into run records (*.records.json)."},
        {"campaign", "Run a campaign file (cases x repetitions, interleaved) into one folder."},
        {"sweep", "Find the smallest period that runs without dropouts."},
        {"doctor", "Check whether this system is set up for realtime audio."},
        {"check", "The doctor's checks and a short sweep, ending in one verdict."}};
    const auto line = kLines.find(sub->get_name());
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             line != kLines.end() ? line->second : sub->get_description(),
                             get_column_width());
    return out.str();
  }
};

// Each --help ends with real examples; tests/app/cli_test.cpp parses every `  $ xrunlab ...`
// line, so they stay commands that work. help2man makes them the man pages' EXAMPLES.
void add_examples(CLI::App& app) {
  auto footer = [&app](const char* sub, const char* text) {
    (sub[0] == '\0' ? &app : app.get_subcommand(sub))->footer(text);
  };
  footer("",
         "'xrunlab SUBCOMMAND --help' shows a subcommand's options and examples.\n\n"
         "Examples:\n"
         "  $ xrunlab doctor                           # ready for audio?\n"
         "  $ xrunlab check --clients 8 --dsp-load 50  # which period?\n"
         "  $ xrunlab run --period 256 --duration 10 --label demo");
  footer("run",
         "Examples:\n"
         "  $ xrunlab run --period 256 --duration 10 --label demo\n"
         "  $ xrunlab run --policy rr:80 --load compile --duration 60\n"
         "  $ xrunlab run --duration 60 --fail-if 'xruns>0' --junit ci.xml");
  footer("campaign",
         "Examples:\n"
         "  $ xrunlab campaign --preset jack_test4 --dry-run  # the plan\n"
         "  $ xrunlab campaign --preset iso-vs-fifo-2005 --scale 0.05\n"
         "  $ xrunlab campaign my-cases.toml --repetitions 5");
  footer("sweep",
         "Examples:\n"
         "  $ xrunlab sweep --dry-run  # the steps it may run, how long\n"
         "  $ xrunlab sweep --periods 128,256,512 --clients 4,14\n"
         "  $ xrunlab sweep --clients 8 -- --policy fifo --load compile");
  footer("check",
         "Examples:\n"
         "  $ xrunlab check  # 14 clients at 30 % DSP load\n"
         "  $ xrunlab check --clients 8 --dsp-load 50 -- --rate 44100");
  footer("plot",
         "Examples:\n"
         "  $ xrunlab plot results/demo/*  # every run of the label demo");
  footer("summary",
         "Examples:\n"
         "  $ xrunlab summary results  # writes results/SUMMARY\n"
         "  $ xrunlab summary results --by kernel --format csv");
  footer("compare",
         "Examples:\n"
         "  $ xrunlab compare results/fifo results/rr  # a column per label\n"
         "  $ xrunlab compare results/campaigns/jack_test4 --by run");
  footer("import",
         "Examples:\n"
         "  $ xrunlab import jack_test4.SUMMARY  # into results/imported/\n"
         "  $ xrunlab import old/*.txt --write results/imported-2005");
  footer("doctor",
         "Examples:\n"
         "  $ xrunlab doctor\n"
         "  $ xrunlab doctor --json --priority 80\n"
         "  $ sudo xrunlab doctor  # also the checks that need root");
}

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
  app.formatter(std::make_shared<OneLineSubcommands>());  // before the subcommands: they copy it
  app.name("xrunlab");  // the usage line says xrunlab, not argv[0]'s path (man pages read it)
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
  // The four specs arrive as text and become types once, after parsing (make_specs below).
  std::string policy_text = "fifo", inject_text, backend_text;
  std::vector<std::string> load_texts;
  run->add_option("--policy", policy_text, policy_help())->type_name("SPEC")->capture_default_str();
  run->add_option("--load", load_texts, load_help())->type_name("SPEC");
  run->add_option("--baseline", o.baseline,
                  "A timer baseline beside the measurement: cyclictest (rt-tests) runs through "
                  "the window at the clients' priority, waking every period; its p50/p99/max "
                  "and the run's p99s divided by its p99 go into run.json and the summary.")
      ->check(CLI::IsMember({"none", "cyclictest"}))
      ->capture_default_str()
      ->type_name("TOOL");
  run->add_flag("--dma-latency", o.dma_latency,
                "Hold /dev/cpu_dma_latency at 0 for the whole run, as cyclictest does by "
                "default: the CPUs stay out of deep idle states, whose exit latency adds to "
                "every wake-up. Needs write access to the device (root); recorded and read "
                "back in run.json (dma_latency); the kernel drops the hold when the run ends, "
                "however it ends.");
  std::string cpus_text, load_cpus_text;
  run->add_option("--cpus", cpus_text,
                  "Run jackd (or the private PipeWire) and every client on these CPUs only: "
                  "LIST as taskset -c takes it (0, 0-1, 0,2-3), set before exec so every thread "
                  "inherits it. Every audio thread's affinity is read back at the start and the "
                  "end and must be LIST, like its policy; recorded in run.json (affinity).")
      ->type_name("LIST");
  run->add_option("--load-cpus", load_cpus_text,
                  "Run every --load (and the processes it starts) on these CPUs only: LIST as "
                  "for --cpus; each load's affinity is read back at its start and recorded in "
                  "run.json (affinity, loads[].cpus).")
      ->type_name("LIST");
  run->add_flag("--trace-on-xrun", o.trace_on_xrun,
                "Keep a kernel trace ring (a private tracefs instance, the scheduler's and "
                "interrupts' events) through the run, freeze it at the first xrun and save it as "
                "xrun-trace.dat, for trace-cmd report and KernelShark; how far back it reaches is "
                "measured and recorded in run.json (trace_on_xrun). Needs root and trace-cmd.");
  run->add_flag("--full-log", o.full_log,
                "Keep every line of jackd.log and clients/*.log. Without it, JACK's debug lines "
                "(\"Jack: ...\", printed with jackd -v: every notification, connection and port "
                "operation) are kept for the first 20 of each kind and then only counted "
                "(run.json logs); xrun lines, errors, warnings, configuration, jackd's start-up "
                "and the clients' own lines are always kept.");
  run->add_option("--explain", o.explain,
                  "Off unless given; --explain alone: the 5 worst cycles, --explain=N: the N worst "
                  "(1..100), explained from a private kernel trace "
                  "(tracefs, mounted if needed, restored at the end): for each late hop, which "
                  "tasks (pid, policy, priority), interrupts and softirqs ran on that thread's CPU "
                  "between its wake-up and its callback, or that nothing competed (steal). In "
                  "run.json (explain) and one line per cycle in the summary. Needs root.")
      ->expected(0, 1)
      ->default_str("5")
      ->type_name("[=N]");
  run->add_option("--inject", inject_text,
                  "Make one client overrun on purpose: USEC:EVERY_N_CYCLES extra busy time; or "
                  "spin:CYCLE: its CYCLE-th callback busy-waits forever, a runaway that "
                  "RLIMIT_RTTIME stops (exit code 5).")
      ->type_name("USEC:EVERY_N_CYCLES|spin:CYCLE");
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
  run->add_option("--backend", backend_text,
                  "The sound card: vcard (xrunlab's virtual ALSA card with exact interrupt "
                  "times; the default without a sound card), dummy (JACK's timer driver), "
                  "alsa[:DEVICE] (a real card, default the first; the default with a card), "
                  "attach[:SERVER] (measure under an already running JACK or PipeWire-JACK "
                  "server; nothing is launched), pipewire (a private headless PipeWire with its "
                  "Dummy-Driver, quantum --period and rate --rate, reached through PipeWire's "
                  "libjack; docs/backends.md).")
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
  run->add_option("--record-format", o.record_format,
                  "FORMAT of --record's files: wav (32-bit float) or flac (24-bit integer; "
                  "samples beyond +-1.0 are clipped and counted in run.json).")
      ->check(CLI::IsMember({"wav", "flac"}))
      ->capture_default_str()
      ->type_name("FORMAT");
  run->add_option(
         "--source", o.source,
         "Play your own audio FILE through the chain instead of the test signal (WAV, "
         "FLAC, Ogg: channel 1, at the run's --rate, looped, at most 300 s) and check "
         "the tail's audio against it where the file allows (docs/measurement.md: Your own audio).")
      ->type_name("FILE");
  run->add_flag_callback(
      "--no-plots", [&o] { o.plots = false; }, "Do not draw the PNG plots.");
  run->add_flag("--quiet,-q", o.quiet, "Print only the summary.");
  std::vector<std::string> fail_if_texts;
  const std::string fail_if_help =
      "Fail (exit code 10) when a figure crosses a threshold, NAME OP VALUE[us|ms|s]: e.g. "
      "xruns>0, slack_p1<500us, delay_max>=2ms; repeatable. NAME: xruns, xrun_rate, xrun_count, "
      "delay_max, cycle_max, slack_min, slack_p1, wakeup_p99, client_wakeup_p99, baseline_p99, "
      "glitches, dsp_load (docs/commands.md: Thresholds). A figure the run does not have fails.";
  const std::string junit_help = "Write a JUnit XML report to FILE (one testcase per run).";
  run->add_option("--fail-if", fail_if_texts, fail_if_help)->type_name("COND");
  run->add_option("--junit", cmd.junit, junit_help)->type_name("FILE");
  run->add_option("--repeat", o.repeat,
                  "Run N times as a one-case campaign into OUTPUT/campaigns/LABEL/ (campaign.json; "
                  "the same command continues an interrupted one; docs/commands.md).")
      ->capture_default_str()
      ->type_name("N");
  ReportOptions& ro = cmd.report;
  CLI::App* plot = app.add_subcommand(
      "plot", "Draw a run folder's plots again (plots/timeline.png, plots/latency.png).");
  plot->add_option("RUN_DIR", ro.paths, "Run folders.")->required()->type_name("RUN_DIR");
  CLI::App* summary = app.add_subcommand(
      "summary",
      "Walk run folders and write SUMMARY: jack_test's .SUMMARY layout (one '# label' block "
      "per metric) and a table per label.");
  summary
      ->add_option("DIR", ro.paths,
                   "Result folders, label folders, run folders, campaign folders (their "
                   "finished counted runs) or imported *.records.json files.")
      ->required()
      ->type_name("DIR");
  summary
      ->add_option("--by", ro.by,
                   "Group the runs by label, or by where they ran (host, kernel, backend) or "
                   "their policy, or by label and kernel together (label-kernel: one campaign "
                   "run on two kernels); runs that do not record it (imports) are '(not "
                   "recorded)'.")
      ->check(CLI::IsMember({"label", "host", "kernel", "backend", "policy", "label-kernel"}))
      ->capture_default_str();
  summary->add_option("--format", ro.format, "text, json or csv.")
      ->check(CLI::IsMember({"text", "json", "csv"}))
      ->capture_default_str();
  summary->add_option("--write", ro.write, "FILE to write (default: SUMMARY in the first DIR).")
      ->type_name("FILE");
  CLI::App* compare = app.add_subcommand(
      "compare", "Side-by-side columns in jack_test's field names, and compare.png.");
  compare
      ->add_option("RUN_OR_LABEL", ro.paths,
                   "Run folders, label folders, campaign folders (their finished counted runs) or "
                   "imported files.")
      ->required()
      ->type_name("PATH");
  compare
      ->add_option("--by", ro.by,
                   "One column per label, per run, or per host, kernel, backend or policy, or per "
                   "label and kernel (label-kernel); runs that do not record it (imports) are "
                   "'(not recorded)'.")
      ->check(
          CLI::IsMember({"label", "run", "host", "kernel", "backend", "policy", "label-kernel"}))
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
                   "jack_test summary files (blocks, multi-run blocks with one column per "
                   "run, CONSOLIDATED RESULTS blocks, .SUMMARY). A value that is not a number "
                   "a run can have is refused, naming the file, line and field.")
      ->required()
      ->type_name("FILE");
  import->add_option("--write", ro.write, "DIR for the records (default: results/imported).")
      ->type_name("DIR");
  CampaignOptions& co = cmd.campaign;
  std::string order_text;
  uint64_t seed = 0;
  CLI::App* campaign = app.add_subcommand(
      "campaign",
      "Run a campaign file (TOML): its cases (the product of its axes) x repetitions of "
      "`xrunlab run`, interleaved, into one folder with campaign.json; the same command "
      "continues an interrupted campaign.");
  campaign->add_option("FILE", co.file, "The campaign file (docs/commands.md: `xrunlab campaign`).")
      ->type_name("FILE.toml");
  campaign
      ->add_option("--preset", co.preset,
                   "Run a campaign shipped in scripts/campaigns/ instead of FILE: jack_test4, "
                   "jack_test3, iso-vs-fifo-2005, rt-kernel (each file says what it reproduces).")
      ->type_name("NAME");
  double scale = 0, duration = 0;
  int repetitions = 0;
  campaign
      ->add_option("--scale", scale,
                   "Multiply every run's duration (and the warm-up) by F, e.g. 0.1 for a "
                   "quick look; at least 1 s each, at most 86400 s a run and 3600 s of "
                   "warm-up (refused beyond).")
      ->type_name("F");
  campaign->add_option("--duration", duration, "Every run's measured SECONDS.")
      ->type_name("SECONDS");
  campaign->add_option("--repetitions", repetitions, "Runs per case (overrides the file).")
      ->type_name("N");
  campaign->add_option("--dir", co.dir, "The campaign's folder (default results/campaigns/NAME).")
      ->type_name("DIR");
  campaign->add_flag("--dry-run", co.dry_run,
                     "Print the plan, its order and estimated time; run nothing. With a seed "
                     "drawn for it, it names the --seed that runs that order.");
  campaign
      ->add_option("--order", order_text,
                   "shuffled (each round of repetitions in a seeded random order; the "
                   "default) or sequential (every repetition of a case, then the next).")
      ->check(CLI::IsMember({"shuffled", "sequential"}))
      ->type_name("ORDER");
  campaign->add_option("--seed", seed, "The shuffle's seed when the file gives none.")
      ->type_name("N");
  campaign->add_flag("--replan", co.replan,
                     "Continue a folder that holds this campaign with another plan: keep its "
                     "finished runs whose case and repetition are unchanged.");
  campaign->add_flag("--quiet,-q", co.quiet, "Print only the closing table.");
  campaign
      ->add_option("--fail-if", fail_if_texts,
                   fail_if_help + " In a campaign each case is checked on its median.")
      ->type_name("COND");
  campaign
      ->add_option("--junit", cmd.junit,
                   "Write a JUnit XML report to FILE (one testcase per case).")
      ->type_name("FILE");
  SweepOptions& so = cmd.sweep;
  std::string periods_text = "64,128,256,512,1024", clients_text = "14";
  CLI::App* sweep = app.add_subcommand(
      "sweep",
      "Find the smallest period that runs without dropouts (xrun events or audible glitches): "
      "real runs over a list of periods (and client counts), each step up to N runs; a table, "
      "a heatmap (sweep.png) and a recommendation with its confidence. The same command "
      "continues an interrupted sweep. Options after -- go to every run.");
  sweep->add_option("--periods", periods_text, "The periods to search, in frames (16..8192).")
      ->capture_default_str()
      ->type_name("LIST");
  sweep->add_option("--clients", clients_text, "The client counts, one search each (1..253).")
      ->capture_default_str()
      ->type_name("LIST");
  sweep->add_option("--duration", so.spec.duration_s, "Each run's measured SECONDS.")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0))
      ->type_name("SECONDS");
  sweep
      ->add_option("--repetitions", so.spec.repetitions,
                   "Runs of a step that stays clean (a dropout ends a step after its run).")
      ->capture_default_str()
      ->check(CLI::Range(1, 100))
      ->type_name("N");
  sweep
      ->add_option("--search", so.spec.search,
                   "bisect (binary search per client count, assuming a larger period is never "
                   "worse), descending (from the largest period down to the first dropout) or all "
                   "(every cell).")
      ->capture_default_str()
      ->check(CLI::IsMember({"bisect", "descending", "all"}));
  sweep
      ->add_option("--name", so.spec.name,
                   "The sweep's name (default: sweep-<a hash of its settings>, so the same "
                   "command finds its folder again).")
      ->type_name("NAME");
  sweep->add_option("--dir", so.dir, "The sweep's folder (default results/sweeps/NAME).")
      ->type_name("DIR");
  sweep->add_flag("--dry-run", so.dry_run, "Print the steps it may run and the longest time.");
  sweep->add_flag("--quiet,-q", so.quiet, "Print only the table and the recommendation.");
  sweep
      ->add_option("RUN_OPTIONS", so.spec.run_args,
                   "After --: `xrunlab run` options for every run (e.g. -- --policy fifo "
                   "--dsp-load 30 --load compile); not --clients, --period or --duration.")
      ->type_name("-- RUN_OPTIONS");
  DoctorOptions& dop = cmd.doctor;
  dop.priority = RunOptions{}.server_priority();
  std::string doctor_root;
  CLI::App* doctor = app.add_subcommand(
      "doctor",
      "Check whether this system is set up for realtime audio: limits, audio group, CPU "
      "governor, SMT, preemption, timers, mitigations, swappiness, atime, cpu_dma_latency, RT "
      "throttling, rtkit, sound cards, their IRQs and IRQ thread priorities, audio servers. "
      "Each check says OK, WARN, FAIL, ROOT (needs root) or SKIP (not applicable), why it "
      "matters and how to fix it. Exit code 0 (no WARN or FAIL), 20 (WARN) or 21 (FAIL).");
  doctor->add_flag("--json", dop.json,
                   "Print the checks as JSON (keys id, title, status, found, why, fix; and a "
                   "summary) instead of the table.");
  doctor
      ->add_option("--priority", dop.priority,
                   "The SCHED_FIFO priority N jackd would run at (xrunlab run --priority), "
                   "which the policy and IRQ thread checks measure against.")
      ->capture_default_str()
      ->type_name("N");
  doctor
      ->add_option("--root", doctor_root,
                   "Read a copy of the system under DIR (DIR/proc, DIR/sys, DIR/etc, DIR/dev, "
                   "DIR/boot) instead of the real one, e.g. a test's fixture tree; facts that "
                   "have no file (alsa-lib, a SCHED_FIFO trial) are then not read.")
      ->type_name("DIR");
  for (auto [flag, where, what] : {std::tuple{"--root-proc", &dop.roots.proc, "/proc"},
                                   {"--root-sys", &dop.roots.sys, "/sys"},
                                   {"--root-etc", &dop.roots.etc, "/etc"},
                                   {"--root-dev", &dop.roots.dev, "/dev"},
                                   {"--root-boot", &dop.roots.boot, "/boot"}}) {
    doctor
        ->add_option(flag, *where,
                     std::string("Read DIR instead of ") + what + "; wins over --root.")
        ->type_name("DIR");
  }
  CheckOptions& ko = cmd.check;
  CLI::App* checkc = app.add_subcommand(
      "check",
      "Can this machine play without dropouts, and at which buffer size? The doctor's checks, "
      "then a short sweep of the periods for your client count and DSP load, ending in one "
      "verdict: the smallest period that ran clean (with its confidence), the next smaller "
      "one's rate, and what to fix first. Exit code 0 (a period ran clean), 22 (none did), "
      "130 (interrupted; the same command continues).");
  checkc->add_option("--clients", ko.clients, "Your number of plug-ins or tracks: DSP clients.")
      ->capture_default_str()
      ->check(CLI::Range(1, kMaxClients))
      ->type_name("N");
  checkc->add_option("--dsp-load", ko.dsp_load_pct, "Their DSP load, percent of the period.")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 95.0))
      ->type_name("PCT");
  checkc->add_option("--periods", ko.periods, "The periods to try, frames.")
      ->capture_default_str()
      ->type_name("LIST");
  checkc->add_option("--duration", ko.duration_s, "Each run's measured SECONDS.")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0))
      ->type_name("SECONDS");
  checkc->add_option("--repetitions", ko.repetitions, "Runs of a period that stays clean.")
      ->capture_default_str()
      ->check(CLI::Range(1, 100))
      ->type_name("N");
  checkc
      ->add_option("--dir", ko.dir,
                   "The check's folder (default results/checks/check-<hash of the settings>).")
      ->type_name("DIR");
  checkc->add_flag("--quiet,-q", ko.quiet, "No live line and no step lines.");
  checkc
      ->add_option("RUN_OPTIONS", ko.run_args,
                   "After --: `xrunlab run` options for every run, e.g. -- --rate 44100 "
                   "--load compile --backend alsa:hw:1 (not --clients, --period, --duration, "
                   "--dsp-load).")
      ->type_name("-- RUN_OPTIONS");
  // --plot-format on every command that draws plots: text here, a PlotFormat once parsed.
  std::string plot_format_text = "png";
  for (const auto& [sub, what] :
       {std::pair{run, "the run's plots/*.png or plots/*.svg"},
        {plot, "the plots drawn (plots/*.png or plots/*.svg)"},
        {compare, "compare.png or compare.svg"},
        {campaign, "campaign.png or campaign.svg, and with it every run's plots"},
        {sweep, "sweep.png or sweep.svg, and with it every run's plots"}}) {
    sub->add_option("--plot-format", plot_format_text,
                    std::string("FORMAT of ") + what + ": " + kPlotFormatWords +
                        " (gnuplot's pngcairo or svg terminal).")
        ->capture_default_str()
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
        ->type_name("FORMAT");
  }
  add_examples(app);
  if (argc <= 1) {  // `xrunlab` alone: the usage, as --help prints it
    std::fputs(app.help().c_str(), stdout);
    *exit_code = 0;
    return cmd;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    *exit_code = app.exit(e);
    return cmd;
  } catch (const CLI::ParseError& e) {
    std::string msg = e.what();
    // No subcommand: name the word that is not one (CLI11 says only "A subcommand is required").
    if (app.get_subcommands().empty() && argc > 1) {
      const std::string first = argv[1];
      std::string names;
      for (const CLI::App* sub : app.get_subcommands({})) {
        names += (names.empty() ? "" : ", ") + sub->get_name();
      }
      msg = (first.rfind('-', 0) == 0 ? "unknown option '" : "unknown subcommand '") + first +
            "'; give one of " + names;
    }
    throw Error(ExitCode::kUsage, msg + " (see xrunlab --help)");
  }
  for (const std::string& t : fail_if_texts) cmd.fail_if.push_back(parse_threshold(t));
  const PlotFormat plot_format = plot_format_flag(plot_format_text);  // kUsage naming the flag
  o.plot_format = ro.plot_format = plot_format;
  if (campaign->count("--plot-format") > 0) co.plot_format = plot_format;
  if (sweep->count("--plot-format") > 0) so.plot_format = plot_format;
  if (plot->parsed()) cmd.kind = Command::Kind::kPlot;
  if (summary->parsed()) cmd.kind = Command::Kind::kSummary;
  if (compare->parsed()) cmd.kind = Command::Kind::kCompare;
  if (import->parsed()) cmd.kind = Command::Kind::kImport;
  if (doctor->parsed()) {
    cmd.kind = Command::Kind::kDoctor;
    if (!doctor_root.empty()) {
      for (auto [flag, where, what] : {std::tuple{"--root-proc", &dop.roots.proc, "/proc"},
                                       {"--root-sys", &dop.roots.sys, "/sys"},
                                       {"--root-etc", &dop.roots.etc, "/etc"},
                                       {"--root-dev", &dop.roots.dev, "/dev"},
                                       {"--root-boot", &dop.roots.boot, "/boot"}}) {
        if (doctor->count(flag) == 0) *where = doctor_root + what;
      }
    }
    if (dop.priority < 1 || dop.priority > 99) {
      throw Error(ExitCode::kUsage, "doctor --priority " + std::to_string(dop.priority) +
                                        ": give a SCHED_FIFO priority 1..99");
    }
    return cmd;
  }
  if (campaign->parsed()) {
    cmd.kind = Command::Kind::kCampaign;
    if (!order_text.empty()) co.order = order_text;
    if (campaign->count("--seed") > 0) co.seed = seed;
    if (campaign->count("--scale") > 0) co.scale = scale;
    if (campaign->count("--duration") > 0) co.duration = duration;
    if (campaign->count("--repetitions") > 0) co.repetitions = repetitions;
    if (co.file.empty() == co.preset.empty()) {
      throw Error(ExitCode::kUsage,
                  "campaign: give either a campaign FILE or --preset NAME (see xrunlab campaign "
                  "--help)");
    }
    return cmd;
  }
  if (checkc->parsed()) {
    cmd.kind = Command::Kind::kCheck;
    return cmd;
  }
  if (sweep->parsed()) {
    cmd.kind = Command::Kind::kSweep;
    std::vector<int> clients;
    for (uint32_t c : parse_positive_list("--clients", clients_text, 1, kMaxClients))
      clients.push_back(static_cast<int>(c));
    so.spec.clients = clients;
    so.spec.periods = parse_positive_list("--periods", periods_text, 16, 8192);
    // The runs' rate, for the periods in ms (a bad value is refused when the runs are checked).
    for (size_t i = 0; i < so.spec.run_args.size(); ++i) {
      const std::string& a = so.spec.run_args[i];
      std::string v;
      if (a == "--rate" && i + 1 < so.spec.run_args.size()) v = so.spec.run_args[i + 1];
      if (a.rfind("--rate=", 0) == 0) v = a.substr(7);
      if (!v.empty() && v.size() < 9 && std::all_of(v.begin(), v.end(), ::isdigit)) {
        so.spec.rate = static_cast<uint32_t>(std::stoul(v));
      }
    }
    if (sweep->count("--name") == 0) so.spec.name = default_sweep_name(so.spec);
    return cmd;
  }
  if (!run->parsed()) return cmd;
  cmd.kind = Command::Kind::kRun;
  o.priority_given = run->count("--priority") > 0;
  o.period_given = run->count("--period") > 0;
  o.rate_given = run->count("--rate") > 0;
  // --explain=0 would silently mean "off": refused like any value outside 1..100.
  if (run->count("--explain") > 0 && o.explain == 0) o.explain = -1;
  make_specs(policy_text, load_texts, inject_text, backend_text, cpus_text, load_cpus_text, o);
  validate(o);
  check_source(o);
  return cmd;
}

void check_run_args(const std::vector<std::string>& run_args) {
  std::vector<std::string> words = {"xrunlab", "run"};
  words.insert(words.end(), run_args.begin(), run_args.end());
  for (const std::string& w : run_args) {
    if (w == "--help" || w == "-h" || w == "--version") {
      throw Error(ExitCode::kUsage, "'" + w + "' is not an option a campaign can give");
    }
  }
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(w.data());
  int exit_code = 0;
  parse_command_line(static_cast<int>(argv.size()), argv.data(), &exit_code);
}

}  // namespace xrunlab
