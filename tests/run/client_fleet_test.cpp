// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/client_fleet.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace xrunlab {
namespace {

FleetSpec three_clients() {
  FleetSpec f;
  f.binary = "/opt/xrunlab-client";
  f.common.server = "xrunlab-1-0";
  f.common.ports = 2;
  f.name_prefix = "xrunlab-";
  f.run_dir = "/tmp/run";
  f.clients = 3;
  f.dsp_load_pct = 30;
  return f;
}

bool has(const std::vector<std::string>& argv, const std::vector<std::string>& run) {
  return std::search(argv.begin(), argv.end(), run.begin(), run.end()) != argv.end();
}

TEST(ClientName, TwoDigitIndexAfterThePrefix) {
  EXPECT_EQ(client_name("xrunlab-", 7), "xrunlab-c07");
  EXPECT_EQ(client_name("xrunlab-123-", 14), "xrunlab-123-c14");
}

TEST(ClientArgs, EachClientHasItsNameIndexAndShareOfTheDspLoad) {
  const FleetSpec f = three_clients();
  const ClientArgs a = client_args(f, 2);
  EXPECT_EQ(a.server, "xrunlab-1-0");
  EXPECT_EQ(a.name, "xrunlab-c02");
  EXPECT_EQ(a.index, 2);
  EXPECT_EQ(a.ports, 2);
  EXPECT_DOUBLE_EQ(a.dsp_load_pct, 10.0);
  EXPECT_EQ(a.telemetry_fd, 3);
  EXPECT_TRUE(a.wait_start);
  EXPECT_FALSE(a.sched_target.has_value());  // --priority 0: nothing to set
  EXPECT_FALSE(a.check_port);
  EXPECT_FALSE(a.inject.has_value());
}

TEST(ClientArgs, TheAudibleChainHasAHeadAndATail) {
  FleetSpec f = three_clients();
  f.audio_check = true;
  f.record_dir = "/tmp/run/audio";
  const ClientArgs head = client_args(f, 1), middle = client_args(f, 2), tail = client_args(f, 3);
  EXPECT_TRUE(head.check_port && head.source && !head.sink);
  EXPECT_TRUE(middle.check_port && !middle.source && !middle.sink);
  EXPECT_TRUE(tail.check_port && !tail.source && tail.sink);
  EXPECT_EQ(tail.record_dir, "/tmp/run/audio");
  EXPECT_EQ(head.record_dir, "");
}

TEST(ClientArgs, OnlyTheInjectClientOverruns) {
  FleetSpec f = three_clients();
  f.inject = InjectSpec{8000, 100};
  f.inject_client = 3;
  EXPECT_FALSE(client_args(f, 1).inject.has_value());
  ASSERT_TRUE(client_args(f, 3).inject.has_value());
  EXPECT_EQ(*client_args(f, 3).inject, (InjectSpec{8000, 100}));
}

TEST(ClientArgv, TheBinaryThenWhatTheClientParsesBackExactly) {
  FleetSpec f = three_clients();
  ThreadTarget t;
  t.policy = kSchedFifo;
  t.rt_priority = 65;
  f.common.sched_target = t;
  f.common.reference = ClientReference::kCard;
  f.common.clock_port = true;
  f.common.card_shm = "/xrunlab-vcard-x";
  f.audio_check = true;
  f.inject = InjectSpec{8000, 100};
  f.inject_client = 3;
  for (int i = 1; i <= 3; ++i) {
    const std::vector<std::string> argv = client_argv(f, i);
    ASSERT_FALSE(argv.empty());
    EXPECT_EQ(argv.front(), "/opt/xrunlab-client");
    std::vector<const char*> c;
    for (const std::string& s : argv) c.push_back(s.c_str());
    std::string error;
    int code = -1;
    const auto parsed = parse_client_args(static_cast<int>(c.size()), c.data(), &error, &code);
    ASSERT_TRUE(parsed.has_value()) << error;
    EXPECT_EQ(*parsed, client_args(f, i)) << i;
    EXPECT_TRUE(has(argv, {"--sched-target", "FIFO:65"}));
  }
}

}  // namespace
}  // namespace xrunlab
