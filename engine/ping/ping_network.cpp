// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/ping/ping_network.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>

#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kBase = (198u << 24) | (18u << 16);  // 198.18.0.0
constexpr uint32_t kSubnets = 1u << 15;                 // /30s in a /15

std::string dotted(uint32_t a) {
  return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff);
}

}  // namespace

PingNetwork plan_ping_network(pid_t pid, const std::vector<uint32_t>& in_use) {
  PingNetwork n;
  n.netns = fmt::format("xrunlab-ping-{}", pid);
  n.netns_path = "/run/netns/" + n.netns;
  // IFNAMSIZ: 15 characters; a pid has at most 7 digits (pid_max <= 4194304).
  n.host_interface = fmt::format("xlp{}h", pid);
  n.netns_interface = fmt::format("xlp{}n", pid);
  const auto first = static_cast<uint32_t>(pid) % kSubnets;
  uint32_t subnet = kBase + first * 4;
  for (uint32_t k = 0; k < kSubnets; ++k) {
    subnet = kBase + ((first + k) % kSubnets) * 4;
    const bool taken =
        std::any_of(in_use.begin(), in_use.end(), [&](uint32_t a) { return (a & ~3u) == subnet; });
    if (!taken) break;
  }
  n.host_address = dotted(subnet + 1);
  n.netns_address = dotted(subnet + 2);
  return n;
}

std::vector<uint32_t> ipv4_addresses_in_use() {
  std::vector<uint32_t> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    sockaddr_in in{};
    std::copy_n(
        reinterpret_cast<const char*>(i->ifa_addr), sizeof in,
        reinterpret_cast<char*>(&in));  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    out.push_back(ntohl(in.sin_addr.s_addr));
  }
  ::freeifaddrs(list);
  return out;
}

std::string ping_permission_problem(std::string_view proc_self_status) {
  constexpr int kCapNetAdmin = 12, kCapNetRaw = 13, kCapSysAdmin = 21;
  uint64_t caps = 0;
  if (const auto hex = key_value(proc_self_status, "CapEff")) {
    const auto r = std::from_chars(hex->data(), hex->data() + hex->size(), caps, 16);
    if (r.ec != std::errc()) caps = 0;
  }
  for (const int bit : {kCapNetAdmin, kCapNetRaw, kCapSysAdmin}) {
    if (((caps >> bit) & 1U) == 0) {
      return "--ping: the run's network namespace, its veth pair and the raw ICMP socket need "
             "root (CAP_SYS_ADMIN, CAP_NET_ADMIN, CAP_NET_RAW): run xrunlab with sudo, or leave "
             "--ping out";
    }
  }
  return "";
}

std::vector<std::vector<std::string>> ping_network_commands(const std::string& ip,
                                                            const PingNetwork& n) {
  const std::string host_cidr = fmt::format("{}/{}", n.host_address, n.prefix);
  const std::string netns_cidr = fmt::format("{}/{}", n.netns_address, n.prefix);
  return {
      {ip, "link", "add", n.host_interface, "type", "veth", "peer", "name", n.netns_interface,
       "netns", n.netns},
      {ip, "addr", "add", host_cidr, "dev", n.host_interface},
      {ip, "link", "set", n.host_interface, "up"},
      {ip, "-n", n.netns, "addr", "add", netns_cidr, "dev", n.netns_interface},
      {ip, "-n", n.netns, "link", "set", n.netns_interface, "up"},
      {ip, "-n", n.netns, "link", "set", "lo", "up"},
  };
}

std::string drop_every_ruleset(int every) {
  return fmt::format(
      "# --ping-drop-every {0}: every {0}th echo request into this namespace is dropped\n"
      "table inet xrunlab_ping {{\n"
      "  chain input {{\n"
      "    type filter hook input priority 0; policy accept;\n"
      "    icmp type echo-request numgen inc mod {0} 0 drop\n"
      "  }}\n"
      "}}\n",
      every);
}

}  // namespace xrunlab
