// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/plots.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/result/result.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/folder_watch.hpp"
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

// draw_plots' PNGs, in order, and nothing left in the temporary folder ($TMPDIR = tmp).
void expect_pngs(const PlotResult& p, const TempDir& tmp) {
  EXPECT_EQ(p.error, "");
  ASSERT_EQ(p.files.size(), 3u);
  EXPECT_EQ(p.files[0].name, "plots/timeline.png");
  EXPECT_EQ(p.files[1].name, "plots/latency.png");
  EXPECT_EQ(p.files[2].name, "plots/cycles.png");
  for (const RunFile& f : p.files) {
    const std::string png = tmp.write("check/" + fs::path(f.name).filename().string(), f.bytes);
    expect_png(png);
    fs::remove(png);
  }
  fs::remove(tmp.file("check"));
  EXPECT_TRUE(fs::is_empty(tmp.path())) << "gnuplot's temporary folder is left";
}

// A private $TMPDIR for one test: where draw_plots makes its temporary folder.
struct PlotTmp {
  TempDir dir{"plots"};
  ScopedEnv env{"TMPDIR", dir.path().c_str()};
};

TEST(DrawPlots, TimelineAndLatencyFromTheModel) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  PlotTmp tmp;
  RunResult r = small_result();
  r.spec.emplace().label = "fifo:70";
  r.scheduling = "SCHED_FIFO 70 (server) / 65 (clients)";
  r.loads = std::vector<LoadRecord>(2);
  (*r.loads)[0].spec = "compile";
  (*r.loads)[1].spec = "hackbench:4";
  r.spare_us = 4000;
  r.xruns.events = {{5.25, 252000, 3}, {5.75, 276000, 1}};
  AudioResult a;
  GlitchResult g;
  g.t_s = 5.3;
  a.glitches = {g};
  r.audio = a;
  expect_pngs(draw_plots(r, XRUNLAB_SOURCE_SCRIPTS_DIR), tmp.dir);
}

// A busy run: xruns and glitches per second in the panel above the timeline (the list cut), and
// the latency plot of the cycle table's hops with a log time axis.
TEST(DrawPlots, BusyRunAndCycleTable) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  PlotTmp tmp;
  RunResult r = small_result();
  r.period_us = 1333.3333333333333;
  r.xruns.monitor_events = 38037;
  for (size_t i = 0; i < kXrunEventsKept; ++i) {
    r.xruns.events.push_back({0.0006 * static_cast<double>(i), 0, 1});
  }
  for (SystemSecond& s : r.system) s.xruns = 4750;
  AudioResult a;
  a.totals.glitches = 12000;
  for (int i = 0; i < 300; ++i) {
    GlitchResult g;
    g.t_s = 0.02 * i;
    a.glitches.push_back(g);
  }
  r.audio = a;
  CycleTableResult& t = r.cycle_table;
  t.present = true;
  auto add_hop = [&](const char* kind, int client, std::initializer_list<int64_t> values) {
    HopSeries h;
    h.kind = kind;
    h.client = client;
    for (int64_t v : values) h.us.add(v, 100);
    t.hops.push_back(h);
  };
  add_hop("jackd_wakeup", 0, {5, 6, 9, 40});
  for (int c = 1; c <= 3; ++c) {
    add_hop("client_wakeup", c, {10, 12, 15, 80 * c});
    add_hop("dsp", c, {200, 201, 230});
  }
  add_hop("cycle", 0, {900, 1000, 1200, 30000});
  add_hop("slack", 0, {100, 300, 433});
  t.hops.back().us.add(-50, 7);
  expect_pngs(draw_plots(r, XRUNLAB_SOURCE_SCRIPTS_DIR), tmp.dir);
}

// Titles and the temporary folder's path are data, never gnuplot commands: quotes, '<'
// (gnuplot's "read from a command"), backquotes and system() in them change nothing.
TEST(DrawPlots, HostileTitleAndFolderAreOnlyData) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  TempDir base;
  const fs::path marker = base.path() / "pwned";
  const std::string hostile = "<touch pwned; a 'b' \"c\" `touch pwned` $(touch pwned)";
  fs::create_directories(base.path() / hostile);
  RunResult r = small_result();
  r.spec.emplace().label = "-e x\" ; system(\"touch " + marker.string() + "\") ; print \"`touch " +
                           marker.string() + "` @ARG1 _{x}^2";
  r.scheduling = "$(touch " + marker.string() + ")";
  // A relative $TMPDIR starting with '<', used from its parent folder.
  const fs::path cwd = fs::current_path();
  fs::current_path(base.path());
  FolderWatch created(base.path() / hostile, IN_CREATE);
  PlotResult p;
  {
    ScopedEnv env("TMPDIR", hostile.c_str());
    p = draw_plots(r, XRUNLAB_SOURCE_SCRIPTS_DIR);
  }
  fs::current_path(cwd);
  const std::vector<std::string> made = created.names();
  ASSERT_EQ(made.size(), 1u) << "gnuplot draws in one temporary folder under $TMPDIR";
  EXPECT_EQ(made[0].rfind("xrunlab-plots-", 0), 0u) << made[0];
  EXPECT_EQ(p.error, "");
  ASSERT_EQ(p.files.size(), 3u);
  for (const RunFile& f : p.files) EXPECT_EQ(f.bytes.substr(1, 3), "PNG") << f.name;
  EXPECT_TRUE(fs::is_empty(base.path() / hostile)) << "the temporary folder was used and removed";
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(cwd / "pwned"));
}

TEST(DrawPlots, RunWithoutDataGivesNoDataPlots) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  PlotTmp tmp;
  expect_pngs(draw_plots(RunResult{}, XRUNLAB_SOURCE_SCRIPTS_DIR), tmp.dir);
}

TEST(DrawPlots, ManyClientsAndNoPeriod) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  PlotTmp tmp;
  RunResult r = small_result();
  for (int i = 4; i <= 20; ++i) {
    ClientResult c = r.client_results[0];
    c.index = i;
    r.client_results.push_back(c);
  }
  r.system.clear();  // no system samples: the timeline has no load lines
  r.period_us = 0;
  expect_pngs(draw_plots(r, XRUNLAB_SOURCE_SCRIPTS_DIR), tmp.dir);
}

TEST(DrawPlots, MissingGnuplotIsAnErrorNotAnException) {
  PlotTmp tmp;
  PlotOptions o;
  o.gnuplot = "xrunlab-no-such-gnuplot";
  PlotResult p;
  EXPECT_NO_THROW(p = draw_plots(small_result(), XRUNLAB_SOURCE_SCRIPTS_DIR, o));
  EXPECT_NE(p.error.find("xrunlab-no-such-gnuplot"), std::string::npos) << p.error;
  EXPECT_NE(p.error.find("install gnuplot-nox"), std::string::npos) << p.error;
  EXPECT_TRUE(p.files.empty());
  EXPECT_TRUE(fs::is_empty(tmp.dir.path()));
}

// The default program name, with a PATH that has no gnuplot: the message names the package.
TEST(DrawPlots, NoGnuplotInPathNamesThePackage) {
  PlotTmp tmp;
  ScopedEnv path("PATH", tmp.dir.path().c_str());
  PlotResult p;
  EXPECT_NO_THROW(p = draw_plots(small_result(), XRUNLAB_SOURCE_SCRIPTS_DIR));
  EXPECT_EQ(p.error,
            "gnuplot not found: install gnuplot-nox (apt-get install --no-install-recommends "
            "gnuplot-nox)");
  EXPECT_TRUE(p.files.empty());
}

TEST(DrawPlots, GnuplotFailureIsReported) {
  PlotTmp tmp;
  PlotOptions o;
  o.gnuplot = "false";  // exits 1 without drawing anything
  const PlotResult p = draw_plots(small_result(), XRUNLAB_SOURCE_SCRIPTS_DIR, o);
  EXPECT_EQ(p.error.rfind("timeline.gp: gnuplot exited with status 1", 0), 0u) << p.error;
  EXPECT_TRUE(p.files.empty());
  EXPECT_TRUE(fs::is_empty(tmp.dir.path()));
}

TEST(DrawPlots, MissingScriptsAreErrors) {
  PlotTmp tmp;
  PlotResult p = draw_plots(small_result(), tmp.dir.file("no-scripts-here"));
  EXPECT_EQ(p.error,
            "plot script timeline.gp not found (set XRUNLAB_SCRIPTS to the folder that holds it)");
  EXPECT_TRUE(p.files.empty());
  p = draw_plots(small_result(), "");
  EXPECT_NE(p.error.find("timeline.gp not found"), std::string::npos) << p.error;
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
  if (::geteuid() == 0) {
    // Root believes the kernel's /proc/self/exe, not argv[0]: the install argv0 names is
    // passed over.
    ScopedEnv env("XRUNLAB_SCRIPTS", nullptr);
    EXPECT_NE(find_script_dir(argv0), installed.string());
    return;
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
