// SPDX-License-Identifier: GPL-2.0-or-later
// Integration tests: the real xrunlab binary, the real jackd (dummy backend) and the real
// xrunlab-client processes. They assert on structure and on counts that are exact by
// construction (injected overruns), never on latency thresholds: the development and CI
// machines are noisy 2-core VMs. Period 256 frames (5.3 ms) keeps spontaneous xruns rare there
// (JACK2's 14 x jack_cpu on its dummy driver: ~6/s at 256, ~170/s at 64; docs/architecture.md,
// Timer noise on small VMs), so what is asserted is the tool's logic.
#include <gtest/gtest.h>
#include <jack/jack.h>
#include <signal.h>
#include <sys/stat.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <thread>

#include "engine/jack/jack_registry.hpp"
#include "engine/report/report_summary.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

// What every client's numbers must satisfy by construction, whatever the machine's timing:
// its per-second rows are the seconds 0, 1, 2 ... of the one measurement window (no gap), they
// add up to its cycle count, every measured cycle has a delay, and the callbacks it ran since
// activation include the measured ones. (That no row lies past the window's end is
// NoCycleAfterTheWindowIsMeasured, below.)
void expect_consistent_client(const json& c, const XrunlabRun::Seconds& file) {
  const auto cycles = c["cycles"].get<uint64_t>();
  ASSERT_EQ(file.columns[0], "second");
  ASSERT_EQ(file.columns[1], "cycles");
  ASSERT_EQ(file.clients.count(c["index"].get<int>()), 1u) << c["name"] << ": no rows";
  const json& rows = file.clients.at(c["index"].get<int>());
  uint64_t sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][0].get<uint64_t>(), i) << c["name"] << ": rows are consecutive seconds";
    sum += rows[i][1].get<uint64_t>();
  }
  EXPECT_EQ(sum, cycles) << c["name"];
  EXPECT_EQ(c["delay_us"]["count"].get<uint64_t>(), cycles) << c["name"];
  EXPECT_GE(c["cycles_total"].get<uint64_t>(), cycles + c["unreferenced_cycles"].get<uint64_t>())
      << c["name"];
  EXPECT_GT(cycles, 0u) << c["name"];
}

// (a) 4 clients x 2 ports, 3 s: cycle counts, wiring checked through the JACK API while the
// run is live, and summary.txt parsing back to run.json's numbers.
TEST(Integration, FourClientsTwoPortsThreeSeconds) {
  XrunlabRun r = start({"run", "--clients", "4", "--ports", "2", "--period", "256", "--duration",
                        "3", "--dsp-load", "10", "--label", "it-basic"});
  // While the run is live: connect to its private server and read the graph back.
  jack_set_error_function(silent);
  jack_set_info_function(silent);
  jack_client_t* probe = nullptr;
  std::map<std::string, std::vector<std::string>> graph;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline && r.child.running()) {
    if (probe == nullptr) {
      probe = jack_client_open((r.server_name() + "-it-probe").c_str(),
                               static_cast<jack_options_t>(JackNoStartServer | JackServerName),
                               nullptr, r.server_name().c_str());
    }
    if (probe != nullptr) {
      graph.clear();
      size_t connected = 0;
      for (int c = 1; c <= 4; ++c) {
        for (int p = 1; p <= 2; ++p) {
          const std::string port = r.client_name(c) + ":in_" + std::to_string(p);
          jack_port_t* jp = jack_port_by_name(probe, port.c_str());
          if (jp == nullptr) continue;
          if (const char** conns = jack_port_get_all_connections(probe, jp)) {
            for (const char** n = conns; *n != nullptr; ++n) graph[port].emplace_back(*n);
            jack_free(conns);
            ++connected;
          }
        }
      }
      if (connected == 8) break;
    }
    std::this_thread::sleep_for(20ms);
  }
  if (probe != nullptr) jack_client_close(probe);
  for (int p = 1; p <= 2; ++p) {
    const std::string ps = std::to_string(p);
    EXPECT_EQ(graph[r.client_name(1) + ":in_" + ps],
              std::vector<std::string>{"system:capture_" + ps});
    for (int c = 2; c <= 4; ++c) {
      EXPECT_EQ(graph[r.client_name(c) + ":in_" + ps],
                std::vector<std::string>{r.client_name(c - 1) + ":out_" + ps});
    }
  }
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "completed");
  EXPECT_EQ(j["schema_version"], 2);
  // The per-second rows are in seconds.jsonl, which run.json names and counts; run.json holds
  // none of them.
  const XrunlabRun::Seconds file = r.seconds();
  EXPECT_EQ(j["per_second"]["file"], "seconds.jsonl");
  EXPECT_EQ(j["per_second"]["client_rows"].get<size_t>(), file.client_rows);
  EXPECT_EQ(j["per_second"]["system_rows"].get<size_t>(), file.system.size());
  EXPECT_EQ(file.clients.size(), 4u);
  EXPECT_GE(file.system.size(), 2u);
  EXPECT_FALSE(j.contains("system_per_second"));
  for (const auto& c : j["clients"]) EXPECT_FALSE(c.contains("per_second")) << c["name"];
  // The engine's own read-back of the graph includes the last hop to the card.
  json playback = json::array();
  for (const auto& e : j["jack"]["graph"]) {
    if (e["to"].get<std::string>().rfind("system:playback_", 0) == 0) playback.push_back(e["from"]);
  }
  EXPECT_EQ(playback, json({r.client_name(4) + ":out_1", r.client_name(4) + ":out_2"}));

  // A completed run's window is exactly the duration asked for.
  const double seconds = j["measurement"]["seconds_ran"].get<double>();
  EXPECT_EQ(seconds, 3.0);
  ASSERT_EQ(j["clients"].size(), 4u);
  for (const auto& c : j["clients"]) {
    EXPECT_TRUE(c["final_report"].get<bool>()) << c["name"];
    EXPECT_EQ(c["ring_dropped"], 0) << c["name"];
    expect_consistent_client(c, r.seconds());
  }
  expect_xrun_counts_consistent(j);
  // summary.txt parses back to the same numbers as run.json.
  const auto s = parse_summary(read_text_or_empty(r.run_dir() + "/summary.txt"));
  const json& t = j["totals"];
  EXPECT_EQ(s.at("Number of clients"), "4");
  EXPECT_EQ(s.at("Ports per client"), "2");
  EXPECT_EQ(s.at("Frames per buffer"), "256");
  EXPECT_EQ(s.at("Total seconds ran"), std::to_string(static_cast<int>(seconds)));
  EXPECT_EQ(s.at("XRUN Count"), std::to_string(t["xrun_count"].get<int>()));
  EXPECT_EQ(s.at("Timeout Count"), std::to_string(t["timeout_count"].get<int>()));
  EXPECT_EQ(s.at("Delay Count (>spare time)"), std::to_string(t["delay_over_spare"].get<int>()));
  EXPECT_EQ(s.at("Delay Count (>1000 usecs)"), std::to_string(t["delay_over_1000us"].get<int>()));
  // jack_test's definitions: JACK1's rules on jackd's wake-ups, whole usecs ("%5d").
  const json& jt = j["jack_test"];
  EXPECT_EQ(s.at("Delay Maximum"),
            std::to_string(static_cast<int64_t>(jt["delay_max_us"].get<double>())));
  EXPECT_EQ(s.at("Cycle Maximum"),
            jt["cycle_max_us"].is_null()
                ? std::string("n/a   usecs")
                : std::to_string(static_cast<int64_t>(jt["cycle_max_us"].get<double>())));
  EXPECT_EQ(t["delay_over_spare"], jt["delay_over_spare"]);
  char dsp[32];
  // JACK1's cpu_load by its rules where a checkpoint was reached, else JACK2's jack_cpu_load().
  std::snprintf(dsp, sizeof dsp, "%.1f",
                jt["dsp_load_pct"].is_null() ? t["avg_dsp_load_pct"].get<double>()
                                             : jt["dsp_load_pct"].get<double>());
  EXPECT_EQ(s.at("Average DSP Load"), dsp);
  std::snprintf(dsp, sizeof dsp, "%.1f", t["avg_context_switch_rate"].get<double>());
  EXPECT_EQ(s.at("Average Context-Switch Rate"), dsp);
  for (const char* f : {"summary.txt", "run.json", "timeseries.csv", "histogram.csv", "jackd.log",
                        "clients/c01.log", "clients/c04.log"}) {
    struct stat st {};
    EXPECT_EQ(stat((r.run_dir() + "/" + f).c_str(), &st), 0) << f;
  }
  expect_nothing_left(r);
}

// Each client measures [start, end) exactly: no cycle at or after the end, no per-second row
// past the window. (Until the clients learned the planned end with the start command, each
// counted the 1-2 cycles that began between the end and the arrival of the stop command.)
TEST(Integration, NoCycleAfterTheWindowIsMeasured) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "4", "--ports", "2", "--period", "256", "--duration",
                        "3", "--dsp-load", "10", "--label", "it-window", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const double seconds = j["measurement"]["seconds_ran"].get<double>();
  ASSERT_EQ(seconds, 3.0);
  const XrunlabRun::Seconds file = r.seconds();
  for (const auto& c : j["clients"]) {
    const json& rows = file.clients.at(c["index"].get<int>());
    EXPECT_LE(static_cast<double>(rows.size()), std::ceil(seconds)) << c["name"] << rows.dump();
    for (const auto& w : c["worst_cycles"]) EXPECT_LT(w["t_s"].get<double>(), seconds) << w;
  }
  expect_nothing_left(r);
}

// (b) An injected overrun longer than the period every 100th cycle: every one is an xrun.
TEST(Integration, InjectedOverrunsAreCountedAsXruns) {
  XrunlabRun r;
  // 256 frames = 5333 us; 8000 us of extra busy time every 100 cycles for 3 s -> 5 overruns.
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "3", "--inject", "8000:100", "--inject-client", "2", "--label", "it-inject",
                        "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const auto injected = j["totals"]["injected_overruns"].get<uint64_t>();
  // Client 2 overruns on every callback whose number (counted from activation) is a multiple
  // of 100; the window holds a run of consecutive callbacks, so it saw floor or ceil of
  // window/100 of them. Unreferenced cycles (no card marker) are in the window too.
  const json& c2 = j["clients"][1];
  const uint64_t window = c2["cycles"].get<uint64_t>() + c2["unreferenced_cycles"].get<uint64_t>();
  EXPECT_GE(injected, window / 100) << window;
  EXPECT_LE(injected, (window + 99) / 100) << window;
  EXPECT_GE(injected, 4u) << "3 s at 187.5 cycles/s";
  EXPECT_EQ(c2["injected_overruns"].get<uint64_t>(), injected);
  EXPECT_EQ(j["clients"][0]["injected_overruns"].get<uint64_t>(), 0u);
  // 8000 us of busy time is longer than the 5333 us period: every injected cycle is late.
  EXPECT_GE(c2["late_cycles"].get<uint64_t>() + c2["unreferenced_cycles"].get<uint64_t>(),
            injected);
  for (const auto& c : j["clients"]) expect_consistent_client(c, r.seconds());
  expect_xrun_counts_consistent(j);
  // Late clients are JACK2's client-late xruns, not jack_test's XRUN Count (driver xruns).
  EXPECT_GE(j["xruns"]["monitor_events"].get<uint64_t>(), injected);
  EXPECT_GE(j["xruns"]["log_client_events"].get<uint64_t>(), injected);
  EXPECT_GE(j["clients"][1]["duration_us"]["max"].get<int64_t>(), 8000);
  EXPECT_GE(j["xruns"]["late_clients"].size(), 1u);
  expect_nothing_left(r);
}

// --fail-if on a real run's own figures: injected overruns make xrun events certain, so
// "xruns>0" must fail the run with exit code 10 and a JUnit failure; "glitches<0" never can.
TEST(Integration, ACrossedThresholdIsExitCodeTenAndAJunitFailure) {
  const TempDir dir("threshold");
  const std::string junit = dir.file("junit.xml");
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run",        "--clients",  "2",
                        "--ports",    "1",          "--period",
                        "256",        "--duration", "3",
                        "--inject",   "8000:100",   "--inject-client",
                        "2",          "--label",    "it-threshold",
                        "--no-plots", "--fail-if",  "xruns>0",
                        "--fail-if",  "glitches<0", "--junit",
                        junit},
                       &r),
            10)
      << r.log();
  EXPECT_NE(r.log().find("xrunlab: --fail-if: xruns = "), std::string::npos) << r.log();
  EXPECT_EQ(r.log().find("--fail-if: glitches"), std::string::npos) << r.log();
  const std::string xml = read_text_or_empty(junit);
  EXPECT_NE(xml.find("tests=\"1\" failures=\"1\" errors=\"0\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase name=\"it-threshold\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<failure message=\"xruns = "), std::string::npos) << xml;
  EXPECT_EQ(r.run_json()["status"], "completed") << "a crossed threshold is not a failed run";
  expect_nothing_left(r);
}

// (c) Ctrl-C during a run: everything stops, the results so far are written, marked.
TEST(Integration, SigintStopsEverythingAndKeepsTheResults) {
  XrunlabRun r = start({"run", "--clients", "3", "--ports", "1", "--period", "256", "--duration",
                        "60", "--label", "it-sigint", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(1500ms);
  const auto t_signal = std::chrono::steady_clock::now();
  kill(r.child.pid(), SIGINT);
  finish(r, 20s);
  const double stop_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t_signal).count();
  std::printf("stop after SIGINT took %.2f s\n", stop_s);
  EXPECT_EQ(r.exit_code, 130) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "interrupted");
  const double seconds = j["measurement"]["seconds_ran"].get<double>();
  // The signal came 1.5 s after "measuring", which the engine prints 0.3 s before the window.
  EXPECT_GE(seconds, 1.2);
  EXPECT_LT(seconds, 60.0);
  for (const auto& c : j["clients"]) expect_consistent_client(c, r.seconds());
  EXPECT_NE(read_text_or_empty(r.run_dir() + "/summary.txt").find("interrupted"),
            std::string::npos);
  expect_nothing_left(r);
}

// An engine that runs late at the end of the window, as one starved by a compile on a loaded
// machine does: stopped from before the planned end until well past the clients' own finish
// (0.5 s after it). Each client has counted its window and sent its figures, but keeps its JACK
// client and process thread until the engine says stop, so the engine's last read of the audio
// threads finds every one of them, and the run completes (it failed with "no thread ... in
// process" when clients closed on their own first).
TEST(Integration, AnEngineLateAtTheEndStillFindsEveryAudioThread) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "512", "--duration",
                        "3", "--label", "it-late-engine", "--no-plots"});
  wait_until_measuring(r);
  // "measuring" comes 0.3 s before the window: stop the engine 2.5 s into it, resume at 5 s.
  std::this_thread::sleep_for(2800ms);
  ASSERT_EQ(kill(r.child.pid(), SIGSTOP), 0);
  std::this_thread::sleep_for(2500ms);
  ASSERT_EQ(kill(r.child.pid(), SIGCONT), 0);
  finish(r, 60s);
  EXPECT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "completed") << j["status_detail"];
  ASSERT_EQ(j["scheduling"]["threads_end"].size(), 3u) << "jackd and both clients";
  for (const json& t : j["scheduling"]["threads_end"]) {
    EXPECT_EQ(t["mismatch"], "") << t.dump();
    EXPECT_GT(t["tid"].get<int>(), 0) << t.dump();
  }
  for (const auto& c : j["clients"]) expect_consistent_client(c, r.seconds());
  expect_nothing_left(r);
}

TEST(Integration, SigtermAlsoStopsCleanly) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "512", "--duration",
                        "60", "--label", "it-sigterm", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(500ms);
  kill(r.child.pid(), SIGTERM);
  finish(r, 20s);
  EXPECT_EQ(r.exit_code, 130) << r.log();
  EXPECT_EQ(r.run_json()["status"], "interrupted");
  expect_nothing_left(r);
}

// SIGTERM while 48 clients start (as soon as the first exists: most are not spawned yet, or
// not active): the engine stops spawning, kills the clients at once and gives jackd less time,
// and still ends as an interrupted run with nothing left behind.
TEST(Integration, SigtermDuringTheStartUpStopsEverythingItStarted) {
  XrunlabRun r = start({"run", "--clients", "48", "--ports", "2", "--period", "1024", "--duration",
                        "5", "--label", "it-sigterm-startup", "--no-plots"});
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (pid_of(r, "--name " + r.client_name(1)) < 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  ASSERT_GT(pid_of(r, "--name " + r.client_name(1)), 0) << r.log();
  kill(r.child.pid(), SIGTERM);
  finish(r, 20s);
  EXPECT_EQ(r.exit_code, 130) << r.log();
  // A run stopped before its window prints no "Results:" line: its one folder under the label.
  std::vector<std::string> dirs;
  for (const auto& e : std::filesystem::directory_iterator(r.out_dir + "/it-sigterm-startup")) {
    dirs.push_back(e.path().string());
  }
  ASSERT_EQ(dirs.size(), 1u) << r.log();
  const json j = json::parse(read_text_or_empty(dirs[0] + "/run.json"));
  EXPECT_EQ(j["status"], "interrupted") << j["status_detail"];
  const std::string detail = j["status_detail"];
  EXPECT_NE(detail.find("interrupt"), std::string::npos) << detail;
  EXPECT_NE(detail.find("of 48"), std::string::npos) << detail;
  EXPECT_NE(r.log().find("xrunlab: error: " + detail), std::string::npos) << r.log();
  expect_nothing_left(r);
}

// A child crashing mid-run: the run stops, says who died and how, keeps its results.
TEST(Integration, ACrashingClientFailsTheRunAndKeepsTheResults) {
  XrunlabRun r = start({"run", "--clients", "3", "--ports", "1", "--period", "256", "--duration",
                        "60", "--label", "it-crash", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(1200ms);
  const pid_t victim = pid_of(r, "--name " + r.client_name(2));
  ASSERT_GT(victim, 0);
  kill(victim, SIGSEGV);
  finish(r, 20s);
  EXPECT_EQ(r.exit_code, 1) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "failed");
  const std::string detail = j["status_detail"];
  EXPECT_NE(detail.find(r.client_name(2)), std::string::npos) << detail;
  EXPECT_NE(detail.find("signal 11"), std::string::npos) << detail;
  expect_consistent_client(j["clients"][0], r.seconds());
  expect_nothing_left(r);
}

TEST(Integration, ACrashingServerFailsTheRunAndKeepsTheResults) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "60", "--label", "it-jackd-crash", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(1200ms);
  const pid_t jackd = pid_of(r, "jackd -n " + r.server_name());
  ASSERT_GT(jackd, 0);
  kill(jackd, SIGKILL);
  finish(r, 20s);
  EXPECT_EQ(r.exit_code, 1) << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["status_detail"].get<std::string>().find("jackd killed by signal 9"),
            std::string::npos);
  EXPECT_GT(j["measurement"]["seconds_ran"].get<double>(), 0.5);  // the window began 0.3 s late
  expect_nothing_left(r);
  // The killed jackd's JACK segments (/dev/shm/jack-<uid>-<n>, named in the registry with the
  // pid that allocated them) went with the run, not at some later run's start.
  const std::string image = read_text_or_empty("/dev/shm/jack-shm-registry");
  std::string why;
  if (const auto segments = parse_jack_segments(image, &why)) {
    for (const ShmSegment& g : *segments) {
      if (g.allocator != jackd || g.id.empty()) continue;
      EXPECT_FALSE(std::filesystem::exists("/dev/shm" + g.id)) << g.id << " left by jackd";
    }
  }
}

// A jackd that exits at once (a stand-in named jackd first in PATH): the run fails before its
// window with exit code 4, and its run.json says failed with that same code.
TEST(Integration, ARunFailedBeforeItsWindowRecordsItsExitCode) {
  const TempDir bin("fake-jackd");
  const std::string fake =
      bin.write("jackd", "#!/bin/sh\necho 'fake jackd: exiting' >&2\nexit 1\n");
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  const char* path = std::getenv("PATH");
  XrunlabRun r = start({"run", "--clients", "1", "--ports", "1", "--duration", "1", "--label",
                        "it-fake-jackd", "--no-plots"},
                       {{"PATH", bin.str() + ":" + (path != nullptr ? path : "/usr/bin:/bin")}});
  finish(r);
  EXPECT_EQ(r.exit_code, 4) << r.log();
  std::string run_json;
  const std::string label_dir = r.out_dir + "/it-fake-jackd";
  if (DIR* d = opendir(label_dir.c_str())) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') run_json = label_dir + "/" + e->d_name + "/run.json";
    }
    closedir(d);
  }
  ASSERT_FALSE(run_json.empty()) << r.log();
  const json j = json::parse(read_text(run_json));
  EXPECT_EQ(j["status"], "failed");
  EXPECT_EQ(j["exit_code"], 4) << "run.json said 0 for every run that failed before its window";
  expect_nothing_left(r);
}

// SIGKILL of the engine and of its janitor (what the janitor alone cleans up is
// janitor_integration_test's): its children die with it (PR_SET_PDEATHSIG), the last checkpoint
// is on disk, and whatever JACK left in /dev/shm is freed by the next run.
TEST(Integration, AKilledEngineLeavesNothingTheNextRunDoesNotClean) {
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "60", "--label", "it-kill9", "--no-plots"});
  wait_until_measuring(r);
  std::this_thread::sleep_for(2500ms);  // past the first checkpoint (1.5 s into the window)
  kill_engine_and_janitor(r);
  finish(r, 10s);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!processes_mentioning(r.server_name()).empty() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(processes_mentioning(r.server_name()), std::vector<std::string>{});
  // The checkpoint: run.json exists and says the run did not finish.
  std::string run_json;
  for (const auto& label_dir : {r.out_dir + "/it-kill9"}) {
    if (DIR* d = opendir(label_dir.c_str())) {
      while (dirent* e = readdir(d)) {
        if (e->d_name[0] != '.') run_json = label_dir + "/" + e->d_name + "/run.json";
      }
      closedir(d);
    }
  }
  const json j = json::parse(read_text_or_empty(run_json));
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_GT(j["clients"][0]["cycles"].get<int>(), 0);
  // The cycles joined before the kill are in it too, with jack_test's fields so far.
  ASSERT_TRUE(j["cycles"].is_object()) << j.dump().substr(0, 2000);
  EXPECT_GT(j["cycles"]["cycles"].get<uint64_t>(), 0u);
  EXPECT_EQ(j["jack_test"]["definitions"], "jack1-rules");

  // JACK's metadata database, as a JACK program killed inside it leaves it (locked, then; these
  // stand-in files are not, which only the lock would show): nobody has it open, so the next
  // run removes it before its first jack_client_open. Made here only if absent (not someone's).
  const std::string db = "/dev/shm/jack_db-" + std::to_string(getuid());
  if (!fs::exists(db)) {
    fs::create_directories(db);
    for (const char* f : {"__db.001", "__db.002", "__db.003", "metadata.db"}) {
      std::ofstream(db + "/" + f) << "";
    }
  }
  const bool db_in_use = !processes_mapping(db + "/").empty();

  XrunlabRun next;
  ASSERT_EQ(run_to_end({"run", "--clients", "1", "--ports", "1", "--period", "256", "--duration",
                        "1", "--label", "it-after-kill9", "--no-plots"},
                       &next),
            0)
      << next.log();
  if (!db_in_use) {
    EXPECT_NE(next.log().find("removed JACK's metadata database " + db), std::string::npos)
        << next.log();
  }
  EXPECT_EQ(shm_leftovers(r.server_name()), std::vector<std::string>{});
  expect_nothing_left(next);
}

// Bad input: one line naming the culprit, a documented exit code, nothing left running.
struct BadCase {
  std::vector<std::string> args;
  int code;
  std::string mention;
};

TEST(Integration, BadInputGivesOneLineAndTheDocumentedCode) {
  const std::vector<BadCase> cases = {
      {{"run", "--bogus"}, 2, "--bogus"},
      {{"run", "--clients", "0"}, 2, "--clients"},
      {{"run", "--duration", "-5"}, 2, "--duration"},
      {{"run", "--period", "100"}, 2, "--period"},
      {{"run", "--rate", "5"}, 2, "--rate"},
      {{"run", "--jackd", "/nonexistent/jackd", "--duration", "1"}, 3, "jackd"},
      {{"run", "--jackd", "/bin/false", "--duration", "1", "--clients", "1"}, 4, "jackd"},
      {{"run", "--client-binary", "/bin/false", "--duration", "1", "--clients", "2", "--period",
        "256"},
       5,
       "client"},
  };
  for (const BadCase& c : cases) {
    XrunlabRun r;
    EXPECT_EQ(run_to_end(c.args, &r), c.code) << r.log();
    const std::string out = r.log();
    const auto error_at = out.find("xrunlab: error: ");
    ASSERT_NE(error_at, std::string::npos) << out;
    const std::string line = out.substr(error_at, out.find('\n', error_at) - error_at);
    EXPECT_NE(line.find(c.mention), std::string::npos) << line;
    expect_nothing_left(r);
  }
}

TEST(Integration, UnwritableOutputFolder) {
  XrunlabRun r;
  r.log_path = r.out_dir + "/xrunlab.out";
  SpawnSpec spec;
  spec.argv = {XRUNLAB_BIN, "run", "--output", "/proc/xrunlab-cannot-write", "--duration", "1"};
  spec.output_path = r.log_path;
  r.child = Child::spawn(spec);
  finish(r);
  EXPECT_EQ(r.exit_code, 6) << r.log();
  EXPECT_NE(r.log().find("/proc/xrunlab-cannot-write"), std::string::npos);
  expect_nothing_left(r);
}

}  // namespace
}  // namespace xrunlab
