// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --ping's network: a network namespace of the run's own, "xrunlab-ping-<pid>", and a veth pair
// "xlp<pid>h" (this machine's side) / "xlp<pid>n" (inside the namespace), with a /30 of
// 198.18.0.0/15 (RFC 2544's range for benchmarking, which no real network routes): this side
// .1, the namespace's side .2. The /30 follows from the engine's pid and skips any /30 that an
// address of this machine is in, so two runs at once and the machine's own networks never
// meet. The pair is made with iproute2's `ip` (argv vectors, no shell); the namespace is
// journalled (engine/sched/sys_journal.hpp "netns") before it is made, so that every exit path
// removes it: the run's own end, the janitor after a kill -9, the next start after a crash.
// Removing the namespace removes the veth pair with it. Non-realtime.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

struct PingNetwork {
  std::string netns;       // xrunlab-ping-<pid>
  std::string netns_path;  // /run/netns/<netns>
  std::string host_interface, netns_interface;
  std::string host_address, netns_address;  // dotted IPv4, without the prefix
  int prefix = 30;
};

// The network of the engine `pid`: its names, and the first /30 from pid's place in
// 198.18.0.0/15 on (wrapping around) that none of `in_use` (IPv4 addresses in host order) is in.
PingNetwork plan_ping_network(pid_t pid, const std::vector<uint32_t>& in_use);

// This machine's IPv4 addresses (getifaddrs), in host order.
std::vector<uint32_t> ipv4_addresses_in_use();

// The `ip` commands that make the pair once the namespace exists (`ip netns add` is not among
// them: it is journalled on its own), in order.
std::vector<std::vector<std::string>> ping_network_commands(const std::string& ip,
                                                            const PingNetwork& n);

// Whether this process may make the network and ping (CAP_SYS_ADMIN for the namespace,
// CAP_NET_ADMIN for the pair, CAP_NET_RAW for the socket), from /proc/self/status's CapEff: "" when
// it may, else the one-line error.
std::string ping_permission_problem(std::string_view proc_self_status);

// The nftables ruleset of --ping-drop-every N, loaded inside the namespace: every Nth echo
// request that reaches it is dropped, the first one included (numgen inc mod N 0).
std::string drop_every_ruleset(int every);

}  // namespace xrunlab
