#include "engine/report/plots.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/report/report_csv.hpp"
#include "engine/result/result.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

#ifndef XRUNLAB_SOURCE_SCRIPTS_DIR
#error "XRUNLAB_SOURCE_SCRIPTS_DIR is set by CMake"
#endif

namespace xrunlab {
namespace {

using testing_support::read_text;
using testing_support::TempDir;

namespace fs = std::filesystem;

// A fresh folder under the test temp dir, removed with everything in it.

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

bool have_gnuplot() {
  return find_program("gnuplot").has_value();
}

// Three clients over eight seconds at 256 frames / 48 kHz; client 3 has a bad second 5.
RunResult small_result() {
  RunResult r;
  for (int index = 1; index <= 3; ++index) {
    ClientResult c;
    c.index = index;
    c.name = "xrunlab-c" + std::to_string(index);
    for (int64_t s = 0; s < 8; ++s) {
      telemetry::Second sec;
      sec.index = index;
      sec.second = s;
      sec.cycles = 188;
      sec.delay = {{5 + index, 150}, {12 + s, 30}, {40 + 10 * index + 3 * s, 8}};
      if (index == 3 && s == 5) sec.delay[7400] = 2;
      sec.delay_dll = sec.delay;
      sec.duration = {{60 + index, 188}};
      sec.cycle = {{200 + s, 188}};
      add_second(c, sec);
    }
    r.client_results.push_back(std::move(c));
  }
  for (int s = 0; s < 8; ++s) {
    SystemSecond sys;
    sys.t_s = s + 1.002;
    sys.user_pct = 20 + s;
    sys.system_pct = 5 + 0.5 * s;
    sys.intr_per_s = 1680;
    sys.ctxt_per_s = 14000;
    if (s != 3) sys.dsp_load_pct = 30 + s;
    sys.xruns = s == 5 ? 2 : 0;
    r.system.push_back(sys);
  }
  finalize(r);
  return r;
}

void write_csvs(const fs::path& dir, const RunResult& r) {
  write_file_atomic((dir / "timeseries.csv").string(), format_timeseries_csv(r));
  write_file_atomic((dir / "histogram.csv").string(), format_histogram_csv(r));
}

uint32_t big_endian32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

// A PNG file: the signature, then the IHDR chunk first with a sensible size.
void expect_png(const fs::path& png) {
  const std::string content = read_text(png.string());
  ASSERT_GT(content.size(), 1000u) << png;
  EXPECT_EQ(content.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
  EXPECT_EQ(big_endian32(content, 8), 13u) << png;  // IHDR data length
  EXPECT_EQ(content.substr(12, 4), "IHDR") << png;
  const uint32_t width = big_endian32(content, 16), height = big_endian32(content, 20);
  EXPECT_GE(width, 800u) << png;
  EXPECT_GE(height, 500u) << png;
  EXPECT_LE(width, 4000u) << png;
  EXPECT_LE(height, 4000u) << png;
}

constexpr const char* kPngs[] = {"timeline.png", "histogram.png"};

void expect_pngs(const fs::path& run_dir, const PlotResult& p) {
  EXPECT_EQ(p.error, "");
  ASSERT_EQ(p.written.size(), std::size(kPngs));
  for (const char* name : kPngs) {
    const fs::path png = run_dir / "plots" / name;
    EXPECT_NE(std::find(p.written.begin(), p.written.end(), png.string()), p.written.end()) << png;
    expect_png(png);
  }
  // Only the plots are left behind: no temporary folder.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(run_dir / "plots")) ++entries;
  EXPECT_EQ(entries, std::size(kPngs));
}

// The parts of run.json the plots read (engine/report/plot_data.hpp), as engine/result/run_json.cpp
// writes them.
std::string small_run_json() {
  return R"json({
  "schema_version": 1,
  "scheduling": {"label": "SCHED_FIFO 70 (server) / 65 (clients)"},
  "loads": [{"spec": "compile"}, {"spec": "hackbench:4"}],
  "settings": {"clients": 3, "period_us": 5333.333, "spare_time_us": 4000.0},
  "xruns": {"events": [{"t_s": 5.25, "frame": 252000, "callbacks": 3},
                       {"t_s": 5.75, "frame": 276000, "callbacks": 1}]}
})json";
}

TEST(WritePlots, WritesTimelineAndHistogram) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir dir;
  write_csvs(dir.path(), small_result());
  PlotOptions o;
  o.title = "fifo:70 dummy 48000 Hz 256 frames 3 clients";
  o.period_us = 5333.333;
  expect_pngs(dir.path(), write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR, o));
}

// Paths and titles are data, never gnuplot commands: quotes, '<' (gnuplot's "read from a
// command"), backquotes and system() in them change nothing.
TEST(WritePlots, HostilePathAndTitleAreOnlyData) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir base;
  const fs::path marker = base.path() / "pwned";
  const fs::path run_dir = base.path() / "<touch pwned; a 'b' \"c\" `touch pwned` $(touch pwned)";
  fs::create_directories(run_dir);
  write_csvs(run_dir, small_result());
  PlotOptions o;
  o.title = "-e x\" ; system(\"touch " + marker.string() + "\") ; print \"`touch " +
            marker.string() + "` @ARG1 _{x}^2";
  o.period_us = 5333.333;
  // A relative run folder starting with '<', run from its parent folder.
  const fs::path cwd = fs::current_path();
  fs::current_path(base.path());
  const PlotResult p = write_plots(run_dir.filename().string(), XRUNLAB_SOURCE_SCRIPTS_DIR, o);
  fs::current_path(cwd);
  EXPECT_EQ(p.error, "");
  ASSERT_EQ(p.written.size(), std::size(kPngs));
  for (const std::string& w : p.written) {
    EXPECT_EQ(w.rfind(run_dir.filename().string(), 0), 0u) << w;
    EXPECT_EQ(read_text((run_dir / fs::path(w).lexically_relative(run_dir.filename())).string())
                  .substr(1, 3),
              "PNG");
  }
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(base.path() / "pwned"));
  EXPECT_FALSE(fs::exists(cwd / "pwned"));
}

// With run.json: policy and loads in the title, xrun markers, the spare time from settings.
TEST(WritePlots, ReadsContextFromRunJson) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir dir;
  write_csvs(dir.path(), small_result());
  write_file_atomic((dir.path() / "run.json").string(), small_run_json());
  expect_pngs(dir.path(), write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR));
}

// Regenerating the plots of a run folder from an older version removes its stale plots.
TEST(WritePlots, ReplacesPlotsOfOlderVersions) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir dir;
  write_csvs(dir.path(), small_result());
  fs::create_directories(dir.path() / "plots");
  write_file_atomic((dir.path() / "plots" / "delay.png").string(), "old");
  write_file_atomic((dir.path() / "plots" / "cpu.png").string(), "old");
  expect_pngs(dir.path(), write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR));
  EXPECT_FALSE(fs::exists(dir.path() / "plots" / "delay.png"));
}

// A damaged run.json costs the markers and the title line, not the plots.
TEST(WritePlots, DamagedRunJsonStillPlots) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir dir;
  write_csvs(dir.path(), small_result());
  write_file_atomic((dir.path() / "run.json").string(), "{\"xruns\": {\"events\": [");
  expect_pngs(dir.path(), write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR));
}

TEST(WritePlots, RunWithoutDataGivesNoDataPlots) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir dir;
  write_csvs(dir.path(), RunResult{});
  expect_pngs(dir.path(), write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR));
}

TEST(WritePlots, ManyClientsAndNoPeriod) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir dir;
  RunResult r = small_result();
  for (int i = 4; i <= 20; ++i) {
    ClientResult c = r.client_results[0];
    c.index = i;
    r.client_results.push_back(c);
  }
  r.system.clear();  // no system samples: the timeline has no load lines
  write_csvs(dir.path(), r);
  expect_pngs(dir.path(), write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR));
}

TEST(WritePlots, MissingGnuplotIsAnErrorNotAnException) {
  TempDir dir;
  write_csvs(dir.path(), small_result());
  PlotOptions o;
  o.gnuplot = "xrunlab-no-such-gnuplot";
  PlotResult p;
  EXPECT_NO_THROW(p = write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR, o));
  EXPECT_NE(p.error.find("xrunlab-no-such-gnuplot"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("install gnuplot-nox"), std::string::npos) << p.error;
  EXPECT_TRUE(p.written.empty());
  EXPECT_FALSE(fs::exists(dir.path() / "plots"));
}

// The default program name, with a PATH that has no gnuplot: the message names the package.
TEST(WritePlots, NoGnuplotInPathNamesThePackage) {
  TempDir dir;
  write_csvs(dir.path(), small_result());
  ScopedEnv path("PATH", dir.path().c_str());
  PlotResult p;
  EXPECT_NO_THROW(p = write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR));
  EXPECT_EQ(p.error,
            "gnuplot not found: install gnuplot-nox (apt-get install --no-install-recommends "
            "gnuplot-nox)");
  EXPECT_TRUE(p.written.empty());
}

TEST(WritePlots, GnuplotFailureIsReported) {
  TempDir dir;
  write_csvs(dir.path(), small_result());
  PlotOptions o;
  o.gnuplot = "false";  // exits 1 without drawing anything
  const PlotResult p = write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR, o);
  EXPECT_NE(p.error.find("exited with status 1"), std::string::npos) << p.error;
  EXPECT_TRUE(p.written.empty());
}

TEST(WritePlots, MissingInputsAreErrors) {
  TempDir dir;
  PlotResult p = write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR);
  EXPECT_NE(p.error.find("timeseries.csv"), std::string::npos) << p.error;
  write_file_atomic((dir.path() / "timeseries.csv").string(), "second,client\n");
  write_file_atomic((dir.path() / "histogram.csv").string(), "client,metric,value_us,count\n");
  p = write_plots(dir.path().string(), XRUNLAB_SOURCE_SCRIPTS_DIR);
  EXPECT_NE(p.error.find("no column 'delay_max_us'"), std::string::npos) << p.error;
  p = write_plots(dir.path().string(), (dir.path() / "no-scripts-here").string());
  EXPECT_NE(p.error.find("timeline.gp not found"), std::string::npos) << p.error;
  EXPECT_TRUE(p.written.empty());
}

TEST(FindScriptDir, SearchOrder) {
  TempDir dir("scripts");
  const fs::path env_dir = dir.path() / "env";
  const fs::path prefix = dir.path() / "prefix";
  const fs::path installed = prefix / "share" / "xrunlab" / "scripts";
  fs::create_directories(env_dir);
  fs::create_directories(installed);
  fs::create_directories(prefix / "bin");
  write_file_atomic((env_dir / "timeline.gp").string(), "# test\n");
  write_file_atomic((installed / "timeline.gp").string(), "# test\n");
  const std::string argv0 = (prefix / "bin" / "xrunlab").string();
  {
    ScopedEnv env("XRUNLAB_SCRIPTS", env_dir.c_str());
    EXPECT_EQ(find_script_dir(argv0), env_dir.string());
  }
  {
    ScopedEnv env("XRUNLAB_SCRIPTS", (dir.path() / "nothing-here").c_str());
    EXPECT_EQ(find_script_dir(argv0), installed.string());
  }
  {
    ScopedEnv env("XRUNLAB_SCRIPTS", nullptr);
    EXPECT_EQ(find_script_dir(argv0), installed.string());
    // No install next to the executable: the source tree's scripts/ folder.
    const std::string found = find_script_dir((dir.path() / "elsewhere" / "xrunlab").string());
    if (fs::exists(fs::path(XRUNLAB_SOURCE_SCRIPTS_DIR) / "timeline.gp")) {
      EXPECT_EQ(found, XRUNLAB_SOURCE_SCRIPTS_DIR);
    } else {
      EXPECT_EQ(found, "");
    }
  }
}

}  // namespace
}  // namespace xrunlab
