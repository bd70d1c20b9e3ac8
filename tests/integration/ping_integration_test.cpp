// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab run --ping` with the real jackd, clients, kernel network stack and nftables: the echo
// requests cross a veth pair into the run's own network namespace, an nftables rule there drops
// every 5th one, so the loss is exact by construction (ceil(sent / 5)); the namespace and the
// pair are gone after the run and after a kill -9 of the engine (the janitor); bad input gets one
// line before anything starts.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/system/process.hpp"
#include "tests/support/run_harness.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab::testing_support {
namespace {

bool path_exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

// The interface exists in this (the root) network namespace.
bool interface_exists(const std::string& name) {
  return path_exists("/sys/class/net/" + name);
}

// Waits up to 5 s for the kernel to free the namespace's pair (namespace cleanup runs in a
// work queue, after the namespace's last reference went).
bool gone_within_5s(const std::string& interface) {
  for (int i = 0; i < 500 && interface_exists(interface); ++i) {
    std::this_thread::sleep_for(10ms);
  }
  return !interface_exists(interface);
}

std::string netns_of(pid_t engine) {
  return "/run/netns/xrunlab-ping-" + std::to_string(engine);
}
std::string interface_of(pid_t engine) {
  return "xlp" + std::to_string(engine) + "h";
}

TEST(Ping, EveryFifthRequestDroppedByTheRuleIsExactlyTheLossAndNothingIsLeft) {
  if (::geteuid() != 0) GTEST_SKIP() << "--ping needs root";
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "4", "--no-plots", "--ping", "--ping-drop-every", "5"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& p = j["ping"];
  ASSERT_TRUE(p.is_object()) << j.dump();
  ASSERT_FALSE(p.contains("error")) << p.dump();
  EXPECT_EQ(p["rate_hz"], 100);
  EXPECT_EQ(p["count_planned"], 400) << "100/s through a 4 s window";
  EXPECT_EQ(p["drop_every"], 5);
  const uint64_t sent = p["sent"];
  EXPECT_GT(sent, 300u) << "the requests went out through the window";
  EXPECT_LE(sent, 400u);
  EXPECT_EQ(p["lost"].get<uint64_t>(), (sent + 4) / 5)
      << "the rule drops the 1st, 6th, 11th ... request: ceil(sent / 5), nothing else lost";
  EXPECT_EQ(p["expected_lost"], p["lost"]);
  EXPECT_EQ(p["received"].get<uint64_t>() + p["lost"].get<uint64_t>(), sent);
  EXPECT_EQ(p["duplicates"], 0);
  EXPECT_TRUE(p["rtt_p99_us"].is_number()) << p.dump();
  EXPECT_EQ(p["target"].get<std::string>().rfind("198.1", 0), 0u) << "the benchmarking range";
  EXPECT_EQ(j["spec"]["ping_rate_hz"], 100);
  EXPECT_EQ(j["spec"]["ping_drop_every"], 5);
  // ping.csv: a header and one row per request; the dropped ones have no round trip.
  const std::string csv = read_text_or_empty(r.run_dir() + "/ping.csv");
  EXPECT_EQ(static_cast<uint64_t>(std::count(csv.begin(), csv.end(), '\n')), sent + 1);
  EXPECT_EQ(csv.find("0,0.000000,"), csv.find('\n') + 1) << "request 0 first";
  EXPECT_NE(csv.find(",,0\n"), std::string::npos) << "a dropped request: no answer";
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(" Ping (--ping) . . . . . . . . : " + std::to_string(sent) + " sent, " +
                         std::to_string((sent + 4) / 5) + " lost"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("(as expected)"), std::string::npos) << summary;
  EXPECT_FALSE(path_exists(netns_of(r.child.pid()))) << "the namespace outlived the run";
  EXPECT_TRUE(gone_within_5s(interface_of(r.child.pid()))) << "the veth pair outlived the run";
  expect_nothing_left(r);
}

TEST(Ping, TheJanitorRemovesTheNamespaceOfAKilledEngine) {
  if (::geteuid() != 0) GTEST_SKIP() << "--ping needs root";
  XrunlabRun r = start({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "60", "--no-plots", "--ping", "--label", "ping-killed"});
  wait_until_measuring(r);
  const pid_t engine = r.child.pid();
  ASSERT_TRUE(path_exists(netns_of(engine))) << r.log();
  ASSERT_TRUE(interface_exists(interface_of(engine)));
  r.child.signal(SIGKILL);
  finish(r);
  // The janitor sees the engine die and restores its journal: the namespace goes with it.
  for (int i = 0; i < 500 && path_exists(netns_of(engine)); ++i) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_FALSE(path_exists(netns_of(engine))) << "the janitor left the namespace";
  for (int i = 0; i < 1000 && janitor_of(engine) != -1; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(gone_within_5s(interface_of(engine)));
  // A killed run prints no "Results:" line: its folder is the only one under its label.
  std::string dir;
  for (const auto& e : std::filesystem::directory_iterator(r.out_dir + "/ping-killed")) {
    dir = e.path().string();
  }
  EXPECT_NE(read_text_or_empty(dir + "/janitor.log")
                .find("removed the network namespace left by the killed engine"),
            std::string::npos)
      << read_text_or_empty(dir + "/janitor.log");
  expect_nothing_left(r);
}

TEST(Ping, BadInputGetsOneLineBeforeAnythingStarts) {
  struct Case {
    std::vector<std::string> args;
    int code;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--ping", "--ping-rate", "0"}, 2, "--ping-rate 0: must be 1..1000"},
      {{"--ping", "--ping-rate", "fast"}, 2, "--ping-rate"},
      {{"--ping", "--ping-drop-every", "1"}, 2, "--ping-drop-every 1: must be 2..1000"},
      {{"--ping-rate", "50"}, 2, "--ping"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"run", "--duration", "1"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    XrunlabRun r;
    EXPECT_EQ(run_to_end(args, &r), c.code) << r.log();
    EXPECT_NE(r.log().find(c.says), std::string::npos) << r.log();
    EXPECT_EQ(r.log().find("started jackd"), std::string::npos) << r.log();
  }
}

TEST(Ping, AMissingIpIsNamedWithItsPackage) {
  const TempDir empty("empty-path");
  XrunlabRun r = start({"run", "--jackd", "/usr/bin/jackd", "--duration", "1", "--ping"},
                       {{"PATH", empty.str()}});
  finish(r);
  EXPECT_EQ(r.exit_code, 3) << r.log();
  EXPECT_NE(r.log().find("--ping: ip not found: install iproute2"), std::string::npos) << r.log();
  EXPECT_EQ(r.log().find("started jackd"), std::string::npos) << r.log();
}

TEST(Ping, WithoutRootItIsRefusedInOneLine) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no setpriv (util-linux)";
  TempDir dir("ping-nobody");
  ::chmod(dir.str().c_str(), 0777);
  SpawnSpec spec;
  spec.argv = {"/usr/bin/setpriv",
               "--reuid=nobody",
               "--regid=nogroup",
               "--clear-groups",
               XRUNLAB_BIN,
               "run",
               "--priority",
               "0",
               "--duration",
               "1",
               "--output",
               dir.str(),
               "--ping"};
  spec.output_path = dir.file("out.txt");
  Child c = Child::spawn(spec);
  ASSERT_TRUE(c.wait_for(60s));
  const int status = *c.wait_status();
  const std::string out = read_text_or_empty(spec.output_path);
  ASSERT_TRUE(WIFEXITED(status)) << out;
  EXPECT_EQ(WEXITSTATUS(status), 7) << out;
  EXPECT_NE(out.find("--ping: the run's network namespace, its veth pair and the raw ICMP socket "
                     "need root"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("started jackd"), std::string::npos) << out;
}

}  // namespace
}  // namespace xrunlab::testing_support
