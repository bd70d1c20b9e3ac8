// SPDX-License-Identifier: GPL-2.0-or-later
// Integration tests of --backend: the real xrunlab binary, the real jackd and the real clients.
// vcard: jackd runs its ALSA driver on xrunlab's virtual card, and every delay is measured from
// the card's exact boundary. attach: a jackd started by the test itself stands in for the
// user's server. Assertions are on structure and on counts exact by construction, never on
// latency thresholds.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "engine/jack/monitor.hpp"
#include "engine/system/process.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using namespace std::chrono_literals;

// The whole measurement on the virtual card: ALSA driver, exact reference, low jackd CPU.
TEST(BackendVcard, FullMeasurementAgainstTheCardsBoundaries) {
  XrunlabRun r;
  // 256 frames (5.3 ms): on these noisy 2-core VMs shorter periods xrun on an idle machine.
  ASSERT_EQ(run_to_end({"run", "--backend", "vcard", "--clients", "3", "--ports", "2", "--period",
                        "256", "--duration", "4", "--label", "it-vcard", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& b = j["jack"]["backend"];
  EXPECT_EQ(b["name"], "vcard");
  EXPECT_TRUE(b["reference_exact"].get<bool>());
  EXPECT_TRUE(j["measurement"]["delay_reference_exact"].get<bool>());
  // jackd ran its real ALSA driver on the card's PCM, through the run's private ALSA config.
  const std::string jackd_log = read_text_or_empty(r.run_dir() + "/jackd.log");
  EXPECT_NE(jackd_log.find("creating alsa driver"), std::string::npos) << jackd_log;
  EXPECT_NE(jackd_log.find("xrunlab_vcard"), std::string::npos) << jackd_log;
  const auto argv = j["jack"]["jackd_argv"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(argv.begin(), argv.end(), "alsa"), argv.end());
  struct stat st {};
  EXPECT_EQ(stat((r.run_dir() + "/vcard-asound.conf").c_str(), &st), 0);
  // No spinning: a polling jackd would burn a whole core (here it is a few percent).
  ASSERT_TRUE(j["measurement"]["jackd_cpu_pct"].is_number());
  EXPECT_LT(j["measurement"]["jackd_cpu_pct"].get<double>(), 50.0);
  // The card woke jackd for every cycle the clients measured (and for the start-up's), and a
  // client measures at most one cycle per period boundary in its window.
  const json& card = b["card"];
  const double period_s = 256.0 / 48000.0;
  const double window_s = j["measurement"]["seconds_ran"].get<double>();
  // Every measured cycle of every client carried the card's marker, so every delay is
  // against an exact boundary, and every client's entry came after jackd's wake-up for that
  // boundary (a marker off by one period would break either).
  for (const json& c : j["clients"]) {
    const auto cycles = c["cycles"].get<uint64_t>();
    EXPECT_GT(cycles, 0u) << c["name"];
    EXPECT_LE(static_cast<double>(cycles), window_s / period_s + 1) << c["name"];
    EXPECT_GE(card["wakes"].get<uint64_t>(), cycles) << card.dump();
    EXPECT_EQ(c["unreferenced_cycles"].get<uint64_t>(), 0u) << c["name"];
    EXPECT_EQ(c["delay_us"]["count"].get<uint64_t>(), cycles) << c["name"];
    EXPECT_GE(c["delay_us"]["min"].get<int64_t>(), 0) << c["name"];
    EXPECT_EQ(c["signal_us"]["count"].get<uint64_t>(), cycles) << c["name"];
    EXPECT_GE(c["signal_us"]["min"].get<int64_t>(), 0) << c["name"];
    // delay = jackd's wake-up latency + the signalling time, cycle by cycle; so the smallest
    // delay is at least the smallest wake-up latency plus the smallest signalling time.
    EXPECT_GE(c["delay_us"]["min"].get<int64_t>(),
              card["wake_latency_us"]["min"].get<int64_t>() + c["signal_us"]["min"].get<int64_t>())
        << c["name"];
  }
  // The clock channel reaches every client.
  int clock_links = 0;
  for (const json& e : j["jack"]["graph"]) {
    if (e["to"].get<std::string>().find(":clock") != std::string::npos) {
      EXPECT_EQ(e["from"], "system:capture_3");
      ++clock_links;
    }
  }
  EXPECT_EQ(clock_links, 3);
  expect_nothing_left(r);
}

// Truth test: jackd stopped (SIGSTOP) twice for 150 ms. The card's own xrun record and jackd's
// log must both say exactly 2 driver xruns, and xrunlab's count must be exactly what JACK
// reported.
TEST(BackendVcard, StoppedServerXrunsAgreeExactlyAcrossTheCardJackAndXrunlab) {
  XrunlabRun r = start({"run", "--backend", "vcard", "--clients", "2", "--ports", "1", "--period",
                        "256", "--duration", "7", "--label", "it-vcard-stop", "--no-plots"});
  wait_until_measuring(r);
  const pid_t jackd = pid_of(r, "jackd");
  ASSERT_GT(jackd, 0) << r.log();
  for (int i = 0; i < 2; ++i) {
    std::this_thread::sleep_for(2s);
    ASSERT_EQ(::kill(jackd, SIGSTOP), 0);
    std::this_thread::sleep_for(150ms);
    ASSERT_EQ(::kill(jackd, SIGCONT), 0);
  }
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const json j = r.run_json();
  const json& x = j["xruns"];
  // The two stalls are driver xruns (this VM's timer noise may add one now and then, since a
  // 256-frame, 2-period buffer tolerates only 5.3 ms of lateness): the card and jackd saw the
  // same ones.
  EXPECT_GE(x["card_xruns"].get<uint64_t>(), 2u) << x.dump();
  EXPECT_EQ(x["log_driver_xruns"].get<uint64_t>(), x["card_xruns"].get<uint64_t>()) << x.dump();
  // Every xrun JACK reported reached the monitor once: the driver's two plus any client-late
  // ones this noisy VM adds (jackd's log names those), and XRUN Count is that number.
  EXPECT_TRUE(x["driver_xruns_reach_monitor"].get<bool>());
  EXPECT_GE(x["monitor_events"].get<uint64_t>(), x["log_driver_xruns"].get<uint64_t>());
  expect_xrun_counts_consistent(j);
  expect_nothing_left(r);
}

// The dummy backend stays the zero-dependency fallback: its driver xruns come from jackd's log
// only, and its reference is labelled approximate.
TEST(BackendDummy, RunsAndSaysItsReferenceIsApproximate) {
  XrunlabRun r;
  ASSERT_EQ(
      run_to_end({"run", "--backend", "dummy", "--clients", "2", "--ports", "1", "--period", "256",
                  "--duration", "3", "--inject", "8000:100", "--label", "it-dummy", "--no-plots"},
                 &r),
      0)
      << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["jack"]["backend"]["name"], "dummy");
  EXPECT_FALSE(j["measurement"]["delay_reference_exact"].get<bool>());
  EXPECT_NE(j["measurement"]["delay_reference"].get<std::string>().find("approximate"),
            std::string::npos);
  const auto argv = j["jack"]["jackd_argv"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(argv.begin(), argv.end(), "dummy"), argv.end());
  EXPECT_FALSE(j["xruns"]["driver_xruns_reach_monitor"].get<bool>());
  EXPECT_TRUE(j["xruns"]["card_xruns"].is_null());
  // --inject 8000:100 hits client 1 (the default) on every 100th callback since activation: the
  // window's run of consecutive callbacks holds floor or ceil of window/100 of them.
  const auto injected = j["totals"]["injected_overruns"].get<uint64_t>();
  const json& c1 = j["clients"][0];
  const uint64_t window = c1["cycles"].get<uint64_t>() + c1["unreferenced_cycles"].get<uint64_t>();
  EXPECT_GE(injected, window / 100) << window;
  EXPECT_LE(injected, (window + 99) / 100) << window;
  EXPECT_GE(injected, 4u) << "3 s at 187.5 cycles/s";
  EXPECT_EQ(c1["injected_overruns"].get<uint64_t>(), injected);
  // The dummy driver's own xruns reach no client: the monitor saw the client-late ones, jackd's
  // log both; XRUN Count (jack_test's: the driver's) is the log's driver xruns.
  const json& x = j["xruns"];
  expect_xrun_counts_consistent(j);
  EXPECT_EQ(j["totals"]["xrun_count"].get<uint64_t>(), x["log_driver_xruns"].get<uint64_t>());
  EXPECT_GE(x["monitor_events"].get<uint64_t>(), injected);
  expect_nothing_left(r);
}

// A jackd of the test's own stands in for the user's running server.
class AttachTest : public ::testing::Test {
 protected:
  void SetUp() override {
    name_ = "xrunlab-attachtest-" + std::to_string(::getpid());
    log_ = dir_.file("jackd.log");
    SpawnSpec s;
    s.argv = {"jackd", "-n", name_,   "-R", "-P",  "70", "-p", "256", "-d",
              "dummy", "-r", "48000", "-p", "512", "-C", "2",  "-P",  "2"};
    s.output_path = log_;
    s.env = {{"JACK_NO_AUDIO_RESERVATION", "1"}};
    jackd_ = Child::spawn(s);
    ASSERT_TRUE(probe_
                    .connect(
                        name_, 10000ms, [this] { return jackd_.running(); }, "test-probe")
                    .empty())
        << read_text_or_empty(log_);
  }
  void TearDown() override {
    probe_.close();
    jackd_.stop(1000ms);
    reclaim_stale_xrunlab_servers("/dev/shm", name_);
  }
  std::vector<std::string> ports_of_runs() {
    std::vector<std::string> found;
    if (const char** p = jack_get_ports(probe_.client(), "^xrunlab-", nullptr, 0)) {
      for (const char** q = p; *q != nullptr; ++q) found.emplace_back(*q);
      jack_free(p);
    }
    return found;
  }
  TempDir dir_{"attach"};
  std::string name_, log_;
  Child jackd_;
  Monitor probe_;
};

// A client keeps its JACK client open after its server has gone, until the engine closes its
// stdin. jackd's own close still writes to every client's socket after its shutdown notice,
// with its signals unblocked: a client that exits at the notice lets jackd die of SIGPIPE in
// its close, leaving its shared memory and JACK's metadata database (engine/run/runner_stop.cpp
// Runner::stop_all; kill9-trials found it after 7 of 34 runs that ended by themselves).
TEST_F(AttachTest, AClientOutlivesItsServerUntilItsStdinCloses) {
  const std::string name = name_ + "-c01";
  SpawnSpec s;
  s.argv = {XRUNLAB_CLIENT_BIN, "--server", name_, "--name", name, "--ports", "1", "--wait-start"};
  s.stdin_pipe = true;
  s.output_path = dir_.file("client.log");
  Child client = Child::spawn(s);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  // Active: its hello line (telemetry on stdout here) is sent after jack_activate.
  while (read_text_or_empty(s.output_path).find("\"type\":\"hello\"") == std::string::npos) {
    ASSERT_TRUE(client.running()) << read_text_or_empty(s.output_path);
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << read_text_or_empty(s.output_path);
    std::this_thread::sleep_for(20ms);
  }
  probe_.close();
  jackd_.signal(SIGTERM);
  ASSERT_TRUE(jackd_.wait_for(10000ms)) << read_text_or_empty(log_);
  // The server is gone (and told the client so); the client stays until released.
  std::this_thread::sleep_for(1000ms);
  EXPECT_TRUE(client.running()) << read_text_or_empty(s.output_path);
  client.close_stdin();
  ASSERT_TRUE(client.wait_for(5000ms)) << read_text_or_empty(s.output_path);
  EXPECT_EQ(client.describe_exit(), "exited with status 3") << read_text_or_empty(s.output_path);
  EXPECT_NE(read_text_or_empty(s.output_path).find("the JACK server shut down"), std::string::npos)
      << read_text_or_empty(s.output_path);
  // jackd's close leaves its clients' semaphores (the engine removes its runs'); this one is the
  // test's to remove.
  std::error_code ec;
  std::filesystem::remove(
      "/dev/shm/jack_sem." + std::to_string(::getuid()) + "_" + name_ + "_" + name, ec);
}

TEST_F(AttachTest, MeasuresUnderARunningServerAndLeavesItAsItWas) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--backend", "attach:" + name_, "--clients", "2", "--ports", "1",
                        "--duration", "2", "--label", "it-attach", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  EXPECT_EQ(j["jack"]["backend"]["name"], "attach");
  EXPECT_EQ(j["jack"]["server_name"], name_);
  EXPECT_TRUE(j["jack"]["jackd_argv"].empty());
  // The server's settings are taken and recorded, not chosen.
  EXPECT_EQ(j["settings"]["frames"].get<int>(), 512);
  EXPECT_EQ(j["jack"]["backend"]["server_settings"]["frames"].get<int>(), 512);
  EXPECT_TRUE(j["jack"]["backend"]["server_settings"]["realtime"].get<bool>());
  // The server's scheduling is read from its process, not assumed from --policy: this jackd
  // runs -R -P 70, so its highest realtime thread is SCHED_FIFO 70.
  const std::string label = j["scheduling"]["label"].get<std::string>();
  EXPECT_NE(label.find("attached server '" + name_ + "' (pid " + std::to_string(jackd_.pid()) +
                       "): SCHED_FIFO 70"),
            std::string::npos)
      << label;
  EXPECT_EQ(label.find("(server)"), std::string::npos) << label;
  EXPECT_NE(j["measurement"]["delay_reference"].get<std::string>().find("jack_get_cycle_times"),
            std::string::npos);
  for (const json& c : j["clients"]) {
    EXPECT_GT(c["cycles"].get<uint64_t>(), 100u) << c["name"];
    EXPECT_EQ(c["delay_us"]["count"].get<uint64_t>(), c["cycles"].get<uint64_t>());
  }
  // The user's hardware ports are not touched: the chain runs between our clients only.
  for (const json& e : j["jack"]["graph"]) {
    EXPECT_EQ(e["from"].get<std::string>().rfind("system:", 0), std::string::npos) << e.dump();
    EXPECT_EQ(e["to"].get<std::string>().rfind("system:", 0), std::string::npos) << e.dump();
  }
  // The server still runs, with nothing of ours left in it.
  EXPECT_TRUE(jackd_.running());
  EXPECT_EQ(ports_of_runs(), std::vector<std::string>{});
  EXPECT_EQ(processes_mentioning("--server " + name_), std::vector<std::string>{});  // clients
  // Our client names carry the run's own server name (made from the engine's pid), on an
  // attached server too: runs attached to one server do not collide.
  for (const json& c : j["clients"]) {
    EXPECT_EQ(c["name"], r.client_name(c["index"].get<int>())) << c["name"];
  }
}

TEST_F(AttachTest, APeriodTheServerDoesNotRunIsAUsageError) {
  XrunlabRun r;
  EXPECT_EQ(run_to_end({"run", "--backend", "attach:" + name_, "--period", "64", "--clients", "1",
                        "--duration", "1", "--no-plots"},
                       &r),
            2)
      << r.log();
  EXPECT_NE(r.log().find("512 frames"), std::string::npos) << r.log();
  EXPECT_TRUE(jackd_.running());
  EXPECT_EQ(ports_of_runs(), std::vector<std::string>{});
}

TEST(BackendBadInput, OneLineAndTheDocumentedCodeEach) {
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{"--backend", "soundblaster"}, 2, "--backend soundblaster"},
      {{"--backend", "vcard:x"}, 2, "--backend vcard:x"},
      {{"--nperiods", "1"}, 2, "--nperiods"},
      {{"--backend", "alsa:hw:7"}, 9, "hw:7"},
      {{"--backend", "alsa:no_such_pcm"}, 9, "no_such_pcm"},
      {{"--backend", "attach:xrunlab-nobody-here", "--server-timeout", "1"},
       4,
       "xrunlab-nobody-here"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run", "--clients", "1", "--duration", "1", "--no-plots"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    XrunlabRun r;
    EXPECT_EQ(run_to_end(args, &r), c.code) << r.log();
    const std::string log = r.log();
    const auto error_at = log.find("error: ");
    ASSERT_NE(error_at, std::string::npos) << log;
    const std::string line = log.substr(error_at, log.find('\n', error_at) - error_at);
    EXPECT_NE(line.find(c.needle), std::string::npos) << line;
    EXPECT_EQ(processes_mentioning(r.server_name()), std::vector<std::string>{});
    EXPECT_EQ(shm_leftovers(r.server_name()), std::vector<std::string>{});
    if (c.code != 4) {  // refused before anything was created: no run folder
      struct stat st {};
      EXPECT_NE(stat((r.out_dir + "/default").c_str(), &st), 0) << c.args[1];
    }
  }
}

}  // namespace
}  // namespace xrunlab

namespace xrunlab {
namespace {

using namespace testing_support;
using namespace std::chrono_literals;

// A card another program holds: a run on the virtual card holds it; a second run asks for the
// same PCM through the first run's ALSA configuration and must be refused, naming the device.
TEST(BackendBadInput, ACardInUseIsRefusedWithOneLine) {
  XrunlabRun holder =
      start({"run", "--backend", "vcard", "--clients", "1", "--ports", "1", "--period", "256",
             "--duration", "20", "--label", "it-holder", "--no-plots"});
  wait_until_measuring(holder);
  // The run folder is printed only at the end: find the card's configuration on disk.
  std::string conf_path;
  {
    const std::string root = holder.out_dir + "/it-holder";
    DIR* d = opendir(root.c_str());
    ASSERT_NE(d, nullptr);
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') conf_path = root + "/" + e->d_name + "/vcard-asound.conf";
    }
    closedir(d);
  }
  ASSERT_FALSE(conf_path.empty());
  XrunlabRun second = start(
      {"run", "--backend", "alsa:xrunlab_vcard", "--clients", "1", "--duration", "1", "--no-plots"},
      {{"ALSA_CONFIG_PATH", conf_path}});
  finish(second);
  EXPECT_EQ(second.exit_code, 9) << second.log();
  EXPECT_NE(second.log().find("xrunlab_vcard is in use"), std::string::npos) << second.log();
  EXPECT_EQ(processes_mentioning(second.server_name()), std::vector<std::string>{});
  ::kill(holder.child.pid(), SIGINT);
  finish(holder);
  EXPECT_EQ(holder.exit_code, 130) << holder.log();
  expect_nothing_left(holder);
}

// A broken ALSA configuration: one line naming the device, nothing started.
TEST(BackendBadInput, AnAlsaConfigErrorIsOneLine) {
  const TempDir tmp("alsa-conf");
  const std::string conf = tmp.file("broken.conf");
  {
    std::FILE* f = std::fopen(conf.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("pcm.mycard { type hw card \n", f);  // unterminated
    std::fclose(f);
  }
  XrunlabRun r =
      start({"run", "--backend", "alsa:mycard", "--clients", "1", "--duration", "1", "--no-plots"},
            {{"ALSA_CONFIG_PATH", conf}});
  finish(r);
  EXPECT_EQ(r.exit_code, 9) << r.log();
  const std::string log = r.log();
  const auto at = log.find("error: ");
  ASSERT_NE(at, std::string::npos) << log;
  const std::string line = log.substr(at, log.find('\n', at) - at);
  EXPECT_NE(line.find("mycard"), std::string::npos) << line;
  EXPECT_EQ(processes_mentioning(r.server_name()), std::vector<std::string>{});
}

}  // namespace
}  // namespace xrunlab
