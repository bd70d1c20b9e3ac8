// SPDX-License-Identifier: GPL-2.0-or-later
// --backend pipewire end to end: the engine starts a private headless PipeWire (its own
// runtime folder and socket, the Dummy-Driver, no D-Bus, no session manager), runs real
// xrunlab-client processes through PipeWire's libjack, and stops the daemon and removes its
// folder on every way out. CI installs pipewire and pipewire-jack (scripts/setup.sh), so the
// skip below only spares a machine set up without them. Assertions are on structure and on
// values exact by construction (the quantum and rate asked for, read back), never on latency.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "engine/system/process.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using namespace std::chrono_literals;

bool pipewire_missing() {
  return !find_program("pipewire").has_value();
}

TEST(PipewireBackend, RunsTheClientsUnderAPrivateDaemonAndRecordsWhatItRead) {
  if (pipewire_missing()) {
    GTEST_SKIP() << "the pipewire program is not installed (scripts/setup.sh installs pipewire "
                    "and pipewire-jack, as CI does)";
  }
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--backend", "pipewire", "--clients", "2", "--ports", "1",
                        "--period", "256", "--rate", "48000", "--duration", "3", "--label",
                        "it-pipewire", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& b = j["jack"]["backend"];
  EXPECT_EQ(b["name"], "pipewire");
  EXPECT_EQ(j["jack"]["server_name"], r.server_name());
  EXPECT_EQ(b["socket"], r.server_name());
  EXPECT_FALSE(b["version"].get<std::string>().empty()) << b.dump();
  // The engine's own libjack was PipeWire's (the re-execution), not JACK2's.
  EXPECT_NE(b["libjack"].get<std::string>().find("/pipewire-0.3/jack/libjack.so"),
            std::string::npos)
      << b.dump();
  // The quantum and rate asked for, and the ones read back through the JACK API.
  EXPECT_EQ(b["quantum_requested"].get<int>(), 256);
  EXPECT_EQ(b["rate_requested"].get<int>(), 48000);
  EXPECT_EQ(j["settings"]["frames"].get<int>(), 256);
  EXPECT_EQ(j["settings"]["rate_hz"].get<int>(), 48000);
  // The data loop as the kernel had it: a class and a priority for each thread, and the label
  // says that, not a policy target for a server that xrunlab did not schedule itself.
  ASSERT_TRUE(b["data_loop_threads"].is_array()) << b.dump();
  ASSERT_FALSE(b["data_loop_threads"].empty()) << b.dump();
  for (const json& t : b["data_loop_threads"]) {
    EXPECT_EQ(t["pid"], b["pid"]) << t.dump();
    EXPECT_EQ(t["class"].get<std::string>().rfind("SCHED_", 0), 0u) << t.dump();
    EXPECT_TRUE(t["priority"].is_number_integer()) << t.dump();
  }
  const std::string label = j["scheduling"]["label"].get<std::string>();
  EXPECT_NE(label.find("PipeWire data loop (pid " + std::to_string(b["pid"].get<int>())),
            std::string::npos)
      << label;
  EXPECT_NE(label.find("(read from the kernel)"), std::string::npos) << label;
  // The config in the run folder is the one the daemon ran.
  EXPECT_EQ(b["config"], r.run_dir() + "/pipewire.conf");
  const std::string conf = read_text_or_empty(r.run_dir() + "/pipewire.conf");
  EXPECT_NE(conf.find("support.dbus = false"), std::string::npos) << conf;
  EXPECT_NE(conf.find("default.clock.quantum = 256"), std::string::npos) << conf;
  // Every client ran cycles under it.
  ASSERT_EQ(j["clients"].size(), 2u);
  for (const json& c : j["clients"]) EXPECT_GT(c["cycles"].get<uint64_t>(), 0u) << c["name"];
  // The Dummy-Driver has no system ports: the chain runs between our clients only.
  for (const json& e : j["jack"]["graph"]) {
    EXPECT_EQ(e["from"].get<std::string>().rfind("system:", 0), std::string::npos) << e.dump();
  }
  expect_nothing_left(r);
}

// --priority 0: nothing realtime, although PipeWire's libjack makes every client's thread
// SCHED_FIFO on its own (its jack.conf loads module-rt); the daemon runs without module-rt.
TEST(PipewireBackend, WithoutRealtimeNoAudioThreadIsRealtime) {
  if (pipewire_missing()) {
    GTEST_SKIP() << "the pipewire program is not installed (scripts/setup.sh installs it)";
  }
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--backend", "pipewire", "--priority", "0", "--clients", "2",
                        "--ports", "1", "--period", "256", "--duration", "2", "--label",
                        "it-pipewire-p0", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& b = j["jack"]["backend"];
  EXPECT_TRUE(b["rt_module"].is_null()) << b.dump();
  EXPECT_EQ(read_text_or_empty(b["config"].get<std::string>()).find("module-rt"),
            std::string::npos);
  ASSERT_FALSE(b["data_loop_threads"].empty()) << b.dump();
  for (const json& t : b["data_loop_threads"]) EXPECT_EQ(t["class"], "SCHED_OTHER") << t.dump();
  ASSERT_EQ(j["scheduling"]["threads_start"].size(), 2u);
  for (const json& t : j["scheduling"]["threads_start"]) {
    EXPECT_EQ(t["policy"], "SCHED_OTHER") << t.dump();
    EXPECT_TRUE(t["in_requested_class"].get<bool>()) << t.dump();
  }
  expect_nothing_left(r);
}

TEST(PipewireBackend, SigtermStopsTheDaemonAndRemovesItsFolder) {
  if (pipewire_missing()) {
    GTEST_SKIP() << "the pipewire program is not installed (scripts/setup.sh installs it)";
  }
  XrunlabRun r =
      start({"run", "--backend", "pipewire", "--clients", "2", "--ports", "1", "--period", "256",
             "--duration", "30", "--label", "it-pipewire-term", "--no-plots"});
  wait_until_measuring(r);
  ASSERT_NE(r.log().find("measuring"), std::string::npos) << r.log();
  ::kill(r.child.pid(), SIGTERM);
  finish(r);
  EXPECT_EQ(r.exit_code, 130) << r.log();
  EXPECT_EQ(r.run_json()["status"], "interrupted");
  expect_nothing_left(r);
}

TEST(PipewireBackend, ADaemonThatDiesFailsTheRunAndLeavesNothing) {
  if (pipewire_missing()) {
    GTEST_SKIP() << "the pipewire program is not installed (scripts/setup.sh installs it)";
  }
  XrunlabRun r =
      start({"run", "--backend", "pipewire", "--clients", "2", "--ports", "1", "--period", "256",
             "--duration", "30", "--label", "it-pipewire-kill", "--no-plots"});
  wait_until_measuring(r);
  ASSERT_NE(r.log().find("measuring"), std::string::npos) << r.log();
  // The daemon's pid from the engine's own line ("started pipewire (server '...', pid N)").
  const std::string log = r.log();
  const auto at = log.find("started pipewire (server");
  ASSERT_NE(at, std::string::npos) << log;
  const auto pid_at = log.find("pid ", at);
  const pid_t daemon = static_cast<pid_t>(std::stol(log.substr(pid_at + 4)));
  ASSERT_GT(daemon, 0);
  ::kill(daemon, SIGKILL);
  finish(r);
  EXPECT_EQ(r.exit_code, 1) << r.log();
  EXPECT_EQ(r.run_json()["status"], "failed") << r.log();
  expect_nothing_left(r);
}

}  // namespace
}  // namespace xrunlab
