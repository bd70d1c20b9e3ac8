// SPDX-License-Identifier: GPL-2.0-or-later
// --plot-format on the command line: each command that draws plots takes it, typed once; a wrong
// value is a one-line usage error naming the flag and the accepted values.
#include <gtest/gtest.h>

#include "engine/app/cli.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

Command parse(std::vector<std::string> args) {
  args.insert(args.begin(), "xrunlab");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int code = 0;
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), &code);
}

std::string usage_error(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  return "";
}

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
