// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/cli/subcommand.hpp"

#include <fmt/format.h>

#include "engine/report/run_metrics.hpp"

namespace xrunlab {

void add_plot_format_option(CLI::App* sub, std::string& text, const char* what) {
  sub->add_option("--plot-format", text,
                  std::string("FORMAT of ") + what + ": " + kPlotFormatWords +
                      " (gnuplot's pngcairo or svg terminal).")
      ->capture_default_str()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->type_name("FORMAT");
}

std::string fail_if_help() {
  std::vector<std::string> names;
  for (const RunMetric& m : run_metrics()) names.push_back(m.name);
  return fmt::format(
      "Fail (exit code 10) when a figure crosses a threshold, NAME OP VALUE[us|ms|s]: e.g. "
      "xruns>0, slack_p1<500us, delay_max>=2ms; repeatable. NAME: {} (docs/commands.md: "
      "Thresholds). A figure the run does not have fails.",
      fmt::join(names, ", "));
}

std::vector<Threshold> parse_thresholds(const std::vector<std::string>& texts) {
  std::vector<Threshold> thresholds;
  thresholds.reserve(texts.size());
  for (const std::string& t : texts) thresholds.push_back(parse_threshold(t));
  return thresholds;
}

void add_report_format_option(CLI::App* sub, ReportFormat& format) {
  sub->add_option("--format", format, "text, json or csv.")
      ->transform(enum_words({ReportFormat::kText, ReportFormat::kJson, ReportFormat::kCsv},
                             report_format_name, parse_report_format))
      ->default_str(report_format_name(ReportFormat::kText))
      ->type_name("TEXT");
}

}  // namespace xrunlab
