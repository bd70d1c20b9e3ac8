// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/cli.hpp"

#include <gtest/gtest.h>

#include "engine/app/check_command.hpp"
#include "engine/app/commands.hpp"
#include "engine/base/errors.hpp"
#include "engine/campaign/sweep_runner.hpp"

namespace xrunlab {
namespace {

Command parse(std::vector<std::string> args, int* code = nullptr) {
  args.insert(args.begin(), "xrunlab");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int ignored = 0;
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), code ? code : &ignored);
}

// The one-line message of the usage error raised by `args`, or "" if none.
std::string usage_error(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  return "";
}

TEST(Options, DefaultsAreJackTestsSettings) {
  const Command c = parse({"run"});
  ASSERT_EQ(c.kind, Command::Kind::kRun);
  EXPECT_EQ(c.run.clients, 14);
  EXPECT_EQ(c.run.ports, 4);
  EXPECT_EQ(c.run.period, 64u);
  EXPECT_EQ(c.run.rate, 48000u);
  EXPECT_EQ(c.run.duration_s, 300);
  EXPECT_EQ(c.run.priority, 70);
  EXPECT_EQ(c.run.output, "results");
}

TEST(Options, ParsesEveryOption) {
  const Command c =
      parse({"run", "--clients", "4",        "--ports",         "2",      "--period",
             "256", "--rate",    "44100",    "--duration",      "3.5",    "--dsp-load",
             "12",  "--label",   "fifo-1",   "--output",        "/tmp/x", "--priority",
             "80",  "--inject",  "8000:100", "--inject-client", "2",      "--no-plots"});
  EXPECT_EQ(c.run.clients, 4);
  EXPECT_EQ(c.run.period, 256u);
  EXPECT_EQ(c.run.rate, 44100u);
  EXPECT_DOUBLE_EQ(c.run.duration_s, 3.5);
  EXPECT_EQ(c.run.label, "fifo-1");
  ASSERT_TRUE(c.run.inject.has_value());
  EXPECT_EQ(c.run.inject->usec, 8000u);
  EXPECT_EQ(c.run.inject->every, 100u);
  EXPECT_EQ(c.run.inject_client, 2);
  EXPECT_FALSE(c.run.plots);
}

TEST(Options, ExplainIsOffByDefaultFiveAloneAndNWithAValue) {
  EXPECT_EQ(parse({"run"}).run.explain, 0);
  EXPECT_EQ(parse({"run", "--explain"}).run.explain, 5);
  EXPECT_EQ(parse({"run", "--explain=12"}).run.explain, 12);
  EXPECT_NE(usage_error({"run", "--explain=0"}).find("--explain=0: must be 1..100"),
            std::string::npos);
  EXPECT_NE(usage_error({"run", "--explain=101"}).find("--explain=101: must be 1..100"),
            std::string::npos);
}

TEST(Options, BadValuesNameTheFlag) {
  EXPECT_NE(usage_error({"run", "--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--clients", "0"}).find("--clients"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--clients", "-3"}).find("--clients"), std::string::npos);
  // JACK2's limits: 256 client slots (253 for us) and 4096 ports.
  EXPECT_NE(usage_error({"run", "--clients", "254"}).find("--clients 254: must be 1..253"),
            std::string::npos);
  EXPECT_NE(usage_error({"run", "--clients", "253", "--ports", "64"})
                .find("--clients 253 --ports 64: needs 32782 JACK ports, JACK2 has at most 4096"),
            std::string::npos);
  EXPECT_NE(usage_error({"run", "--period", "100"}).find("--period"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--period", "0"}).find("--period"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--period", "16384"}).find("--period"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--rate", "100"}).find("--rate"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--duration", "0"}).find("--duration"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--duration", "-1"}).find("--duration"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--dsp-load", "120"}).find("--dsp-load"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--label", "../etc"}).find("--label"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--priority", "3"}).find("--priority"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--inject", "abc"}).find("--inject"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--clients", "2", "--inject-client", "3"}).find("--inject-client"),
            std::string::npos);
  EXPECT_NE(usage_error({"run", "--clients", "many"}).find("--clients"), std::string::npos);
  // No subcommand: NoArgumentsPrintTheUsageAndExitZero; a word that is not one names them.
  EXPECT_NE(usage_error({"frob"}).find("run"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--record-format", "mp3"}).find("--record-format"),
            std::string::npos);
}

// --source FILE is checked before anything starts: a file that is not there, or not at the
// run's rate, is a one-line usage error naming it.
TEST(Options, SourceFileIsCheckedBeforeTheRun) {
  EXPECT_EQ(usage_error({"run", "--source", "/nonexistent/song.flac"}),
            "--source '/nonexistent/song.flac': No such file or directory (give an audio file: "
            "WAV, FLAC or Ogg)");
  EXPECT_EQ(usage_error({"run", "--source", "/etc/hostname", "--no-audio-check"}),
            "--source needs the audio check (drop --no-audio-check)");
  EXPECT_EQ(usage_error({"run", "--source", "/etc/hostname", "--clients", "1"}),
            "--source needs --clients 2 or more (a head that plays the file, a tail that checks "
            "it)");
  const Command c = parse({"run", "--record", "--record-format", "flac"});
  EXPECT_EQ(c.run.record_format, "flac");
  EXPECT_EQ(run_spec(c.run).record_format, "flac");
  EXPECT_EQ(run_spec(c.run).source, "");
}

// summary and compare group by label, or by host, kernel, backend or policy (compare also by
// run); another word is a usage error naming --by.
TEST(Options, ReportCommandsGroupBy) {
  EXPECT_EQ(parse({"summary", "results"}).report.by, GroupBy::kLabel);
  for (const GroupBy by : {GroupBy::kLabel, GroupBy::kHost, GroupBy::kKernel, GroupBy::kBackend,
                           GroupBy::kPolicy, GroupBy::kLabelKernel}) {
    const Command s = parse({"summary", "results", "--by", group_by_name(by)});
    EXPECT_EQ(s.kind, Command::Kind::kSummary);
    EXPECT_EQ(s.report.by, by) << group_by_name(by);
    EXPECT_EQ(parse({"compare", "results", "--by", group_by_name(by)}).report.by, by);
    EXPECT_EQ(parse({"compare", "results", std::string("--by=") + group_by_name(by)}).report.by,
              by);
  }
  EXPECT_EQ(parse({"compare", "results"}).report.by, GroupBy::kLabel);
  EXPECT_EQ(parse({"compare", "results", "--by", "run"}).report.by, GroupBy::kRun);
  EXPECT_EQ(usage_error({"summary", "results", "--by", "run"}),
            "--by: run not in {label,host,kernel,backend,policy,label-kernel} (see xrunlab "
            "--help)");
  EXPECT_EQ(usage_error({"compare", "results", "--by", "colour"}),
            "--by: colour not in {label,run,host,kernel,backend,policy,label-kernel} (see xrunlab "
            "--help)");
}

// --format: text by default, each word its value; the words are exact (no other case, and not
// the enum's numbers, which CLI11 would assign to an enum option unchecked).
TEST(EnumOptions, FormatTakesTextJsonOrCsv) {
  EXPECT_EQ(parse({"summary", "r"}).report.format, ReportFormat::kText);
  EXPECT_EQ(parse({"compare", "r"}).report.format, ReportFormat::kText);
  for (const ReportFormat f : {ReportFormat::kText, ReportFormat::kJson, ReportFormat::kCsv}) {
    EXPECT_EQ(parse({"summary", "r", "--format", report_format_name(f)}).report.format, f);
    EXPECT_EQ(parse({"compare", "r", "--format", report_format_name(f)}).report.format, f);
    EXPECT_EQ(parse_report_format(report_format_name(f)).value(), f);
  }
  for (const char* sub : {"summary", "compare"}) {
    for (const char* bad : {"xml", "JSON", "1", ""}) {
      EXPECT_EQ(usage_error({sub, "r", "--format", bad}),
                std::string("--format: ") + bad + " not in {text,json,csv} (see xrunlab --help)")
          << sub << " " << bad;
    }
  }
  EXPECT_FALSE(parse_report_format("1"));
}

TEST(EnumOptions, BaselineTakesNoneOrCyclictestAndRunJsonSaysItsWord) {
  const RunOptions none = parse({"run"}).run;
  EXPECT_EQ(none.baseline, BaselineTool::kNone);
  EXPECT_EQ(run_spec(none).baseline, "none");
  const RunOptions cyc = parse({"run", "--baseline", "cyclictest"}).run;
  EXPECT_EQ(cyc.baseline, BaselineTool::kCyclictest);
  EXPECT_EQ(run_spec(cyc).baseline, "cyclictest");
  EXPECT_EQ(parse({"run", "--baseline=none"}).run.baseline, BaselineTool::kNone);
  for (const BaselineTool t : {BaselineTool::kNone, BaselineTool::kCyclictest}) {
    EXPECT_EQ(parse_baseline_tool(baseline_tool_name(t)).value(), t);
  }
  EXPECT_EQ(usage_error({"run", "--baseline", "foo"}),
            "--baseline: foo not in {none,cyclictest} (see xrunlab --help)");
  EXPECT_EQ(usage_error({"run", "--baseline", "1"}),
            "--baseline: 1 not in {none,cyclictest} (see xrunlab --help)");
  EXPECT_FALSE(parse_baseline_tool("Cyclictest"));
}

// The enum options' help lines: the type, the accepted words and the default.
TEST(EnumOptions, HelpListsTheWordsAndTheDefault) {
  auto help = [](const std::vector<std::string>& args) {
    int code = -1;
    testing::internal::CaptureStdout();
    parse(args, &code);
    return testing::internal::GetCapturedStdout();
  };
  const std::string summary = help({"summary", "--help"});
  EXPECT_NE(summary.find("--by TEXT:{label,host,kernel,backend,policy,label-kernel}=label\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("--format TEXT:{text,json,csv}=text\n"), std::string::npos) << summary;
  const std::string compare = help({"compare", "--help"});
  EXPECT_NE(compare.find("--by TEXT:{label,run,host,kernel,backend,policy,label-kernel}=label\n"),
            std::string::npos)
      << compare;
  EXPECT_NE(help({"run", "--help"}).find("--baseline TOOL:{none,cyclictest}=none\n"),
            std::string::npos);
}

// run --repeat N: the runs get the run's arguments as written, less those the campaign sets per
// run, in every form the parser takes them; the one-case campaign is made from them.
TEST(RepeatOption, TheRunsGetTheArgumentsLessThoseTheCampaignSets) {
  const Command c = parse({"run", "--repeat", "3", "--clients", "2", "--label", "my.run",
                           "--output=/tmp/o", "-q", "--load", "cpu:1", "--fail-if", "xruns>0",
                           "--junit=ci.xml", "--duration", "4", "--quiet", "--plot-format=svg"});
  EXPECT_EQ(c.run.repeat, 3);
  EXPECT_EQ(c.repeat_run_args, (std::vector<std::string>{"--clients", "2", "--load", "cpu:1",
                                                         "--duration", "4", "--plot-format=svg"}));
  const RepeatCampaign r = repeat_campaign(c, "/bin/xrunlab");
  EXPECT_EQ(r.options.dir, "/tmp/o/campaigns/my.run");
  EXPECT_TRUE(r.options.quiet);
  EXPECT_EQ(r.options.junit, "ci.xml");
  ASSERT_EQ(r.options.fail_if.size(), 1u);
  ASSERT_EQ(r.plan.cases.size(), 1u);
  EXPECT_EQ(r.plan.cases[0].run_args, c.repeat_run_args);
  EXPECT_EQ(r.plan.cases[0].name, "my.run");
  EXPECT_EQ(r.plan.runs.size(), 3u);
  EXPECT_DOUBLE_EQ(r.plan.duration_s, 4.0);
  // --repeat=N written with '=' goes too, and without --repeat the list is the arguments.
  EXPECT_EQ(parse({"run", "--repeat=2", "--period", "128"}).repeat_run_args,
            (std::vector<std::string>{"--period", "128"}));
  EXPECT_EQ(parse({"run", "--period", "128"}).repeat_run_args,
            (std::vector<std::string>{"--period", "128"}));
}

// The sweep's runs' --rate, typed by the run parser: the periods in ms and the sweep's name.
TEST(RateOfTheRuns, ReachesTheSweepFromItsRunOptions) {
  EXPECT_EQ(parse({"sweep"}).sweep.spec.rate, 48000u);
  EXPECT_EQ(parse({"sweep", "--", "--rate", "44100"}).sweep.spec.rate, 44100u);
  EXPECT_EQ(parse({"sweep", "--", "--policy", "fifo", "--rate=96000"}).sweep.spec.rate, 96000u);
  EXPECT_NE(parse({"sweep", "--", "--rate", "44100"}).sweep.spec.name,
            parse({"sweep"}).sweep.spec.name);
  // Options `run` refuses leave run's default; the sweep refuses them before anything runs.
  const Command bad = parse({"sweep", "--", "--rate", "100"});
  EXPECT_EQ(bad.sweep.spec.rate, 48000u);
  EXPECT_THROW(check_sweep_args(bad.sweep.spec, check_run_args), Error);
}

// The check's runs' --rate and --priority: its sweep's rate and the doctor's targets.
TEST(RateOfTheRuns, ReachesTheCheckFromItsRunOptions) {
  const Command c = parse({"check", "--", "--rate", "44100", "--priority", "80"});
  ASSERT_EQ(c.kind, Command::Kind::kCheck);
  const CheckSweep k = check_sweep_options(c.check);
  EXPECT_EQ(k.sweep.spec.rate, 44100u);
  EXPECT_EQ(k.jackd_priority, 80);
  EXPECT_EQ(check_sweep_options(parse({"check", "--", "--rate=22050"}).check).sweep.spec.rate,
            22050u);
  const CheckSweep d = check_sweep_options(parse({"check"}).check);
  EXPECT_EQ(d.sweep.spec.rate, 48000u);
  EXPECT_EQ(d.jackd_priority, 70);
  EXPECT_NE(k.sweep.spec.name, d.sweep.spec.name);
  EXPECT_EQ(usage_error({"check", "--", "--dsp-load", "5"}), "");  // refused when the check runs
  EXPECT_THROW(check_sweep_options(parse({"check", "--", "--dsp-load", "5"}).check), Error);
}

TEST(Options, MessagesAreOneLine) {
  for (auto args : std::vector<std::vector<std::string>>{
           {"run", "--bogus"}, {"run", "--period", "100"}, {"run", "--clients", "x"}}) {
    EXPECT_EQ(usage_error(args).find('\n'), std::string::npos);
  }
}

TEST(Options, HelpAndVersionExitZero) {
  int code = -1;
  EXPECT_EQ(parse({"--version"}, &code).kind, Command::Kind::kNone);
  EXPECT_EQ(code, 0);
  code = -1;
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse({"run", "--help"}, &code).kind, Command::Kind::kNone);
  const std::string help = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_NE(help.find("--dsp-load"), std::string::npos);
  EXPECT_NE(help.find("FRAMES"), std::string::npos);
}

const std::vector<std::string> kSubcommands = {"run",    "campaign", "sweep",   "check",
                                               "plot",   "summary",  "compare", "import",
                                               "export", "doctor",   "history"};

// `xrunlab export`: its outputs, --origin and --fail-if into the command; at least one output,
// an origin KCIDB takes and a known figure, or a one-line usage error naming what is wrong.
TEST(Options, ExportTakesItsOutputsAndRefusesNone) {
  const Command c =
      parse({"export", "runs", "more", "--kcidb", "k.json", "--squad", "sq", "--openmetrics",
             "x.prom", "--origin", "lab_1", "--fail-if", "delay_max>2ms", "--fail-if", "xruns>0"});
  EXPECT_EQ(c.kind, Command::Kind::kExport);
  EXPECT_EQ(c.exports.paths, (std::vector<std::string>{"runs", "more"}));
  EXPECT_EQ(c.exports.kcidb, "k.json");
  EXPECT_EQ(c.exports.squad, "sq");
  EXPECT_EQ(c.exports.openmetrics, "x.prom");
  EXPECT_EQ(c.exports.options.origin, "lab_1");
  ASSERT_EQ(c.exports.options.fail_if.size(), 2u);
  EXPECT_EQ(c.exports.options.fail_if[0].metric, "delay_max");
  EXPECT_DOUBLE_EQ(c.exports.options.fail_if[0].value, 2000);
  EXPECT_EQ(parse({"export", "runs", "--squad", "sq"}).exports.options.origin, "xrunlab");
  EXPECT_NE(usage_error({"export", "runs"}).find("at least one of --kcidb"), std::string::npos);
  EXPECT_NE(usage_error({"export", "runs", "--kcidb", "k.json", "--origin", "Lab"})
                .find("--origin 'Lab'"),
            std::string::npos);
  EXPECT_NE(
      usage_error({"export", "runs", "--kcidb", "k.json", "--fail-if", "nope>1"}).find("nope"),
      std::string::npos);
  EXPECT_NE(usage_error({"export", "--kcidb", "k.json"}).find("PATH"), std::string::npos);
}

// `xrunlab` alone prints the usage (every subcommand, one line each) and exits 0.
TEST(Options, NoArgumentsPrintTheUsageAndExitZero) {
  int code = -1;
  testing::internal::CaptureStdout();
  EXPECT_EQ(parse({}, &code).kind, Command::Kind::kNone);
  const std::string usage = testing::internal::GetCapturedStdout();
  EXPECT_EQ(code, 0);
  EXPECT_NE(usage.find("Usage: xrunlab [OPTIONS] SUBCOMMAND"), std::string::npos) << usage;
  for (const std::string& sub : kSubcommands) {
    // "  run    Run one measurement: ..." on one line.
    const size_t at = usage.find("\n  " + sub + " ");
    ASSERT_NE(at, std::string::npos) << sub << " missing in:\n" << usage;
    const size_t eol = usage.find('\n', at + 1);
    EXPECT_LT(usage.find_first_not_of(' ', at + 3 + sub.size()), eol) << sub << ": no text";
    EXPECT_LT(eol - at, 110u) << sub << ": one short line";
  }
  // The same text as --help.
  testing::internal::CaptureStdout();
  parse({"--help"}, &code);
  EXPECT_EQ(testing::internal::GetCapturedStdout(), usage);
}

// A wrong flag or word stays a one-line usage error (exit code 2) naming it.
TEST(Options, AnUnknownSubcommandOrTopLevelFlagIsAOneLineUsageError) {
  const std::string word = usage_error({"frob"});
  EXPECT_NE(word.find("unknown subcommand 'frob'"), std::string::npos) << word;
  EXPECT_NE(word.find("run, "), std::string::npos) << word;
  const std::string flag = usage_error({"--bogus"});
  EXPECT_NE(flag.find("unknown option '--bogus'"), std::string::npos) << flag;
  for (const std::string& m : {word, flag}) EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  EXPECT_NE(usage_error({"run", "--bogus"}).find("--bogus"), std::string::npos);
}

// Shell words of one example line: blanks split, '...' quotes, " # ..." a comment.
std::vector<std::string> shell_words(const std::string& line) {
  std::vector<std::string> words;
  std::string w;
  bool in_word = false, quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '\'') {
        quoted = false;
      } else {
        w += c;
      }
    } else if (c == '\'') {
      quoted = in_word = true;
    } else if (c == ' ') {
      if (in_word) words.push_back(w);
      w.clear();
      in_word = false;
    } else if (c == '#' && !in_word) {
      break;
    } else {
      w += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(w);
  return words;
}

// Every --help ends with examples, and each one parses as the command it shows (with the `--`
// part checked as a campaign checks `xrunlab run` options).
TEST(Options, EveryHelpEndsWithExamplesThatParse) {
  std::vector<std::string> pages = kSubcommands;
  pages.push_back("");  // xrunlab --help
  for (const std::string& sub : pages) {
    int code = -1;
    testing::internal::CaptureStdout();
    std::vector<std::string> args = {sub, "--help"};
    if (sub.empty()) args.erase(args.begin());
    parse(args, &code);
    const std::string help = testing::internal::GetCapturedStdout();
    const size_t examples = help.find("\nExamples:\n");
    ASSERT_NE(examples, std::string::npos) << "xrunlab " << sub << " --help:\n" << help;
    int count = 0;
    size_t at = examples;
    while ((at = help.find("\n  $ ", at + 1)) != std::string::npos) {
      const std::string line = help.substr(at + 5, help.find('\n', at + 1) - at - 5);
      // "$ " + line fits the man page's EXAMPLES at 80 columns (help2man indents it 14).
      EXPECT_LE(line.size() + 2, 64u) << line;
      std::vector<std::string> words = shell_words(line);
      if (!words.empty() && words[0] == "sudo") words.erase(words.begin());
      ASSERT_GE(words.size(), 2u) << line;
      ASSERT_EQ(words[0], "xrunlab") << line;
      if (!sub.empty()) {
        EXPECT_EQ(words[1], sub) << line;
      }
      words.erase(words.begin());
      Command c;
      try {
        c = parse(words);
      } catch (const Error& e) {
        ADD_FAILURE() << line << ": " << e.what();
        continue;
      }
      EXPECT_NE(c.kind, Command::Kind::kNone) << line;
      const std::vector<std::string>& run_args =
          c.kind == Command::Kind::kSweep ? c.sweep.spec.run_args : c.check.run_args;
      if (c.kind == Command::Kind::kSweep || c.kind == Command::Kind::kCheck) {
        EXPECT_NO_THROW(check_run_args(run_args)) << line;
      }
      ++count;
    }
    EXPECT_GE(count, sub.empty() || sub == "plot" ? 1 : 2) << "xrunlab " << sub << " --help";
  }
}

// Parse, don't validate: the specs arrive typed, and run.json's spec gives them back as text.
TEST(Options, SpecsArriveTyped) {
  const RunOptions o = parse({"run", "--policy", "other:-20", "--load", "cpu:2", "--load",
                              "io-write:64@nice=5", "--backend", "dummy"})
                           .run;
  EXPECT_EQ(o.policy.kind, PolicyKind::kOther);
  EXPECT_EQ(o.policy.nice, -20);
  ASSERT_EQ(o.loads.size(), 2u);
  EXPECT_EQ(o.loads[0].kind, "cpu");
  EXPECT_EQ(o.loads[1].nice, 5);
  ASSERT_TRUE(o.backend.has_value());
  EXPECT_EQ(o.backend->kind, BackendSpec::Kind::kDummy);
  const RunSpec s = run_spec(o);
  EXPECT_EQ(s.policy, "other:-20");
  EXPECT_EQ(s.loads, (std::vector<std::string>{"cpu:2", "io-write:64@nice=5"}));
  EXPECT_EQ(s.backend, "dummy");
  // The defaults are typed too: fifo, no loads, no inject, the backend chosen at run time.
  const RunOptions d = parse({"run"}).run;
  EXPECT_EQ(d.policy.kind, PolicyKind::kFifo);
  EXPECT_EQ(d.policy.text, "fifo");
  EXPECT_TRUE(d.loads.empty());
  EXPECT_FALSE(d.inject.has_value());
  EXPECT_FALSE(d.backend.has_value());
}

TEST(Options, BadSpecsNameTheFlagAndTheValue) {
  EXPECT_NE(usage_error({"run", "--policy", "fifo:200"}).find("--policy 'fifo:200'"),
            std::string::npos);
  EXPECT_NE(usage_error({"run", "--load", "bogus"}).find("--load 'bogus'"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--inject", "8000"}).find("--inject '8000'"), std::string::npos);
  EXPECT_NE(usage_error({"run", "--policy", "rr:60", "--priority", "70"}).find("disagree"),
            std::string::npos);
}

TEST(Options, SpecHasEverySetting) {
  const RunSpec s = run_spec(parse({"run", "--clients", "3"}).run);
  EXPECT_EQ(s.clients, 3);
  EXPECT_EQ(s.period_frames, 64u);
  EXPECT_EQ(s.rate_hz, 48000u);
  EXPECT_EQ(s.label, "default");
  EXPECT_EQ(s.policy, "fifo");
  EXPECT_EQ(s.baseline, "none");
  EXPECT_EQ(s.inject, "");
  EXPECT_EQ(s.plot_format, "png");
  EXPECT_EQ(s.backend, "");  // chosen when the run starts (vcard without a sound card)
  EXPECT_EQ(s.nperiods, 2);
  const RunSpec k = run_spec(parse({"run", "--backend", "alsa:hw:1", "--nperiods", "3"}).run);
  EXPECT_EQ(k.backend, "alsa:hw:1");
  EXPECT_EQ(k.nperiods, 3);
}

TEST(Options, BackendAndNperiodsAreValidated) {
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{"run", "--backend", "sb16"},
        std::vector<std::string>{"run", "--nperiods", "1"},
        std::vector<std::string>{"run", "--nperiods", "33"}}) {
    try {
      parse(bad);
      ADD_FAILURE() << bad[2] << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      EXPECT_NE(std::string(e.what()).find(bad[1]), std::string::npos) << e.what();
    }
  }
  const RunOptions o = parse({"run", "--period", "128"}).run;
  EXPECT_TRUE(o.period_given);
  EXPECT_FALSE(o.rate_given);
}

TEST(Options, CpusAndLoadCpusArriveAsSortedCpuSets) {
  const RunOptions o = parse({"run", "--cpus", "3,0-1", "--load", "cpu:1", "--load-cpus", "2"}).run;
  EXPECT_EQ(o.cpus, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(o.load_cpus, (std::vector<int>{2}));
  const RunSpec s = run_spec(o);
  EXPECT_EQ(s.cpus, "0-1,3");
  EXPECT_EQ(s.load_cpus, "2");
  const RunOptions d = parse({"run"}).run;
  EXPECT_TRUE(d.cpus.empty());
  EXPECT_TRUE(d.load_cpus.empty());
  EXPECT_EQ(run_spec(d).cpus, "");
}

TEST(Options, MalformedCpuListsAndLoadCpusWithoutALoadAreUsageErrors) {
  EXPECT_EQ(usage_error({"run", "--cpus", "0-"}),
            "--cpus '0-': '0-' is not a CPU number or range (expected N or N-M, e.g. 0, 0-1 or "
            "0,2-3)");
  EXPECT_EQ(usage_error({"run", "--cpus", "2-1"}),
            "--cpus '2-1': '2-1' is a range that runs backwards");
  EXPECT_EQ(usage_error({"run", "--load", "cpu:1", "--load-cpus", "one"}),
            "--load-cpus 'one': 'one' is not a CPU number or range (expected N or N-M, e.g. 0, "
            "0-1 or 0,2-3)");
  EXPECT_EQ(usage_error({"run", "--load-cpus", "1"}),
            "--load-cpus 1 without --load: it sets the loads' CPUs; add a --load or leave "
            "--load-cpus out");
}

// The machine's side, on made-up facts: CPUs 0-3 online, the engine itself allowed on 0-2.
TEST(Options, CpusMustBeOnlineAndAllowedAndDeadlineNeedsTheWholeRootDomain) {
  const CpuFacts facts{{0, 1, 2, 3}, {0, 1, 2}};
  auto refusal = [&](const std::vector<std::string>& args) -> std::string {
    try {
      check_cpus(parse(args).run, facts);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refusal({"run", "--cpus", "0-2", "--load", "cpu:1", "--load-cpus", "1"}), "");
  EXPECT_EQ(refusal({"run"}), "");
  EXPECT_EQ(refusal({"run", "--cpus", "1,5"}),
            "--cpus 1,5: CPU 5 is not online; choose from CPUs 0-2");
  EXPECT_EQ(refusal({"run", "--cpus", "3"}),
            "--cpus 3: CPU 3 is not in the CPUs xrunlab itself may run on; choose from CPUs 0-2");
  EXPECT_EQ(refusal({"run", "--load", "cpu:1", "--load-cpus", "0-3"}),
            "--load-cpus 0-3: CPU 3 is not in the CPUs xrunlab itself may run on; choose from "
            "CPUs 0-2");
  const CpuFacts all{{0, 1}, {0, 1}};
  const RunOptions dl = parse({"run", "--policy", "deadline", "--cpus", "0"}).run;
  try {
    check_cpus(dl, all);
    ADD_FAILURE() << "SCHED_DEADLINE on one of two CPUs accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_EQ(std::string(e.what()),
              "--cpus 0 with --policy deadline: the kernel refuses SCHED_DEADLINE for a thread "
              "whose affinity is narrower than its root domain (online CPUs 0-1); leave --cpus "
              "out or give --cpus 0-1");
  }
  EXPECT_NO_THROW(check_cpus(parse({"run", "--policy", "deadline", "--cpus", "0-1"}).run, all));
  EXPECT_NO_THROW(check_cpus(parse({"run", "--policy", "deadline"}).run, all));
  // This machine's own facts: the engine runs on at least one online CPU.
  const CpuFacts here = read_cpu_facts();
  EXPECT_FALSE(here.online.empty());
  EXPECT_FALSE(here.allowed.empty());
}

TEST(DoctorOptions, DefaultsAreTheRealRootsTheTableAndJackdsDefaultPriority) {
  const Command c = parse({"doctor"});
  ASSERT_EQ(c.kind, Command::Kind::kDoctor);
  EXPECT_FALSE(c.doctor.json);
  EXPECT_TRUE(c.doctor.roots.live());
  EXPECT_EQ(c.doctor.priority, 70);  // xrunlab run's default jackd priority
}

TEST(DoctorOptions, RootSetsEveryRootUnderItAndAGivenRootWins) {
  const Command c =
      parse({"doctor", "--json", "--root", "/t", "--root-etc", "/e", "--priority", "80"});
  EXPECT_TRUE(c.doctor.json);
  EXPECT_EQ(c.doctor.roots.proc, "/t/proc");
  EXPECT_EQ(c.doctor.roots.sys, "/t/sys");
  EXPECT_EQ(c.doctor.roots.etc, "/e");
  EXPECT_EQ(c.doctor.roots.dev, "/t/dev");
  EXPECT_EQ(c.doctor.roots.boot, "/t/boot");
  EXPECT_FALSE(c.doctor.roots.live());
  EXPECT_EQ(c.doctor.priority, 80);
}

TEST(DoctorOptions, APriorityOutsideOneTo99IsRefused) {
  EXPECT_EQ(usage_error({"doctor", "--priority", "100"}),
            "doctor --priority 100: give a SCHED_FIFO priority 1..99");
}

// --plot-format: each command that draws plots takes it, typed once; a wrong value is a one-line
// usage error naming the flag and the accepted values.
TEST(PlotFormatOption, PngByDefault) {
  EXPECT_EQ(parse({"run"}).run.plot_format, PlotFormat::kPng);
  EXPECT_EQ(parse({"plot", "r"}).report.plot_format, PlotFormat::kPng);
  EXPECT_EQ(parse({"compare", "r"}).report.plot_format, PlotFormat::kPng);
  EXPECT_FALSE(parse({"campaign", "c.toml"}).campaign.plot_format.has_value());
  EXPECT_FALSE(parse({"sweep"}).sweep.plot_format.has_value());
}

TEST(PlotFormatOption, EveryCommandThatDrawsTakesSvg) {
  EXPECT_EQ(parse({"run", "--plot-format", "svg"}).run.plot_format, PlotFormat::kSvg);
  EXPECT_EQ(parse({"run", "--plot-format=svg"}).run.plot_format, PlotFormat::kSvg);
  EXPECT_EQ(parse({"plot", "r", "--plot-format", "svg"}).report.plot_format, PlotFormat::kSvg);
  EXPECT_EQ(parse({"compare", "a", "b", "--plot-format", "svg"}).report.plot_format,
            PlotFormat::kSvg);
  EXPECT_EQ(parse({"campaign", "c.toml", "--plot-format", "svg"}).campaign.plot_format,
            PlotFormat::kSvg);
  EXPECT_EQ(parse({"campaign", "c.toml", "--plot-format", "png"}).campaign.plot_format,
            PlotFormat::kPng);
  EXPECT_EQ(parse({"sweep", "--plot-format", "svg"}).sweep.plot_format, PlotFormat::kSvg);
}

// A campaign gives its runs --plot-format after their own arguments: the last one counts.
TEST(PlotFormatOption, TheLastOneCounts) {
  EXPECT_EQ(parse({"run", "--plot-format", "png", "--plot-format", "svg"}).run.plot_format,
            PlotFormat::kSvg);
  EXPECT_NO_THROW(check_run_args({"--plot-format", "svg", "--plot-format", "png"}));
}

TEST(PlotFormatOption, AWrongValueIsAUsageError) {
  for (const char* cmd : {"run", "plot", "compare", "campaign", "sweep"}) {
    std::vector<std::string> args = {cmd};
    if (std::string(cmd) == "plot" || std::string(cmd) == "compare") args.push_back("r");
    if (std::string(cmd) == "campaign") args.push_back("c.toml");
    args.insert(args.end(), {"--plot-format", "pdf"});
    EXPECT_EQ(usage_error(args), "--plot-format 'pdf': give png or svg") << cmd;
  }
  EXPECT_EQ(usage_error({"run", "--plot-format", "SVG"}), "--plot-format 'SVG': give png or svg");
  EXPECT_NE(usage_error({"run", "--plot-format"}), "");  // no value
  // Commands that draw nothing do not take it.
  EXPECT_NE(usage_error({"summary", "r", "--plot-format", "svg"}), "");
  EXPECT_NE(usage_error({"doctor", "--plot-format", "svg"}), "");
}

}  // namespace
}  // namespace xrunlab
