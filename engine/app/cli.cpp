// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/cli.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "engine/app/cli/subcommand.hpp"
#include "engine/base/errors.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {

namespace {

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
        {"export", "Write runs as KCIDB, SQUAD or OpenMetrics files for test farms."},
        {"campaign", "Run a campaign file (cases x repetitions, interleaved) into one folder."},
        {"sweep", "Find the smallest period that runs without dropouts."},
        {"headroom", "How much DSP load each period carries before the first xrun."},
        {"doctor", "Check whether this system is set up for realtime audio."},
        {"check", "The doctor's checks and a short sweep, ending in one verdict."},
        {"history", "This machine's runs in SQLite: trends across kernels, regressions."}};
    const auto line = kLines.find(sub->get_name());
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             line != kLines.end() ? line->second : sub->get_description(),
                             get_column_width());
    return out.str();
  }
};

}  // namespace

const char* report_format_name(ReportFormat f) {
  switch (f) {
    case ReportFormat::kText:
      return "text";
    case ReportFormat::kJson:
      return "json";
    case ReportFormat::kCsv:
      return "csv";
  }
  return "text";
}

std::optional<ReportFormat> parse_report_format(std::string_view word) {
  for (const ReportFormat f : {ReportFormat::kText, ReportFormat::kJson, ReportFormat::kCsv}) {
    if (word == report_format_name(f)) return f;
  }
  return std::nullopt;
}

Command parse_command_line(int argc, char** argv, int* exit_code) {
  Command cmd;
  CLI::App app{
      "xrunlab: realtime audio tester. Launches a private JACK2 server and N synthetic "
      "DSP clients, measures every process cycle of every client, and writes a "
      "jack_test-style summary, run.json, CSV files and plots."};
  app.set_version_flag("--version", std::string("xrunlab ") + kVersion);
  app.require_subcommand(1);
  app.formatter(std::make_shared<OneLineSubcommands>());  // before the subcommands: they copy it
  app.name("xrunlab");  // the usage line says xrunlab, not argv[0]'s path (man pages read it)
  // Each subcommand's options and --help examples are in engine/app/cli/<name>_cli.cpp.
  std::unique_ptr<SubcommandCli> subs[] = {
      add_run_cli(app),      add_plot_cli(app),   add_summary_cli(app),  add_compare_cli(app),
      add_import_cli(app),   add_export_cli(app), add_campaign_cli(app), add_sweep_cli(app),
      add_headroom_cli(app), add_doctor_cli(app), add_check_cli(app),    add_history_cli(app)};
  // Every --help ends with real examples; tests/app/cli_test.cpp parses every `  $ xrunlab ...`
  // line, so they stay commands that work. help2man makes them the man pages' EXAMPLES.
  app.footer(
      "'xrunlab SUBCOMMAND --help' shows a subcommand's options and examples.\n\n"
      "Examples:\n"
      "  $ xrunlab doctor                           # ready for audio?\n"
      "  $ xrunlab check --clients 8 --dsp-load 50  # which period?\n"
      "  $ xrunlab run --period 256 --duration 10 --label demo");
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
  // The top level takes no option but --help and --version, so the subcommand is argv[1].
  const std::vector<std::string> words(argv + 2, argv + argc);
  for (const std::unique_ptr<SubcommandCli>& sub : subs) {
    if (sub->parsed()) {
      sub->finish(cmd, words);
      break;
    }
  }
  return cmd;
}

RunOptions parse_run_args(const std::vector<std::string>& run_args) {
  std::vector<std::string> words = {"xrunlab", "run"};
  words.insert(words.end(), run_args.begin(), run_args.end());
  for (const std::string& w : run_args) {
    if (w == "--help" || w == "-h" || w == "--version") {
      throw Error(ExitCode::kUsage, "'" + w + "' is not an option a campaign can give");
    }
  }
  std::vector<char*> argv;
  argv.reserve(words.size());
  for (std::string& w : words) argv.push_back(w.data());
  int exit_code = 0;
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), &exit_code).run;
}

std::optional<RunOptions> sweep_run_options(const SweepSpec& spec) {
  if (spec.clients.empty() || spec.periods.empty()) return std::nullopt;
  try {
    return parse_run_args(sweep_step_args(spec, spec.clients.front(), spec.periods.front()));
  } catch (const Error&) {
    return std::nullopt;
  }
}

void check_run_args(const std::vector<std::string>& run_args) {
  parse_run_args(run_args);
}

}  // namespace xrunlab
