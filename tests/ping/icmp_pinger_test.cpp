// SPDX-License-Identifier: GPL-2.0-or-later
// The pinger's packets: the echo request it sends and the answers it reads back.
#include "engine/ping/icmp_pinger.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace xrunlab {
namespace {

TEST(IcmpChecksum, MatchesRfc1071sWorkedExample) {
  // RFC 1071, 3.: the bytes 00 01 f2 03 f4 f5 f6 f7 sum to ddf2; the checksum is its complement.
  const std::vector<uint8_t> bytes = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(icmp_checksum(bytes.data(), bytes.size()), 0x220d);
  // An odd length pads with a zero byte.
  const std::vector<uint8_t> odd = {0x01};
  EXPECT_EQ(icmp_checksum(odd.data(), odd.size()), 0xfeff);
}

TEST(EchoRequest, CarriesItsIdAndSequenceAndChecksumsToZero) {
  const std::vector<uint8_t> p = echo_request(0x1234, 0xabcd);
  ASSERT_EQ(p.size(), 64u);
  EXPECT_EQ(p[0], 8) << "type: echo request";
  EXPECT_EQ(p[1], 0);
  EXPECT_EQ(p[4], 0x12);
  EXPECT_EQ(p[5], 0x34);
  EXPECT_EQ(p[6], 0xab);
  EXPECT_EQ(p[7], 0xcd);
  // A packet with its checksum in place sums to 0xffff: its checksum over it is 0.
  EXPECT_EQ(icmp_checksum(p.data(), p.size()), 0);
}

// An IPv4 header of `ihl` 32-bit words, then the ICMP message `icmp`.
std::vector<uint8_t> ipv4_packet(const std::vector<uint8_t>& icmp, int ihl = 5) {
  std::vector<uint8_t> p(static_cast<size_t>(ihl) * 4, 0);
  p[0] = static_cast<uint8_t>(0x40 | ihl);
  p[9] = 1;  // protocol ICMP
  p.insert(p.end(), icmp.begin(), icmp.end());
  return p;
}

TEST(ParseEchoReply, ReadsIdAndSequenceAfterTheIpHeaderWhateverItsLength) {
  std::vector<uint8_t> reply = echo_request(7, 513);
  reply[0] = 0;  // echo reply
  for (const int ihl : {5, 6, 15}) {
    const std::vector<uint8_t> p = ipv4_packet(reply, ihl);
    const auto r = parse_echo_reply(p.data(), p.size());
    ASSERT_TRUE(r.has_value()) << "ihl " << ihl;
    EXPECT_EQ(r->id, 7);
    EXPECT_EQ(r->seq, 513);
  }
}

TEST(ParseEchoReply, RefusesWhatIsNotAnEchoReply) {
  const std::vector<uint8_t> request = ipv4_packet(echo_request(7, 1));
  EXPECT_FALSE(parse_echo_reply(request.data(), request.size())) << "a request, not a reply";
  std::vector<uint8_t> unreachable = echo_request(7, 1);
  unreachable[0] = 3;
  const std::vector<uint8_t> u = ipv4_packet(unreachable);
  EXPECT_FALSE(parse_echo_reply(u.data(), u.size()));
  std::vector<uint8_t> reply = echo_request(7, 1);
  reply[0] = 0;
  std::vector<uint8_t> p = ipv4_packet(reply);
  EXPECT_FALSE(parse_echo_reply(p.data(), 27)) << "cut short of the ICMP header";
  p[0] = 0x65;  // IPv6's version nibble
  EXPECT_FALSE(parse_echo_reply(p.data(), p.size()));
  p[0] = 0x44;  // an IPv4 header length below 20 bytes
  EXPECT_FALSE(parse_echo_reply(p.data(), p.size()));
}

}  // namespace
}  // namespace xrunlab
