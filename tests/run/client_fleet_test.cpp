#include "engine/run/client_fleet.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace xrunlab {
namespace {

FleetSpec three_clients() {
  FleetSpec f;
  f.binary = "/opt/xrunlab-client";
  f.server = "xrunlab-1-0";
  f.name_prefix = "xrunlab-";
  f.run_dir = "/tmp/run";
  f.clients = 3;
  f.ports = 2;
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

TEST(ClientArgv, TheCommonPartSplitsTheDspLoad) {
  const std::vector<std::string> argv = client_argv(three_clients(), 2);
  EXPECT_EQ(argv.front(), "/opt/xrunlab-client");
  EXPECT_TRUE(has(argv, {"--server", "xrunlab-1-0"}));
  EXPECT_TRUE(has(argv, {"--name", "xrunlab-c02"}));
  EXPECT_TRUE(has(argv, {"--index", "2"}));
  EXPECT_TRUE(has(argv, {"--ports", "2"}));
  EXPECT_TRUE(has(argv, {"--dsp-load", "10.000000"}));
  EXPECT_TRUE(has(argv, {"--telemetry-fd", "3", "--wait-start"}));
  EXPECT_TRUE(has(argv, {"--reference", "frames"}));
  EXPECT_FALSE(has(argv, {"--sched-target"}));  // --priority 0: nothing to set
  EXPECT_FALSE(has(argv, {"--check-port"}));
}

TEST(ClientArgv, TheAudibleChainHasAHeadAndATail) {
  FleetSpec f = three_clients();
  f.audio_check = true;
  f.record_dir = "/tmp/run/audio";
  EXPECT_TRUE(has(client_argv(f, 1), {"--check-port", "--source"}));
  EXPECT_FALSE(has(client_argv(f, 2), {"--source"}));
  EXPECT_FALSE(has(client_argv(f, 2), {"--sink"}));
  EXPECT_TRUE(has(client_argv(f, 2), {"--check-port"}));
  EXPECT_TRUE(has(client_argv(f, 3), {"--check-port", "--sink", "--record-dir", "/tmp/run/audio"}));
}

TEST(ClientArgv, PolicyBackendAndInjectionGoToTheRightClients) {
  FleetSpec f = three_clients();
  ThreadTarget t;
  t.policy = kSchedFifo;
  t.rt_priority = 65;
  f.sched_target = t;
  f.reference = DelayReference::kCardBoundary;
  f.backend_args = {"--clock-port", "--card-shm", "/xrunlab-vcard-x"};
  f.inject = InjectSpec{8000, 100};
  f.inject_client = 3;
  for (int i = 1; i <= 3; ++i) {
    const std::vector<std::string> argv = client_argv(f, i);
    EXPECT_TRUE(has(argv, {"--sched-target", "FIFO:65"}));
    EXPECT_TRUE(has(argv, {"--reference", "card"}));
    EXPECT_TRUE(has(argv, {"--clock-port", "--card-shm", "/xrunlab-vcard-x"}));
    EXPECT_EQ(has(argv, {"--inject-overrun", "8000:100"}), i == 3) << i;
  }
}

}  // namespace
}  // namespace xrunlab
