// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What the subcommands' parsers share (engine/app/cli/*_cli.cpp, one file per subcommand;
// parse_command_line in engine/app/cli.cpp dispatches to them). Each subcommand registers its
// options on the top-level CLI::App when it is made, bound to its own members, and turns them
// into its typed options in finish(), once CLI11 has parsed its words.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/app/cli.hpp"

namespace xrunlab {

class SubcommandCli {
 public:
  explicit SubcommandCli(CLI::App* app) : app_(app) {}
  virtual ~SubcommandCli() = default;
  SubcommandCli(const SubcommandCli&) = delete;
  SubcommandCli& operator=(const SubcommandCli&) = delete;

  bool parsed() const { return app_->parsed(); }

  // After CLI11 parsed this subcommand: sets cmd's kind and typed options, and checks what
  // CLI11 cannot (values that depend on each other, the specs' grammars). `words` are the
  // subcommand's own arguments as given (argv after the subcommand's name). Throws
  // Error(kUsage) with a one-line message naming the flag.
  virtual void finish(Command& cmd, const std::vector<std::string>& words) = 0;

 protected:
  CLI::App* app_;
};

// One per subcommand, in the order `xrunlab --help` lists them.
std::unique_ptr<SubcommandCli> add_run_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_plot_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_summary_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_compare_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_import_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_export_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_campaign_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_sweep_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_headroom_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_doctor_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_check_cli(CLI::App& top);
std::unique_ptr<SubcommandCli> add_history_cli(CLI::App& top);

// The check and conversion of an option whose words name the values of an enum: `values` are
// the ones the option accepts, in the order its help lists them; `name` and `parse` are the
// enum's word functions. The help shows {word,word,...}; a word that is not one of them is
// refused as "--flag: WORD not in {word,...}" (CLI::IsMember's wording), and an accepted word
// becomes its value's number, which CLI11 assigns to the option's enum variable. Given to
// Option::transform.
template <typename E, typename Parse>
CLI::Validator enum_words(std::vector<E> values, const char* (*name)(E), Parse parse) {
  std::string set = "{";
  for (const E v : values) set += (set.size() > 1 ? "," : "") + std::string(name(v));
  set += "}";
  return CLI::Validator(
      [values, parse, set](std::string& word) -> std::string {
        const auto v = parse(word);
        if (v && std::find(values.begin(), values.end(), *v) != values.end()) {
          word = std::to_string(static_cast<std::underlying_type_t<E>>(*v));
          return "";
        }
        return word + " not in " + set;
      },
      set);
}

// --plot-format FORMAT, on each subcommand that draws plots: `what` names the files drawn. The
// text becomes a PlotFormat in finish() (plot_format_flag: the usage error naming the flag).
void add_plot_format_option(CLI::App* sub, std::string& text, const char* what);

// --fail-if COND's help (run and campaign); parse_thresholds turns the texts into thresholds,
// each checked when parsed (Error(kUsage) naming the condition).
std::string fail_if_help();
std::vector<Threshold> parse_thresholds(const std::vector<std::string>& texts);

// summary's and compare's --format and --write.
void add_report_format_option(CLI::App* sub, ReportFormat& format);

}  // namespace xrunlab
