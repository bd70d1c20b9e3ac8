// SPDX-License-Identifier: GPL-2.0-or-later
// Integration tests of --load with the real jackd, clients and load programs (make + cc,
// hackbench, stress-ng): each load runs through the whole measurement, did real work, and
// leaves no process and no scratch file behind - also after SIGINT and SIGKILL of the engine.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <set>

#include "engine/base/proc_pid_stat.hpp"
#include "engine/loads/load_kinds.hpp"
#include "engine/loads/process_tree.hpp"
#include "engine/loads/x_display.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

struct LoadCase {
  const char* spec;
  // Report field that must be > 0, or "" for CPU time only: one compile takes ~6.5 s here, and
  // one 'hackbench -g 1 -l 2000' (800,000 messages) 1 s on an idle machine but more than the
  // 4.3 s it had on a loaded one (seen in a test run: 0 iterations, 4.9 s of CPU), so a 3 s run
  // may finish none of either; their CPU time shows the pressure.
  const char* throughput;
};

class LoadRun : public ::testing::TestWithParam<LoadCase> {};

// A process identity that survives pid reuse: (pid, start time in /proc/PID/stat).
using ProcessId = std::pair<pid_t, uint64_t>;

// 0 when the process is gone.
uint64_t start_time_of(pid_t pid) {
  const auto stat = read_proc_pid_stat(pid);
  return stat ? stat->starttime : 0;
}

// Every process of the load trees of a run, as seen now.
std::vector<ProcessId> load_trees(const std::vector<pid_t>& supervisors) {
  std::vector<ProcessId> out;
  for (pid_t s : supervisors) {
    out.emplace_back(s, start_time_of(s));
    for (pid_t d : descendant_pids(s)) out.emplace_back(d, start_time_of(d));
  }
  return out;
}

std::vector<std::string> still_alive(const std::vector<ProcessId>& seen) {
  std::vector<std::string> alive;
  for (const auto& [pid, start] : seen) {
    const auto stat = read_proc_pid_stat(pid);
    if (start != 0 && stat && stat->starttime == start && stat->state != 'Z') {
      alive.push_back(std::to_string(pid) + " (" + stat->comm + ")");
    }
  }
  return alive;
}

// The xrunlab-load supervisors of a run: the engine's children that run xrunlab-load (their
// forked workers share the command line, but not the parent).
std::vector<pid_t> load_pids(const XrunlabRun& r) {
  std::vector<pid_t> out;
  for (const std::string& p : processes_mentioning(r.out_dir)) {
    if (p.find("xrunlab-load") == std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(p));
    const auto stat = read_proc_pid_stat(pid);
    if (stat && stat->ppid == r.child.pid()) out.push_back(pid);
  }
  return out;
}

TEST_P(LoadRun, RunsThroughTheWholeMeasurementAndLeavesNothing) {
  const LoadCase& c = GetParam();
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--load", c.spec, "--label", "it-load", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(1500ms);
  const std::vector<ProcessId> tree = load_trees(load_pids(r));
  EXPECT_GE(tree.size(), 2u) << "a supervisor and at least one worker";
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  ASSERT_EQ(j["loads"].size(), 1u);
  const json& l = j["loads"][0];
  EXPECT_EQ(l["spec"], c.spec);
  // Running during the whole window: started before it, stopped after it, and busy.
  EXPECT_LT(l["start_s"].get<double>(), 0.0) << l;
  EXPECT_GE(l["stop_s"].get<double>(), j["measurement"]["seconds_ran"].get<double>()) << l;
  const json& rep = l["report"];
  ASSERT_TRUE(rep.is_object()) << l;
  EXPECT_GT(rep["cpu_user_s"].get<double>() + rep["cpu_system_s"].get<double>(), 0.0) << rep;
  if (std::string(c.throughput) != "") {
    EXPECT_GT(rep[c.throughput].get<double>(), 0.0) << rep;
  }
  EXPECT_TRUE(rep["scratch_removed"].get<bool>()) << rep;
  EXPECT_EQ(l["error"], "") << l;
  // Nothing left: no process of the load's tree (as seen mid-run), no scratch folder.
  EXPECT_EQ(still_alive(tree), std::vector<std::string>{});
  for (const auto& f : std::filesystem::directory_iterator(r.run_dir() + "/loads")) {
    EXPECT_EQ(f.path().string().find(".scratch"), std::string::npos) << f.path();
  }
  if (std::string(c.spec) == "cpu:2") {
    // Two busy loops on this 2-CPU machine: the per-second CPU breakdown must show them.
    EXPECT_GT(j["totals"]["avg_cpu_user_pct"].get<double>(), 50.0) << j["totals"];
  }
  // summary.txt names it.
  EXPECT_NE(read_text_or_empty(r.run_dir() + "/summary.txt").find(c.spec), std::string::npos);
  expect_nothing_left(r);
}

INSTANTIATE_TEST_SUITE_P(Loads, LoadRun,
                         ::testing::Values(LoadCase{"compile:2", ""}, LoadCase{"hackbench:1", ""},
                                           LoadCase{"cpu:2", ""}, LoadCase{"io-write:8", "bytes"},
                                           LoadCase{"io-read:8", "bytes"},
                                           LoadCase{"io-copy:8", "bytes"}, LoadCase{"net", "bytes"},
                                           LoadCase{"stress-ng:\"--cpu 1\"", ""},
                                           LoadCase{"cmd:\"stress-ng --cpu 1\"", ""}),
                         [](const ::testing::TestParamInfo<LoadCase>& param) {
                           std::string name = param.param.spec;
                           for (char& ch : name)
                             ch = std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return name;
                         });

// bench: its workers' jobs are counted and timed over the load's life, the figures consistent
// with one another, and summary.txt shows them. Structure only, no latency threshold: this is a
// noisy 2-core VM, where a job's wall time depends on everything else running.
TEST(BenchLoad, TimesItsJobsAndShowsThemInTheSummary) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--load", "bench", "--label", "it-load-bench", "--no-plots"});
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  ASSERT_EQ(j["loads"].size(), 1u);
  const json& l = j["loads"][0];
  EXPECT_EQ(l["error"], "") << l;
  EXPECT_EQ(l["argv"], json::array({"bench", "1"})) << "bench alone is one worker";
  const json& rep = l["report"];
  ASSERT_TRUE(rep.is_object()) << l;
  EXPECT_EQ(rep["errors"], json::array()) << rep;
  ASSERT_TRUE(rep["bench_jobs"].is_number_unsigned()) << rep;
  const auto jobs = rep["bench_jobs"].get<uint64_t>();
  EXPECT_GT(jobs, 0u) << rep;
  EXPECT_GT(rep["bench_job_iterations"].get<uint64_t>(), 0u) << rep;
  EXPECT_EQ(rep["units"].get<uint64_t>(), jobs) << rep;
  EXPECT_EQ(rep["unit_name"], "benchmark jobs") << rep;
  EXPECT_GT(rep["units_s"].get<double>(), 0.0) << rep;
  const auto wall_mean = rep["bench_job_wall_ms_mean"].get<double>();
  const auto wall_min = rep["bench_job_wall_ms_min"].get<double>();
  const auto cpu_mean = rep["bench_job_cpu_ms_mean"].get<double>();
  EXPECT_GT(wall_min, 0.0) << rep;
  EXPECT_GE(wall_mean, wall_min) << rep;
  EXPECT_GT(cpu_mean, 0.0) << rep;
  EXPECT_LE(cpu_mean, wall_mean * 1.05) << "a job's CPU time fits in its wall time: " << rep;
  // The jobs fit in the load's life (its duration is taken when it is told to stop, a job may
  // still finish before its worker is).
  EXPECT_LE(rep["units_s"].get<double>(), rep["duration_s"].get<double>() + 1.0) << rep;
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(", " + std::to_string(jobs) + " jobs, "), std::string::npos) << summary;
  EXPECT_NE(summary.find(" ms mean wall (min "), std::string::npos) << summary;
  expect_nothing_left(r);
}

// x11 and top: what their programs reported is counted (frames drawn, refreshes), and nothing of
// them is left after the run: no Xvfb, glxgears or top of the load, no socket or lock file of
// the private X display.
struct CountedCase {
  const char* spec;
  const char* duration_s;  // glxgears reports every 5 s: the x11 load must live longer
  const char* unit_name;
  const char* program;  // a program of the load, as /proc/PID/comm names it
};

class CountedLoadRun : public ::testing::TestWithParam<CountedCase> {};

// The names (comm) of the processes of a load tree, as seen now.
std::set<std::string> names_of(const std::vector<ProcessId>& tree) {
  std::set<std::string> names;
  for (const auto& [pid, start] : tree) {
    if (const auto stat = read_proc_pid_stat(pid)) names.insert(stat->comm);
  }
  return names;
}

TEST_P(CountedLoadRun, CountsWhatItsProgramsReportAndLeavesNothing) {
  const CountedCase& c = GetParam();
  // CI installs Xvfb and glxgears (scripts/setup.sh): without them this fails, never skips.
  ASSERT_EQ(missing_program_for(std::string(c.spec), {"1"}), "");
  XrunlabRun r =
      start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration", c.duration_s,
             "--load", c.spec, "--label", "it-load-counted", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(1500ms);
  const std::vector<ProcessId> tree = load_trees(load_pids(r));
  const std::set<std::string> names = names_of(tree);
  EXPECT_EQ(names.count(c.program), 1u) << "the load runs " << c.program;
  if (std::string(c.spec) == "x11") {
    EXPECT_EQ(names.count("Xvfb"), 1u);
  }
  finish(r, 30s);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  ASSERT_EQ(j["loads"].size(), 1u);
  const json& l = j["loads"][0];
  EXPECT_EQ(l["error"], "") << l;
  const json& rep = l["report"];
  ASSERT_TRUE(rep.is_object()) << l;
  EXPECT_EQ(rep["stopped_by"], "SIGTERM") << rep;
  EXPECT_EQ(rep["errors"], json::array()) << rep;
  EXPECT_TRUE(rep["scratch_removed"].get<bool>()) << rep;
  EXPECT_EQ(rep["unit_name"], c.unit_name) << rep;
  EXPECT_GT(rep["units"].get<uint64_t>(), 0u) << rep;
  EXPECT_GT(rep["units_s"].get<double>(), 0.0) << rep;
  // Nothing of the load is left: no process of its tree, no file of its X display.
  EXPECT_EQ(still_alive(tree), std::vector<std::string>{});
  const std::string log = read_text_or_empty(l["log"].get<std::string>());
  if (std::string(c.spec) == "x11") {
    const size_t at = log.find("on display :");
    ASSERT_NE(at, std::string::npos) << l["log"] << ": " << log;
    const int display = std::atoi(log.c_str() + at + 12);
    EXPECT_FALSE(path_exists(load_tool::x_socket_path("/tmp", display))) << display;
    EXPECT_FALSE(path_exists(load_tool::x_lock_path("/tmp", display))) << display;
  }
  // summary.txt names it and what it counted.
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(std::string(" ") + c.unit_name + " in "), std::string::npos) << summary;
  expect_nothing_left(r);
}

INSTANTIATE_TEST_SUITE_P(Loads, CountedLoadRun,
                         ::testing::Values(CountedCase{"x11", "7", "frames drawn", "glxgears"},
                                           CountedCase{"top", "3", "refreshes", "top"}),
                         [](const ::testing::TestParamInfo<CountedCase>& param) {
                           return std::string(param.param.spec);
                         });

// The scratch folders still under out_dir. The load's janitor may be removing them while this
// walks the tree, so a walk that loses an entry under it says so as one entry instead of
// throwing, and the callers' polling loops simply look again.
std::vector<std::string> scratch_left(const std::string& out_dir) {
  std::vector<std::string> left;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(out_dir, ec);
       !ec && it != std::filesystem::end(it); it.increment(ec)) {
    if (it->path().string().find(".scratch") != std::string::npos) left.push_back(it->path());
  }
  if (ec) left.push_back("(walk of " + out_dir + " interrupted: " + ec.message() + ")");
  return left;
}

TEST(LoadIntegration, SigintStopsTheLoadsToo) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "60", "--load", "compile:2", "--label", "it-load-int", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(500ms);
  const std::vector<pid_t> pids = load_pids(r);
  ASSERT_EQ(pids.size(), 1u);
  const std::vector<ProcessId> tree = load_trees(pids);
  kill(r.child.pid(), SIGINT);
  finish(r, 20s);
  EXPECT_EQ(r.exit_code, 130) << r.log();
  EXPECT_EQ(still_alive(tree), std::vector<std::string>{});
  EXPECT_EQ(scratch_left(r.out_dir), std::vector<std::string>{});
  EXPECT_EQ(r.run_json()["loads"].size(), 1u);
  expect_nothing_left(r);
}

TEST(LoadIntegration, SigkillOfTheEngineStillStopsTheLoads) {
  XrunlabRun r = start({"run", "--clients", "1", "--ports", "1", "--period", "256", "--duration",
                        "60", "--load", "compile:2", "--load", "io-write:8", "--label",
                        "it-load-kill", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(500ms);
  const std::vector<pid_t> loads = load_pids(r);
  ASSERT_EQ(loads.size(), 2u);
  const std::vector<ProcessId> tree = load_trees(loads);
  kill(r.child.pid(), SIGKILL);
  finish(r, 10s);
  const auto gone_by = std::chrono::steady_clock::now() + 5s;
  while (!still_alive(tree).empty() && std::chrono::steady_clock::now() < gone_by) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(still_alive(tree), std::vector<std::string>{});
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!scratch_left(r.out_dir).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(scratch_left(r.out_dir), std::vector<std::string>{});
}

// The engine killed with SIGKILL: its janitor kills every process of the run, the x11 load's X
// server too, which then cannot remove its socket; the janitor removes it (the display the
// load's scratch folder names), and no Xvfb or glxgears of the run is left.
TEST(LoadIntegration, SigkillOfTheEngineLeavesNoXServerAndNoSocket) {
  ASSERT_EQ(missing_program_for("x11", {"1"}), "") << "run scripts/setup.sh";
  XrunlabRun r = start({"run", "--clients", "1", "--ports", "1", "--period", "256", "--duration",
                        "60", "--load", "x11:2", "--label", "it-load-x11-kill", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(1000ms);
  const std::vector<pid_t> loads = load_pids(r);
  ASSERT_EQ(loads.size(), 1u);
  const std::vector<ProcessId> tree = load_trees(loads);
  EXPECT_EQ(names_of(tree).count("Xvfb"), 1u);
  std::string log;  // the run folder is named at the end: find the load's log under out_dir
  for (const auto& f : std::filesystem::recursive_directory_iterator(r.out_dir)) {
    if (f.path().filename() == "1-x11.log") log = read_text_or_empty(f.path().string());
  }
  const size_t at = log.find("on display :");
  ASSERT_NE(at, std::string::npos) << log;
  const int display = std::atoi(log.c_str() + at + 12);
  EXPECT_TRUE(path_exists(load_tool::x_socket_path("/tmp", display)));
  kill(r.child.pid(), SIGKILL);
  finish(r, 10s);
  const auto gone_by = std::chrono::steady_clock::now() + 5s;
  while ((!still_alive(tree).empty() || path_exists(load_tool::x_socket_path("/tmp", display)) ||
          !scratch_left(r.out_dir).empty()) &&
         std::chrono::steady_clock::now() < gone_by) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(still_alive(tree), std::vector<std::string>{});
  EXPECT_FALSE(path_exists(load_tool::x_socket_path("/tmp", display))) << display;
  EXPECT_FALSE(path_exists(load_tool::x_lock_path("/tmp", display))) << display;
  EXPECT_EQ(scratch_left(r.out_dir), std::vector<std::string>{});
}

TEST(LoadIntegration, MissingProgramsAreFoundBeforeTheRun) {
  const TempDir empty_dir("empty-path");
  const std::string empty = empty_dir.str();
  struct Case {
    const char* spec;
    const char* package;
  };
  for (const Case& c : {Case{"hackbench", "rt-tests"}, Case{"stress-ng:\"--cpu 1\"", "stress-ng"},
                        Case{"compile", "make"}, Case{"x11", "xvfb"}, Case{"x11", "mesa-utils"},
                        Case{"top", "procps"}}) {
    XrunlabRun r = start({"run", "--jackd", "/usr/bin/jackd", "--duration", "1", "--load", c.spec},
                         {{"PATH", empty}});
    finish(r);
    EXPECT_EQ(r.exit_code, 3) << r.log();
    const std::string out = r.log();
    EXPECT_NE(out.find(c.package), std::string::npos) << out;
    EXPECT_EQ(out.find("started jackd"), std::string::npos) << out;
  }
  XrunlabRun r;
  EXPECT_EQ(run_to_end({"run", "--duration", "1", "--load", "cmd:/nonexistent/prog"}, &r), 3)
      << r.log();
  EXPECT_NE(r.log().find("/nonexistent/prog"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
