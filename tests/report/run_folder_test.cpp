// SPDX-License-Identifier: GPL-2.0-or-later
// The run folder: exporters to bytes, the one writer, the loader, and `xrunlab plot`'s redraw.
#include "engine/report/run_folder.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>

#include "engine/base/errors.hpp"
#include "engine/report/report_csv.hpp"
#include "engine/report/report_html.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/seconds_file.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/folder_watch.hpp"
#include "tests/support/sample_result.hpp"
#include "tests/support/scoped_env.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef XRUNLAB_SOURCE_SCRIPTS_DIR
#error "XRUNLAB_SOURCE_SCRIPTS_DIR is set by CMake"
#endif

namespace xrunlab {
namespace {

namespace fs = std::filesystem;
using testing_support::FolderWatch;
using testing_support::read_text;
using testing_support::ScopedEnv;
using testing_support::TempDir;

bool have_gnuplot() {
  return find_program("gnuplot").has_value();
}

// The sample with what a run has besides: a label, a backend, negative DLL delays (histogram.csv
// keeps only their number) and values above the histogram bound.
RunResult run_result() {
  RunResult r = testing_support::sample_result();
  r.schema_version = 1;
  r.spec.emplace().label = "fifo";
  r.backend.name = "dummy";
  r.client_results[0].delay_dll.add(-12, 3);
  r.client_results[1].delay.add(25000, 2);
  finalize(r);
  return r;
}

std::map<std::string, std::string> by_name(const std::vector<RunFile>& files) {
  std::map<std::string, std::string> out;
  for (const RunFile& f : files) out[f.name] = f.bytes;
  return out;
}

TEST(RenderRunFiles, EachFormatsExporterInOrder) {
  const RunResult r = run_result();
  const std::vector<RunFile> files = render_run_files(r);
  ASSERT_EQ(files.size(), 5u);
  EXPECT_EQ(files[0].name, "run.json");
  EXPECT_EQ(files[0].bytes, to_json(r).dump(2) + "\n");
  EXPECT_EQ(files[1].name, "timeseries.csv");
  EXPECT_EQ(files[1].bytes, format_timeseries_csv(r));
  EXPECT_EQ(files[2].name, "histogram.csv");
  EXPECT_EQ(files[2].bytes, format_histogram_csv(r));
  EXPECT_EQ(files[3].name, "summary.txt");
  EXPECT_EQ(files[3].bytes, format_summary(r));
  // A model holding its rows (made here, or read from a schema 1 run.json) writes seconds.jsonl;
  // a run's own model (which appended it) leaves it alone.
  EXPECT_EQ(files[4].name, "seconds.jsonl");
  EXPECT_EQ(files[4].bytes, format_seconds_file(r));
  RunResult appended = r;
  appended.seconds_appended = true;
  EXPECT_EQ(render_run_files(appended).size(), 4u);
  std::vector<std::string> checkpoint;
  for (const RunFile& f : render_checkpoint_files(r)) checkpoint.push_back(f.name);
  EXPECT_EQ(checkpoint, (std::vector<std::string>{"run.json", "histogram.csv", "summary.txt"}));
}

TEST(WriteRunFiles, WritesEachFileWithItsFolders) {
  TempDir tmp;
  const std::string dir = tmp.file("label/20261130T100000Z");
  write_run_files(dir, {{"a.txt", "one"}, {"plots/b.png", "two"}, {"a.txt", "three"}});
  EXPECT_EQ(read_text(dir + "/a.txt"), "three");
  EXPECT_EQ(read_text(dir + "/plots/b.png"), "two");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::recursive_directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 3u) << "no temporary file is left";
}

// run.json is renamed into place after every other file, whatever the order given: a run.json
// says the files beside it are at least as new (a full disk stops the writer before it).
TEST(WriteRunFiles, RunJsonIsRenamedIntoPlaceLast) {
  TempDir tmp;
  const std::string dir = tmp.file("run");
  fs::create_directories(dir);
  FolderWatch renames(dir, IN_MOVED_TO);
  write_run_files(dir, render_run_files(run_result()));
  EXPECT_EQ(renames.names(),
            (std::vector<std::string>{"timeseries.csv", "histogram.csv", "summary.txt",
                                      "seconds.jsonl", "run.json"}));
}

TEST(WriteRunFiles, RefusesNamesOutsideTheFolderAndUnwritableFolders) {
  TempDir tmp;
  for (const char* name : {"../escape.txt", "/etc/escape.txt", "plots/../../escape.txt", ""}) {
    try {
      write_run_files(tmp.file("run"), {{name, "x"}});
      ADD_FAILURE() << name << " was written";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kOutput);
      EXPECT_NE(std::string(e.what()).find("not a file inside the run folder"), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(tmp.file("escape.txt")));
  // A file where the run folder should be.
  tmp.write("blocked", "I am a file");
  try {
    write_run_files(tmp.file("blocked/run"), {{"run.json", "{}"}});
    ADD_FAILURE() << "written below a file";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find(tmp.file("blocked/run")), std::string::npos) << e.what();
  }
}

// A plot that fails: its warning is in the files, and each file is renamed into place once.
TEST(WriteRunFolder, FailedPlotsAreInTheFilesWrittenOnce) {
  TempDir tmp;
  const std::string dir = tmp.file("run");
  fs::create_directories(dir);
  FolderWatch renames(dir, IN_MOVED_TO);
  RunResult r = run_result();
  const size_t warnings = r.warnings.size();
  write_run_folder(r, dir, /*plots=*/true, tmp.file("no-scripts-here"));
  const std::string warning =
      "plots: plot script timeline.gp not found (set XRUNLAB_SCRIPTS to the folder that holds "
      "it)";
  ASSERT_EQ(r.warnings.size(), warnings + 1);
  EXPECT_EQ(r.warnings.back(), warning);
  EXPECT_NE(read_text(dir + "/summary.txt").find("warning: " + warning + "\n"), std::string::npos);
  const auto j = nlohmann::json::parse(read_text(dir + "/run.json"));
  EXPECT_EQ(j["warnings"].back(), warning);
  // The report names each plot it has not, and carries the warning.
  const std::string html = read_text(dir + "/report.html");
  EXPECT_NE(html.find("plots/timeline.png: not drawn (see the warnings)"), std::string::npos);
  EXPECT_NE(html.find(html_escape(warning)), std::string::npos);
  EXPECT_EQ(html.find("<img "), std::string::npos);
  EXPECT_EQ(renames.counts(), (std::map<std::string, int>{{"run.json", 1},
                                                          {"timeseries.csv", 1},
                                                          {"histogram.csv", 1},
                                                          {"summary.txt", 1},
                                                          {"seconds.jsonl", 1},
                                                          {"report.html", 1}}));
  EXPECT_FALSE(fs::exists(dir + "/plots"));
}

TEST(WriteRunFolder, WithPlotsEveryFileOnce) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir tmp;
  const std::string dir = tmp.file("run");
  fs::create_directories(dir + "/plots");
  FolderWatch renames(dir, IN_MOVED_TO), plot_renames(dir + "/plots", IN_MOVED_TO);
  RunResult r = run_result();
  const std::vector<std::string> before = r.warnings;
  write_run_folder(r, dir, /*plots=*/true, XRUNLAB_SOURCE_SCRIPTS_DIR);
  EXPECT_EQ(r.warnings, before);
  EXPECT_EQ(renames.counts(), (std::map<std::string, int>{{"run.json", 1},
                                                          {"timeseries.csv", 1},
                                                          {"histogram.csv", 1},
                                                          {"summary.txt", 1},
                                                          {"seconds.jsonl", 1},
                                                          {"report.html", 1}}));
  EXPECT_EQ(
      plot_renames.counts(),
      (std::map<std::string, int>{{"timeline.png", 1}, {"latency.png", 1}, {"cycles.png", 1}}));
  for (const char* png : {"/plots/timeline.png", "/plots/latency.png", "/plots/cycles.png"}) {
    EXPECT_EQ(read_text(dir + png).substr(1, 3), "PNG") << png;
  }
  // report.html embeds the plots as written.
  EXPECT_EQ(read_text(dir + "/report.html"),
            format_report_html(r, read_report_plots(dir, PlotFormat::kPng)));
  EXPECT_NE(read_text(dir + "/report.html").find("src=\"data:image/png;base64,iVBORw0KGgo"),
            std::string::npos);
}

// A finished folder read back gives the same files again.
TEST(LoadRunFolder, RendersTheSameFilesAgain) {
  TempDir tmp;
  const std::vector<RunFile> files = render_run_files(run_result());
  write_run_files(tmp.str(), files);
  const RunResult back = load_run_folder(tmp.str());
  // Its rows came from seconds.jsonl, which rendering leaves alone; with them written again,
  // every file is what it was.
  EXPECT_TRUE(back.seconds_appended);
  EXPECT_EQ(render_run_files(back).size(), 4u);
  RunResult again = back;
  again.seconds_appended = false;
  EXPECT_EQ(by_name(render_run_files(again)), by_name(files));
  ASSERT_EQ(back.client_results.size(), 2u);
  EXPECT_EQ(back.client_results[0].delay_dll.underflow_count(), 3u);
  EXPECT_EQ(back.client_results[1].delay.max(), 25000);
}

TEST(LoadRunFolder, SaysWhichFileIsMissingOrBroken) {
  TempDir tmp;
  const std::string dir = tmp.str();
  auto error_of = [&]() -> std::string {
    try {
      load_run_folder(dir);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
      return e.what();
    }
    ADD_FAILURE() << "loaded";
    return "";
  };
  EXPECT_EQ(error_of(), "cannot read " + dir + "/run.json: No such file or directory");
  const std::map<std::string, std::string> files = by_name(render_run_files(run_result()));
  tmp.write("run.json", files.at("run.json"));
  EXPECT_EQ(error_of(), "cannot read " + dir + "/histogram.csv: No such file or directory");
  tmp.write("histogram.csv", files.at("histogram.csv") + "9,delay,5,1\n");
  EXPECT_EQ(error_of(), dir + "/histogram.csv: client 9 is not in run.json");
  tmp.write("histogram.csv", "client,metric,value_us,count\n1,delay,x,1\n");
  EXPECT_EQ(error_of(), dir + "/histogram.csv: line 2: the value is not an integer");
  tmp.write("histogram.csv", files.at("histogram.csv"));
  EXPECT_EQ(error_of(), "cannot read " + dir +
                            "/seconds.jsonl: No such file or directory (run.json counts 6 "
                            "client and 3 system rows in it)");
  const std::string rows = files.at("seconds.jsonl");
  const size_t third = rows.find('\n', rows.find('\n', rows.find('\n') + 1) + 1);
  tmp.write("seconds.jsonl",
            rows.substr(0, third + 1) + "{\"client\": 1}\n" + rows.substr(third + 1));
  EXPECT_EQ(error_of(), dir + "/seconds.jsonl:4: a client row without \"row\"");
  tmp.write("seconds.jsonl", "{\"client\": 1, \"row\": []}\n");
  EXPECT_EQ(error_of(), dir +
                            "/seconds.jsonl:1: no \"xrunlab_seconds\": not the header of an "
                            "xrunlab seconds.jsonl");
  tmp.write("seconds.jsonl",
            rows + "{\"client\": 9, \"row\": [0,1,null,null,null,null,null,0,0,0]}\n");
  EXPECT_EQ(error_of(), dir + "/seconds.jsonl: rows of client 9, which run.json does not have");
  tmp.write("run.json", "{\"schema_version\": 1, \"settings\": {\"rate_hz\": \"48k\"}}");
  EXPECT_EQ(error_of(), dir +
                            "/run.json: 'settings.rate_hz' is not a non-negative integer (it is "
                            "string)");
  tmp.write("run.json", "{\"schema_version\": ");
  EXPECT_EQ(error_of(), dir + "/run.json: not valid JSON");
}

// `xrunlab plot` draws what the run drew (one title, one exporter) and removes the plots of
// older versions.
TEST(ReplotRunFolder, DrawsWhatTheRunDrew) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir tmp;
  const std::string dir = tmp.file("run");
  RunResult r = run_result();
  write_run_folder(r, dir, /*plots=*/true, XRUNLAB_SOURCE_SCRIPTS_DIR);
  const std::string timeline = read_text(dir + "/plots/timeline.png");
  const std::string latency = read_text(dir + "/plots/latency.png");
  fs::remove(dir + "/plots/timeline.png");
  fs::remove(dir + "/plots/latency.png");
  tmp.write("run/plots/delay.png", "old");
  tmp.write("run/plots/cpu.png", "old");
  tmp.write("run/plots/histogram.png", "old");  // now latency.png
  fs::remove(dir + "/report.html");
  const PlotResult p = replot_run_folder(dir, XRUNLAB_SOURCE_SCRIPTS_DIR);
  EXPECT_EQ(p.error, "");
  ASSERT_EQ(p.files.size(), 3u);
  // report.html again, with the plots just drawn.
  const std::string html = read_text(dir + "/report.html");
  EXPECT_EQ(html.find("<p class=\"missing\">"), std::string::npos);
  size_t images = 0;
  for (size_t at = html.find("<img "); at != std::string::npos; at = html.find("<img ", at + 1)) {
    ++images;
  }
  EXPECT_EQ(images, 3u);
  EXPECT_TRUE(read_text(dir + "/plots/timeline.png") == timeline) << "timeline.png differs";
  EXPECT_TRUE(read_text(dir + "/plots/latency.png") == latency) << "latency.png differs";
  EXPECT_FALSE(fs::exists(dir + "/plots/delay.png"));
  EXPECT_FALSE(fs::exists(dir + "/plots/cpu.png"));
  EXPECT_FALSE(fs::exists(dir + "/plots/histogram.png"));
}

// A run folder named with quotes, '<' (gnuplot's "read from a command"), backquotes and $(...)
// is only a path: written, read back and re-plotted, nothing is run.
TEST(ReplotRunFolder, HostileFolderNameIsOnlyData) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir base;
  const std::string name = "<touch pwned; a 'b' \"c\" `touch pwned` $(touch pwned)";
  const fs::path cwd = fs::current_path();
  fs::current_path(base.path());  // the relative name starts with '<'
  RunResult r = run_result();
  write_run_folder(r, name, /*plots=*/true, XRUNLAB_SOURCE_SCRIPTS_DIR);
  fs::remove(name + "/plots/timeline.png");
  const PlotResult p = replot_run_folder(name, XRUNLAB_SOURCE_SCRIPTS_DIR);
  fs::current_path(cwd);
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(r.warnings, run_result().warnings);
  EXPECT_EQ(read_text((base.path() / name / "plots/timeline.png").string()).substr(1, 3), "PNG");
  EXPECT_FALSE(fs::exists(base.path() / "pwned"));
  EXPECT_FALSE(fs::exists(cwd / "pwned"));
}

// Plots that cannot be drawn leave the older ones alone (they are all there is).
TEST(ReplotRunFolder, KeepsOlderPlotsWhenItCannotDraw) {
  TempDir tmp;
  write_run_files(tmp.str(), render_run_files(run_result()));
  tmp.write("plots/delay.png", "old");
  ScopedEnv path("PATH", tmp.str().c_str());  // no gnuplot
  const PlotResult p = replot_run_folder(tmp.str(), XRUNLAB_SOURCE_SCRIPTS_DIR);
  EXPECT_NE(p.error.find("gnuplot-nox"), std::string::npos) << p.error;
  EXPECT_TRUE(p.files.empty());
  EXPECT_TRUE(fs::exists(tmp.file("plots/delay.png")));
}

}  // namespace
}  // namespace xrunlab
