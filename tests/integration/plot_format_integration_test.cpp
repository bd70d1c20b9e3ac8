// SPDX-License-Identifier: GPL-2.0-or-later
// --plot-format svg on real runs: `xrunlab run` and `xrunlab plot` write SVG documents named
// .svg, `compare` and `campaign` their plots as SVG, a campaign's runs theirs too; a wrong value
// is a one-line usage error.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/files.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using nlohmann::json;
namespace fs = std::filesystem;

// An SVG document as gnuplot's svg terminal writes it: "<?xml" (or "<svg") first, the <svg>
// element closed, of a plot's size.
void expect_svg(const std::string& path) {
  const std::string b = read_text_or_empty(path);
  EXPECT_TRUE(b.rfind("<?xml", 0) == 0 || b.rfind("<svg", 0) == 0)
      << path << ": " << b.substr(0, 80);
  EXPECT_NE(b.find("<svg"), std::string::npos) << path;
  EXPECT_NE(b.find("</svg>"), std::string::npos) << path;
  EXPECT_GT(b.size(), 2000u) << path;
}

const char* const kPlots[] = {"plots/timeline", "plots/latency", "plots/cycles"};

TEST(PlotFormat, RunAndPlotWriteSvg) {
  const TempDir root_dir("plot-format");
  const std::string root = root_dir.str();

  // A run asked for SVG: its plots are SVG, and only SVG; its spec says so.
  XrunlabRun svg;
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "1.5", "--label", "svg", "--output", root, "--plot-format", "svg"},
                       &svg),
            0)
      << svg.log();
  for (const char* p : kPlots) {
    expect_svg(svg.run_dir() + "/" + p + ".svg");
    EXPECT_FALSE(fs::exists(svg.run_dir() + "/" + p + ".png")) << p;
  }
  EXPECT_EQ(svg.run_json()["spec"]["plot_format"], "svg");
  expect_nothing_left(svg);

  // A PNG run (the default) drawn again as SVG by `xrunlab plot`: the SVGs named on stdout, the
  // PNGs left as they were.
  XrunlabRun png;
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "1.5", "--label", "png", "--output", root},
                       &png),
            0)
      << png.log();
  EXPECT_EQ(png.run_json()["spec"]["plot_format"], "png");
  for (const char* p : kPlots) ASSERT_TRUE(fs::exists(png.run_dir() + "/" + p + ".png")) << p;
  const auto [rc, out] = run_command({"plot", png.run_dir(), "--plot-format", "svg"}, root);
  EXPECT_EQ(rc, 0) << out;
  for (const char* p : kPlots) {
    const std::string file = png.run_dir() + "/" + p + ".svg";
    EXPECT_NE(out.find(file + "\n"), std::string::npos) << out;
    expect_svg(file);
    EXPECT_TRUE(fs::exists(png.run_dir() + "/" + p + ".png")) << p;
  }

  // compare: the plot as SVG.
  const auto [crc, cout] = run_command(
      {"compare", root, "--plot-format", "svg", "--write", root + "/compare.svg"}, root);
  EXPECT_EQ(crc, 0) << cout;
  expect_svg(root + "/compare.svg");

  // A wrong value: exit code 2, one line naming the flag and the accepted values.
  const auto [brc, bout] = run_command({"plot", png.run_dir(), "--plot-format", "bmp"}, root);
  EXPECT_EQ(brc, 2) << bout;
  EXPECT_EQ(bout, "xrunlab: error: --plot-format 'bmp': give png or svg\n");
}

// A campaign with --plot-format svg: campaign.svg, and its runs' plots as SVG although the file
// asks for PNG (the campaign's flag comes after the run's own arguments).
TEST(PlotFormat, CampaignDrawsSvgAndSoDoItsRuns) {
  const TempDir dir("plot-format-campaign");
  const std::string file = dir.write("c.toml", R"(name = "svg"
repetitions = 2
seed = 1
[run]
clients = 1
ports = 1
period = 256
duration = 1
plot-format = "png"
)");
  const std::string cdir = dir.file("c");
  const auto [rc, out] =
      run_command({"campaign", file, "--dir", cdir, "--plot-format", "svg", "-q"}, dir.str());
  ASSERT_EQ(rc, 0) << out;
  expect_svg(cdir + "/campaign.svg");
  EXPECT_FALSE(fs::exists(cdir + "/campaign.png"));
  size_t runs = 0;
  for (const auto& e : fs::recursive_directory_iterator(cdir + "/runs")) {
    if (e.path().filename() != "run.json") continue;
    ++runs;
    const std::string run_dir = e.path().parent_path().string();
    for (const char* p : kPlots) expect_svg(run_dir + "/" + p + ".svg");
  }
  EXPECT_EQ(runs, 2u);
}

}  // namespace
}  // namespace xrunlab
