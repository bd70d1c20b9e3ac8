// SPDX-License-Identifier: GPL-2.0-or-later
// The run's janitor (engine/janitor) against real kills: the real xrunlab, jackd on the virtual
// card, real clients and loads, the engine killed with SIGKILL at fixed moments - during
// start-up, in the window (with a load's process tree; with rt-throttle's cgroup as root), and
// during shutdown. Once the janitor has exited, nothing of the run may be left: no process, no
// /dev/shm file named after its server, no JACK segment its jackd allocated, no cgroup, no
// journal; and its run folder says "killed" (what was measured kept) or, when the kill came
// after the engine had written its results, their final status. Asserted on what is left, not
// on how fast (the machines are noisy 2-core VMs; scripts/kill9-trials.sh measures the time).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <thread>

#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;

// The janitor of engine `engine`, found by its command line ("" when none runs).
std::vector<std::string> janitors_of(pid_t engine) {
  std::vector<std::string> out;
  for (const std::string& p : processes_mentioning("--engine " + std::to_string(engine) + " ")) {
    const pid_t pid = static_cast<pid_t>(std::stol(p));
    const std::string stat = read_text_or_empty("/proc/" + std::to_string(pid) + "/stat");
    const auto paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') continue;
    out.push_back(p);
  }
  return out;
}

// Living processes (not zombies) among those whose command line has `needle`.
std::vector<std::string> living_mentioning(const std::string& needle) {
  std::vector<std::string> out;
  for (const std::string& p : processes_mentioning(needle)) {
    const std::string stat = read_text_or_empty("/proc/" + std::to_string(std::stol(p)) + "/stat");
    const auto paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') continue;
    out.push_back(p);
  }
  return out;
}

// JACK segments in the registry allocated by `pid`.
std::vector<std::string> segments_of(pid_t pid) {
  std::vector<std::string> out;
  const auto segs = parse_jack_segments(read_text_or_empty("/dev/shm/jack-shm-registry"), nullptr);
  if (!segs) return out;
  for (const ShmSegment& s : *segs) {
    if (pid > 0 && s.allocator == pid) out.push_back(s.id);
  }
  return out;
}

// The run folder under OUT/LABEL (the engine never printed "Results:").
std::string run_folder(const XrunlabRun& r, const std::string& label) {
  std::string found;
  if (DIR* d = opendir((r.out_dir + "/" + label).c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') found = r.out_dir + "/" + label + "/" + e->d_name;
    }
    closedir(d);
  }
  return found;
}

void wait_for_log(const XrunlabRun& r, const std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (r.log().find(text) == std::string::npos && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_NE(r.log().find(text), std::string::npos) << r.log();
}

struct Killed {
  pid_t engine = 0, jackd = 0;
  std::string server, dir;
};

// Kills the engine, waits for its janitor to end (10 s at most: a hang guard, not a budget),
// then checks that nothing of the run is left. Returns the run folder's run.json.
json kill_and_check(XrunlabRun& r, const std::string& label, Killed* k) {
  k->engine = r.child.pid();
  k->server = r.server_name();
  k->jackd = pid_of(r, "jackd -n " + k->server);
  EXPECT_EQ(janitors_of(k->engine).size(), 1u) << "the run has no janitor";
  const auto killed_at = std::chrono::steady_clock::now();
  EXPECT_EQ(::kill(k->engine, SIGKILL), 0);
  finish(r, 10s);
  const auto deadline = killed_at + 10s;
  while (!janitors_of(k->engine).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - killed_at)
          .count();
  std::printf("janitor of %s gone %.0f ms after the kill\n", label.c_str(), ms);
  EXPECT_EQ(janitors_of(k->engine), std::vector<std::string>{}) << "the janitor did not end";
  EXPECT_EQ(living_mentioning(k->server), std::vector<std::string>{})
      << "processes of the run are alive";
  EXPECT_EQ(shm_leftovers(k->server), std::vector<std::string>{}) << "the run's /dev/shm files";
  EXPECT_EQ(segments_of(k->jackd), std::vector<std::string>{}) << "segments of the run's jackd";
  struct stat st {};
  EXPECT_NE(::stat(("/run/xrunlab/journal-0-" + std::to_string(k->engine) + ".json").c_str(), &st),
            0)
      << "the engine's journal is left";
  k->dir = run_folder(r, label);
  EXPECT_FALSE(k->dir.empty()) << r.log();
  if (!k->dir.empty()) {
    EXPECT_EQ(living_mentioning(k->dir + "/"), std::vector<std::string>{})
        << "processes of the run folder (loads) are alive";
  }
  return json::parse(read_text_or_empty(k->dir + "/run.json"), nullptr, false);
}

std::vector<std::string> run_args(const std::string& label, const std::string& duration) {
  return {"run",     "--backend", "vcard",      "--period", "1024",    "--clients", "2",
          "--ports", "1",         "--duration", duration,   "--label", label,       "--no-plots"};
}

TEST(Janitor, AKillDuringStartUpLeavesNothingAndAFolderMarkedKilled) {
  XrunlabRun r = start(run_args("jn-startup", "30"));
  wait_for_log(r, "started jackd");  // jackd runs, the clients are not active yet
  Killed k;
  const json j = kill_and_check(r, "jn-startup", &k);
  ASSERT_TRUE(j.is_object()) << "no run.json in " << k.dir;
  EXPECT_EQ(j["status"], "killed");
  EXPECT_NE(j["status_detail"].get<std::string>().find(std::to_string(k.engine)),
            std::string::npos);
  EXPECT_NE(read_text_or_empty(k.dir + "/summary.txt").find(": killed ("), std::string::npos);
  EXPECT_NE(read_text_or_empty(k.dir + "/janitor.log").find("done in"), std::string::npos);
}

TEST(Janitor, AKillInTheWindowStopsTheLoadsTreeAndKeepsWhatWasMeasured) {
  std::vector<std::string> args = run_args("jn-window", "30");
  args.insert(args.end(), {"--load", "cpu:2"});
  XrunlabRun r = start(args);
  wait_until_measuring(r);
  std::this_thread::sleep_for(2500ms);  // past the first checkpoint (1.5 s into the window)
  const std::string dir = run_folder(r, "jn-window");
  ASSERT_GE(living_mentioning(dir + "/loads/").size(), 3u) << "a supervisor and its 2 loops";
  Killed k;
  const json j = kill_and_check(r, "jn-window", &k);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "killed");
  ASSERT_EQ(j["clients"].size(), 2u);
  EXPECT_GT(j["clients"][0]["cycles"].get<uint64_t>(), 0u) << "the checkpoint's cycles are kept";
  EXPECT_GT(j["cycles"]["cycles"].get<uint64_t>(), 0u);
  // The checkpoint's per-second rows too: in seconds.jsonl, counted by run.json, and in the
  // timeseries.csv the janitor made from them (checkpoints write no timeseries.csv).
  const uint64_t rows = j["per_second"]["client_rows"].get<uint64_t>();
  EXPECT_GE(rows, 2u) << "a row of each client by the first checkpoint";
  const std::string file = read_text_or_empty(k.dir + "/seconds.jsonl");
  EXPECT_GE(static_cast<uint64_t>(std::count(file.begin(), file.end(), '\n')), rows + 1) << file;
  const std::string csv = read_text_or_empty(k.dir + "/timeseries.csv");
  EXPECT_GE(static_cast<uint64_t>(std::count(csv.begin(), csv.end(), '\n')), rows + 1) << csv;
  const auto s = parse_summary(read_text_or_empty(k.dir + "/summary.txt"));
  EXPECT_EQ(s.at("Number of clients"), "2");
  EXPECT_EQ(s.at("Status").rfind("killed", 0), 0u) << s.at("Status");
  struct stat st {};
  EXPECT_NE(::stat((k.dir + "/loads/1-cpu.scratch").c_str(), &st), 0) << "the load's scratch";
}

TEST(Janitor, AKillDuringShutdownLeavesNothingAndAFinalStatus) {
  // The window ends 1.3 s after "measuring" (it starts 0.3 s later); the clients' last seconds
  // and the results follow. A run that had already ended at the kill (a fast shutdown) is tried
  // again, killed 150 ms sooner.
  for (auto delay = 1400ms; delay >= 1100ms; delay -= 150ms) {
    XrunlabRun r = start(run_args("jn-shutdown", "1"));
    wait_until_measuring(r);
    std::this_thread::sleep_for(delay);
    if (janitors_of(r.child.pid()).empty()) {
      finish(r, 10s);
      continue;
    }
    Killed k;
    const json j = kill_and_check(r, "jn-shutdown", &k);
    ASSERT_TRUE(j.is_object());
    const std::string status = j["status"];
    EXPECT_TRUE(status == "killed" || status == "completed") << status;
    // summary.txt follows run.json whatever the moment.
    const auto s = parse_summary(read_text_or_empty(k.dir + "/summary.txt"));
    EXPECT_EQ(s.at("Status").rfind(status, 0), 0u)
        << s.at("Status") << "\nrun.json: " << status << "\njanitor.log:\n"
        << read_text_or_empty(k.dir + "/janitor.log");
    return;
  }
  FAIL() << "every run had ended before its kill (1100-1400 ms after \"measuring\")";
}

TEST(Janitor, AKillUnderRtThrottleRemovesItsCgroup) {
  if (::geteuid() != 0 || ::access("/sys/fs/cgroup/cpu/cpu.rt_runtime_us", W_OK) != 0) {
    GTEST_SKIP() << "rt-throttle needs root and the cgroup-v1 cpu controller";
  }
  const std::string before = read_text_or_empty("/sys/fs/cgroup/cpu/cpu.rt_runtime_us");
  std::vector<std::string> args = run_args("jn-throttle", "30");
  args.insert(args.end(), {"--policy", "rt-throttle:50"});
  XrunlabRun r = start(args);
  wait_until_measuring(r);
  const std::string group = "/sys/fs/cgroup/cpu/xrunlab-" + std::to_string(r.child.pid());
  struct stat st {};
  ASSERT_EQ(::stat(group.c_str(), &st), 0) << "no cgroup " << group;
  std::this_thread::sleep_for(500ms);
  Killed k;
  const json j = kill_and_check(r, "jn-throttle", &k);
  EXPECT_NE(::stat(group.c_str(), &st), 0) << "the cgroup is left: " << group;
  EXPECT_EQ(read_text_or_empty("/sys/fs/cgroup/cpu/cpu.rt_runtime_us"), before);
  EXPECT_NE(read_text_or_empty(k.dir + "/janitor.log").find("restored " + group), std::string::npos)
      << read_text_or_empty(k.dir + "/janitor.log");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["status"], "killed");
}

TEST(Janitor, ACleanRunEndsItsJanitorAndLeavesNoJanitorLog) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end(run_args("jn-clean", "1"), &r), 0) << r.log();
  EXPECT_EQ(janitors_of(r.child.pid()), std::vector<std::string>{});
  struct stat st {};
  EXPECT_NE(::stat((r.run_dir() + "/janitor.log").c_str(), &st), 0);
  EXPECT_EQ(r.run_json()["status"], "completed");
  expect_nothing_left(r);
}

// The janitor killed in the window: the run goes on and completes (it is only the safety net),
// and says it ran without it.
TEST(Janitor, AKilledJanitorIsSaidAndTheRunCompletes) {
  XrunlabRun r = start(run_args("jn-janitor-killed", "3"));
  wait_until_measuring(r);
  const pid_t janitor = janitor_of(r.child.pid());
  ASSERT_GT(janitor, 0) << r.log();
  ::kill(janitor, SIGKILL);
  finish(r);
  EXPECT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "completed");
  EXPECT_NE(j["warnings"].dump().find("the janitor ended during the run: xrunlab-janitor (pid " +
                                      std::to_string(janitor) + ") killed by signal 9"),
            std::string::npos)
      << j["warnings"];
  expect_nothing_left(r);
}

}  // namespace
}  // namespace xrunlab
