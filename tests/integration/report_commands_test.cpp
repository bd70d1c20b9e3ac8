// SPDX-License-Identifier: GPL-2.0-or-later
// Integration test of the commands that read finished runs: two short real runs under two
// labels, then `xrunlab summary`, `compare`, `import` and `plot`. The PNGs must exist and be
// valid PNGs of a sensible size, and the numbers in the text outputs must equal run.json's.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "tests/support/files.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using nlohmann::json;

// Width and height from a PNG's IHDR chunk, or {0, 0} if it is not a PNG.
std::pair<uint32_t, uint32_t> png_size(const std::string& path) {
  const std::string b = read_text_or_empty(path);
  if (b.size() < 24 || b.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || b.compare(12, 4, "IHDR") != 0) {
    return {0, 0};
  }
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
           (uint32_t(uint8_t(b[at + 2])) << 8) | uint32_t(uint8_t(b[at + 3]));
  };
  return {be32(16), be32(20)};
}

void expect_sensible_png(const std::string& path) {
  const auto [w, h] = png_size(path);
  EXPECT_GE(w, 800u) << path;
  EXPECT_GE(h, 500u) << path;
  EXPECT_LE(w, 4000u) << path;
}

TEST(ReportCommands, SummaryCompareImportAndPlotOverRealRuns) {
  const TempDir root_dir("report");
  const std::string root = root_dir.str();
  std::vector<json> runs;
  for (const char* label : {"alpha", "beta"}) {
    XrunlabRun r;
    ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                          "1.5", "--label", label, "--output", root},
                         &r),
              0)
        << r.log();
    runs.push_back(r.run_json());
    expect_sensible_png(r.run_dir() + "/plots/timeline.png");
    expect_sensible_png(r.run_dir() + "/plots/latency.png");
    // `xrunlab plot` draws them again.
    std::filesystem::remove(r.run_dir() + "/plots/timeline.png");
    const auto [rc, out] = run_command({"plot", r.run_dir()}, root);
    EXPECT_EQ(rc, 0) << out;
    expect_sensible_png(r.run_dir() + "/plots/timeline.png");
  }

  // summary: SUMMARY in jack_test's .SUMMARY layout with run.json's numbers.
  const auto [src, sout] = run_command({"summary", root}, root);
  ASSERT_EQ(src, 0) << sout;
  const std::string summary = read_text_or_empty(root + "/SUMMARY");
  for (const json& j : runs) {
    const std::string label = j["spec"]["label"];
    const auto block = summary.find("# " + label + "\nDelay Maximum");
    ASSERT_NE(block, std::string::npos) << summary;
    const std::string line =
        summary.substr(block + label.size() + 3,
                       summary.find('\n', block + label.size() + 3) - block - label.size() - 3);
    // jack_test's Delay Maximum (JACK1's rules on jackd's wake-ups), rounded to whole usecs.
    EXPECT_EQ(line, "Delay Maximum . . . . . . . . : " +
                        std::to_string(std::llround(j["jack_test"]["delay_max_us"].get<double>())) +
                        " usecs");
    EXPECT_NE(summary.find("XRUN Count . . . . . . . . . : " +
                           std::to_string(j["totals"]["xrun_count"].get<int>())),
              std::string::npos);
  }
  // --format json carries the same numbers.
  const auto [jrc, jout] = run_command({"summary", root, "--format", "json"}, root);
  ASSERT_EQ(jrc, 0);
  const json sj = json::parse(jout.substr(0, jout.rfind('}') + 1));
  EXPECT_NE(sj.dump().find("jack1-rules"), std::string::npos) << "each run's definitions";

  // import: the fixtures become records that summary and compare show, marked as imported.
  const std::string fixture =
      testing_support::fixture_path("jack_test/sched-fifo-2.6.11-rc1-mm2-jack_test4.1.txt");
  const auto [irc, iout] = run_command({"import", fixture, "--write", root + "/imported"}, root);
  ASSERT_EQ(irc, 0) << iout;
  const auto [bad_rc, bad_out] = run_command({"import", root + "/cmd.out"}, root);
  EXPECT_EQ(bad_rc, 2) << bad_out;
  EXPECT_NE(bad_out.find("not a jack_test summary"), std::string::npos) << bad_out;
  // A field that is not a number is bad input too, naming the file, line and field.
  testing_support::write_text(root + "/abc.txt", "Old mail\nXRUN Count . . . . . . . . . : abc\n");
  const auto [abc_rc, abc_out] = run_command({"import", root + "/abc.txt"}, root);
  EXPECT_EQ(abc_rc, 2) << abc_out;
  EXPECT_NE(abc_out.find("import: " + root + "/abc.txt:2: \"XRUN Count\" is \"abc\", not a number"),
            std::string::npos)
      << abc_out;

  // compare: jack_test's side-by-side columns and compare.png.
  const auto [crc, cout] = run_command({"compare", root, "--write", root + "/compare.png"}, root);
  ASSERT_EQ(crc, 0) << cout;
  EXPECT_NE(cout.find("alpha"), std::string::npos);
  EXPECT_NE(cout.find("beta"), std::string::npos);
  EXPECT_NE(cout.find("(imported)"), std::string::npos);
  EXPECT_NE(cout.find("10968"), std::string::npos) << "the imported Cycle Maximum";
  for (const json& j : runs) {
    EXPECT_NE(cout.find(std::to_string(std::llround(j["jack_test"]["delay_max_us"].get<double>()))),
              std::string::npos);
  }
  expect_sensible_png(root + "/compare.png");
}

}  // namespace
}  // namespace xrunlab

namespace xrunlab {
namespace {

// Without gnuplot a run still completes and writes all its data; the plots say which package
// to install.
TEST(ReportCommands, WithoutGnuplotTheRunCompletesAndSaysWhatToInstall) {
  const testing_support::TempDir empty_dir("empty-path");
  const std::string empty_path = empty_dir.str();
  testing_support::XrunlabRun r =
      testing_support::start({"run", "--jackd", "/usr/bin/jackd", "--clients", "1", "--ports", "1",
                              "--period", "256", "--duration", "1"},
                             {{"PATH", empty_path}});
  testing_support::finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const nlohmann::json j = r.run_json();
  EXPECT_EQ(j["status"], "completed");
  bool said = false;
  for (const auto& w : j["warnings"]) {
    said = said || w.get<std::string>().find("gnuplot-nox") != std::string::npos;
  }
  EXPECT_TRUE(said) << j["warnings"];
  for (const char* f : {"summary.txt", "timeseries.csv", "histogram.csv", "jackd.log"}) {
    EXPECT_TRUE(std::filesystem::exists(r.run_dir() + "/" + f)) << f;
  }
  EXPECT_FALSE(std::filesystem::exists(r.run_dir() + "/plots/timeline.png"));
  testing_support::expect_nothing_left(r);
}

}  // namespace
}  // namespace xrunlab
