// SPDX-License-Identifier: GPL-2.0-or-later
// --plot-format: the word parsed into a type, the files' names, the gnuplot command (its terminal
// chosen with -e), and SVG plots drawn by the real scripts.
#include "engine/report/plot_format.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "engine/report/plot_data.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/sample_result.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef XRUNLAB_SOURCE_SCRIPTS_DIR
#error "XRUNLAB_SOURCE_SCRIPTS_DIR is set by CMake"
#endif

namespace xrunlab {
namespace {

namespace fs = std::filesystem;
using testing_support::ScopedEnv;
using testing_support::TempDir;

TEST(PlotFormat, TheTwoWordsAndNothingElse) {
  EXPECT_EQ(parse_plot_format("png"), PlotFormat::kPng);
  EXPECT_EQ(parse_plot_format("svg"), PlotFormat::kSvg);
  for (const char* bad : {"", "PNG", "Svg", "pdf", "svg ", " png", "pngcairo", "svgz"}) {
    EXPECT_FALSE(parse_plot_format(bad).has_value()) << "'" << bad << "'";
  }
  EXPECT_STREQ(plot_format_name(PlotFormat::kPng), "png");
  EXPECT_STREQ(plot_format_name(PlotFormat::kSvg), "svg");
}

TEST(PlotFormat, AWrongValueIsAUsageErrorNamingTheFlagAndTheWords) {
  EXPECT_EQ(plot_format_flag("svg"), PlotFormat::kSvg);
  try {
    plot_format_flag("pdf");
    FAIL() << "pdf was taken";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_STREQ(e.what(), "--plot-format 'pdf': give png or svg");
  }
}

TEST(PlotFormat, FileNamesEndInTheFormat) {
  EXPECT_EQ(plot_file("plots/timeline", PlotFormat::kPng), "plots/timeline.png");
  EXPECT_EQ(plot_file("/r/sweep", PlotFormat::kSvg), "/r/sweep.svg");
  EXPECT_EQ(plot_files(PlotFormat::kPng),
            (std::vector<std::string>{kPlotFiles[0], kPlotFiles[1], kPlotFiles[2]}));
  EXPECT_EQ(
      plot_files(PlotFormat::kSvg),
      (std::vector<std::string>{"plots/timeline.svg", "plots/latency.svg", "plots/cycles.svg"}));
}

// The terminal is chosen with -e before the script (a fixed word, never user text); every value
// after the script is its own argument, as given.
TEST(PlotFormat, GnuplotArgvSetsTheTerminalBeforeTheScript) {
  const std::vector<std::string> args = {"/d/data.csv", "/d/out.svg", "a \"title\"; ! rm -rf ~"};
  EXPECT_EQ(gnuplot_argv("gnuplot", "/s/sweep.gp", PlotFormat::kSvg, args),
            (std::vector<std::string>{"gnuplot", "-d", "-e", "xrunlab_terminal = \"svg\"", "-c",
                                      "/s/sweep.gp", "/d/data.csv", "/d/out.svg",
                                      "a \"title\"; ! rm -rf ~"}));
  EXPECT_EQ(gnuplot_argv("/usr/bin/gnuplot", "x.gp", PlotFormat::kPng, {}),
            (std::vector<std::string>{"/usr/bin/gnuplot", "-d", "-e", "xrunlab_terminal = \"png\"",
                                      "-c", "x.gp"}));
}

// Every script reads xrunlab_terminal and has both terminals; run by hand it draws PNG.
TEST(PlotFormat, EveryScriptChoosesItsTerminalFromXrunlabTerminal) {
  for (const char* name :
       {"timeline", "latency", "cycles", "compare", "campaign", "sweep", "headroom"}) {
    const fs::path gp = fs::path(XRUNLAB_SOURCE_SCRIPTS_DIR) / (std::string(name) + ".gp");
    const std::string text = testing_support::read_text(gp.string());
    EXPECT_NE(text.find("if (!exists(\"xrunlab_terminal\")) { xrunlab_terminal = \"png\" }"),
              std::string::npos)
        << gp;
    EXPECT_NE(text.find("if (xrunlab_terminal eq \"svg\") {\n  set terminal svg "),
              std::string::npos)
        << gp;
    EXPECT_NE(text.find("} else {\n  set terminal pngcairo "), std::string::npos) << gp;
  }
}

TEST(PlotFormat, TheScriptsAreToldTheOutputNamesOfTheFormat) {
  const RunResult r = testing_support::sample_result();
  for (const PlotFormat f : {PlotFormat::kPng, PlotFormat::kSvg}) {
    const PlotInputs in = plot_inputs(r, "/tmp/d", f);
    ASSERT_EQ(in.scripts.size(), 3u);
    for (size_t i = 0; i < in.scripts.size(); ++i) {
      // OUTPUT is the 3rd argument of timeline.gp, the 2nd of latency.gp and cycles.gp.
      const std::string& output = in.args[i][in.scripts[i] == "timeline" ? 2 : 1];
      EXPECT_EQ(output, "/tmp/d/" + plot_file(in.scripts[i], f));
    }
  }
  EXPECT_EQ(plot_inputs(r, "/tmp/d").args[1][1], "/tmp/d/latency.png");  // PNG by default
}

TEST(PlotFormat, ContentChecks) {
  EXPECT_TRUE(is_plot_file(std::string("\x89PNG\r\n\x1a\n....", 12), PlotFormat::kPng));
  EXPECT_FALSE(is_plot_file("<svg></svg>", PlotFormat::kPng));
  EXPECT_TRUE(is_plot_file("<?xml version=\"1.0\"?>\n<svg>\n</svg>\n", PlotFormat::kSvg));
  EXPECT_TRUE(is_plot_file("<svg width=\"1\"></svg>", PlotFormat::kSvg));
  EXPECT_FALSE(is_plot_file("<?xml version=\"1.0\"?>\n<svg>", PlotFormat::kSvg));  // cut short
  EXPECT_FALSE(is_plot_file("", PlotFormat::kSvg));
  EXPECT_FALSE(is_plot_file(std::string("\x89PNG\r\n\x1a\n....", 12), PlotFormat::kSvg));
}

// The run's own choice, as its spec recorded it; PNG for a spec without one.
TEST(PlotFormat, ARunsFormatIsItsSpecs) {
  RunResult r;
  EXPECT_EQ(run_plot_format(r), PlotFormat::kPng);
  r.spec.emplace().plots = true;
  EXPECT_EQ(run_plot_format(r), PlotFormat::kPng);
  r.spec->plot_format = "svg";
  EXPECT_EQ(run_plot_format(r), PlotFormat::kSvg);
  r.spec->plot_format = "png";
  EXPECT_EQ(run_plot_format(r), PlotFormat::kPng);
}

// The real scripts with gnuplot's svg terminal: three SVG documents named .svg.
TEST(PlotFormat, DrawPlotsDrawsSvg) {
  if (!find_program("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  TempDir tmp("plot-format");
  const ScopedEnv env("TMPDIR", tmp.path().c_str());
  PlotOptions o;
  o.format = PlotFormat::kSvg;
  const PlotResult p = draw_plots(testing_support::sample_result(), XRUNLAB_SOURCE_SCRIPTS_DIR, o);
  EXPECT_EQ(p.error, "");
  ASSERT_EQ(p.files.size(), 3u);
  EXPECT_EQ(p.files[0].name, "plots/timeline.svg");
  EXPECT_EQ(p.files[1].name, "plots/latency.svg");
  EXPECT_EQ(p.files[2].name, "plots/cycles.svg");
  for (const RunFile& f : p.files) {
    EXPECT_EQ(f.bytes.rfind("<?xml", 0), 0u) << f.name;
    EXPECT_NE(f.bytes.find("<svg"), std::string::npos) << f.name;
    EXPECT_NE(f.bytes.find("</svg>"), std::string::npos) << f.name;
  }
  EXPECT_TRUE(fs::is_empty(tmp.path())) << "gnuplot's temporary folder is left";
}

// write_run_folder draws the format the run's spec asked for.
TEST(PlotFormat, WriteRunFolderDrawsTheRunsFormat) {
  if (!find_program("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  TempDir tmp("plot-format-run");
  RunResult r = testing_support::sample_result();
  r.spec.emplace().plot_format = "svg";
  const std::string dir = tmp.file("run");
  write_run_folder(r, dir, /*plots=*/true, XRUNLAB_SOURCE_SCRIPTS_DIR);
  for (const std::string& name : plot_files(PlotFormat::kSvg)) {
    EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / name)) << name;
  }
  for (const char* png : kPlotFiles) EXPECT_FALSE(fs::exists(fs::path(dir) / png)) << png;
}

}  // namespace
}  // namespace xrunlab
