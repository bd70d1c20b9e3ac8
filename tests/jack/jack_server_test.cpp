// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/jack_server.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>

namespace xrunlab {
namespace {

TEST(JackServer, ArgvIsPrivateRealtimeAndSizedWithTheBackendsDriver) {
  ServerSpec s;
  s.name = "xrunlab-1-0";
  s.priority = 70;
  s.clients = 14;
  s.ports = 4;
  s.driver = {"-d", "dummy", "-r", "48000"};
  const std::vector<std::string> expected = {"jackd", "-n",  "xrunlab-1-0", "-R",    "-P", "70",
                                             "-p",    "151", "-d",          "dummy", "-r", "48000"};
  EXPECT_EQ(jackd_argv(s), expected);
  s.verbose = true;
  const auto v = jackd_argv(s);
  EXPECT_EQ(v[6], "-v");  // a server option: before -p and the driver
}

TEST(JackServer, NoRealtimeWithPriorityZero) {
  ServerSpec s;
  s.name = "n";
  s.priority = 0;
  const auto argv = jackd_argv(s);
  EXPECT_EQ(argv[3], "-r");
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "-R"), 0);
}

TEST(JackServer, PortMaxCoversTheRun) {
  EXPECT_GE(port_max_for(40, 4), 40 * 4 * 2 + 8);
  EXPECT_EQ(port_max_for(1, 1), 64);
  EXPECT_LT(port_max_for(14, 4), 2048);  // far below JACK's default, which costs ~107 MB
  // The most a run asks for: every client's 2 x 4 ports and clock, the card's, the monitor's.
  EXPECT_EQ(port_max_for(253, 4), 253 * 9 + 9 + 16);
  EXPECT_GT(port_max_for(253, 64), kJackPortMax);  // run_options refuses it before jackd would
}

TEST(JackServer, NamesArePrivateAndDistinct) {
  const std::string a = private_server_name(), b = private_server_name();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind("xrunlab-", 0), 0u);
}

}  // namespace
// How jackd ended when it was stopped: its own exit or the SIGTERM say nothing; any other
// signal (a crash while closing, our SIGKILL after the grace) is one line naming it.
TEST(JackdStopProblem, OnlyADeathBySignalOtherThanSigtermIsAProblem) {
  auto exited = [](int code) { return code << 8; };  // as waitpid reports an exit(code)
  EXPECT_EQ(jackd_stop_problem(exited(0)), "");
  EXPECT_EQ(jackd_stop_problem(exited(1)), "");
  EXPECT_EQ(jackd_stop_problem(SIGTERM), "");
  const std::string crash = jackd_stop_problem(SIGSEGV);
  EXPECT_EQ(crash.rfind("jackd died of signal 11 (", 0), 0u) << crash;
  EXPECT_NE(crash.find("while stopping"), std::string::npos) << crash;
  EXPECT_NE(crash.find("metadata database"), std::string::npos) << crash;
  const std::string killed = jackd_stop_problem(SIGKILL);
  EXPECT_EQ(killed.rfind("jackd was killed by signal 9 (", 0), 0u) << killed;
  EXPECT_NE(killed.find("1 s after SIGTERM"), std::string::npos) << killed;
  const std::string soon = jackd_stop_problem(SIGKILL, 300);  // interrupted in its start-up
  EXPECT_NE(soon.find("ended 300 ms after SIGTERM"), std::string::npos) << soon;
}

}  // namespace xrunlab
