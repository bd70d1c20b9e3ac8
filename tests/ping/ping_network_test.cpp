// SPDX-License-Identifier: GPL-2.0-or-later
// --ping's network on paper: its names, its /30 of 198.18.0.0/15 away from the machine's own
// addresses, the commands that make it, the drop rule, and who may make it.
#include "engine/ping/ping_network.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace xrunlab {
namespace {

constexpr uint32_t ip4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return a << 24 | b << 16 | c << 8 | d;
}

TEST(PingNetwork, NamesFollowTheEnginesPidAndFitIfnamsiz) {
  const PingNetwork n = plan_ping_network(4194304, {});
  EXPECT_EQ(n.netns, "xrunlab-ping-4194304");
  EXPECT_EQ(n.netns_path, "/run/netns/xrunlab-ping-4194304");
  EXPECT_EQ(n.host_interface, "xlp4194304h");
  EXPECT_EQ(n.netns_interface, "xlp4194304n");
  EXPECT_LE(n.host_interface.size(), 15u) << "IFNAMSIZ is 16 with the terminating zero";
  EXPECT_EQ(n.prefix, 30);
}

TEST(PingNetwork, TakesThePidsSlashThirtyOfTheBenchmarkingRange) {
  // pid 1: the second /30 of 198.18.0.0/15.
  const PingNetwork one = plan_ping_network(1, {});
  EXPECT_EQ(one.host_address, "198.18.0.5");
  EXPECT_EQ(one.netns_address, "198.18.0.6");
  // 32767: the last /30 of 198.19.255.252.
  const PingNetwork last = plan_ping_network(32767, {});
  EXPECT_EQ(last.host_address, "198.19.255.253");
  EXPECT_EQ(last.netns_address, "198.19.255.254");
  // 32768 wraps to the first.
  EXPECT_EQ(plan_ping_network(32768, {}).host_address, "198.18.0.1");
}

TEST(PingNetwork, SkipsASlashThirtyThisMachineHasAnAddressIn) {
  const PingNetwork n =
      plan_ping_network(1, {ip4(10, 0, 0, 1), ip4(198, 18, 0, 6), ip4(198, 18, 0, 8)});
  EXPECT_EQ(n.host_address, "198.18.0.13") << "198.18.0.4/30 and .8/30 are taken";
  // The last /30 taken: the search wraps around to the first.
  EXPECT_EQ(plan_ping_network(32767, {ip4(198, 19, 255, 254)}).host_address, "198.18.0.1");
}

TEST(PingNetwork, CommandsMakeThePairWithOneEndInTheNamespace) {
  const PingNetwork n = plan_ping_network(77, {});
  const auto commands = ping_network_commands("/usr/sbin/ip", n);
  ASSERT_EQ(commands.size(), 6u);
  EXPECT_EQ(commands[0],
            (std::vector<std::string>{"/usr/sbin/ip", "link", "add", "xlp77h", "type", "veth",
                                      "peer", "name", "xlp77n", "netns", "xrunlab-ping-77"}));
  EXPECT_EQ(commands[1], (std::vector<std::string>{"/usr/sbin/ip", "addr", "add",
                                                   n.host_address + "/30", "dev", "xlp77h"}));
  EXPECT_EQ(commands[3],
            (std::vector<std::string>{"/usr/sbin/ip", "-n", "xrunlab-ping-77", "addr", "add",
                                      n.netns_address + "/30", "dev", "xlp77n"}));
  for (const auto& c : commands) {
    for (const std::string& word : c) {
      EXPECT_EQ(word.find(' '), std::string::npos) << "one word per argument, no shell";
    }
  }
}

TEST(PingNetwork, TheDropRuleDropsEveryNthEchoRequestOnly) {
  const std::string rules = drop_every_ruleset(5);
  EXPECT_NE(rules.find("icmp type echo-request numgen inc mod 5 0 drop"), std::string::npos)
      << rules;
  EXPECT_NE(rules.find("hook input"), std::string::npos) << rules;
  EXPECT_NE(rules.find("policy accept"), std::string::npos) << "nothing else is dropped";
}

TEST(PingNetwork, NeedsSysAdminNetAdminAndNetRaw) {
  EXPECT_EQ(ping_permission_problem("Name:\tx\nCapEff:\t000001ffffffffff\n"), "");
  // All three bits: 12 (NET_ADMIN), 13 (NET_RAW), 21 (SYS_ADMIN).
  EXPECT_EQ(ping_permission_problem("CapEff:\t0000000000203000\n"), "");
  for (const char* caps :
       {"0000000000000000", "0000000000003000", "0000000000202000", "0000000000201000"}) {
    const std::string problem = ping_permission_problem(std::string("CapEff:\t") + caps + "\n");
    EXPECT_NE(problem.find("--ping: "), std::string::npos) << caps;
    EXPECT_NE(problem.find("sudo"), std::string::npos) << caps;
    EXPECT_EQ(problem.find('\n'), std::string::npos) << "one line";
  }
  EXPECT_NE(ping_permission_problem(""), "") << "unreadable: refused, not assumed";
}

}  // namespace
}  // namespace xrunlab
