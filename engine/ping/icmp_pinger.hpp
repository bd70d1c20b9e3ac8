// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The pinger of --ping: ICMP echo requests at a fixed rate from one address to one other, over a
// raw socket bound to one interface (the run's veth end), and the answers matched to them. Not
// iputils ping: that paces its requests with poll() timeouts, and at -i 0.01 it sent one every
// 16 ms on a 2-core VM (62/s, not 100/s). Here request k leaves at start + k / rate by an
// absolute clock_nanosleep schedule, and how late each one left is kept, so a starved sender
// shows as such. A request's round trip is the kernel's receive time of its answer
// (SO_TIMESTAMPNS) minus the time read right before sendto, both CLOCK_REALTIME, as iputils
// measures it. A request is lost when no answer came within the answer wait after it (1 s).
// One thread of its own, SCHED_OTHER; nothing realtime. Non-realtime.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace xrunlab {

struct PingPacket {
  int64_t due_ns = 0;    // when it was due, from the first request's due time
  int64_t late_ns = 0;   // how much later it left
  int64_t rtt_ns = -1;   // -1: no answer within the wait
  uint32_t answers = 0;  // answers received (more than 1: duplicates)
};

struct PingerSettings {
  std::string interface;       // SO_BINDTODEVICE
  std::string source, target;  // dotted IPv4
  int rate_hz = 100;
  uint64_t count = 0;                   // requests at most
  int64_t answer_wait_ns = 1000000000;  // after the last request, and what counts as lost
};

class IcmpPinger {
 public:
  IcmpPinger() = default;
  IcmpPinger(const IcmpPinger&) = delete;
  IcmpPinger& operator=(const IcmpPinger&) = delete;
  ~IcmpPinger();  // stops the thread and closes the socket

  // Opens the raw socket (bound to the interface and the source address) and starts sending.
  // Throws Error(kPermission) when the kernel refuses the socket (CAP_NET_RAW), Error(kRunFailed)
  // for any other failure, naming it.
  void start(const PingerSettings& s);

  // Sends no more requests, waits for the answers of those sent (the answer wait after the last
  // one, at most), and ends the thread. Idempotent.
  void stop();

  bool started() const { return thread_.joinable() || stopped_; }
  // After stop(): one entry per request sent, in order; and answers that matched no request
  // (other ids are not counted: they are not ours).
  const std::vector<PingPacket>& packets() const { return packets_; }
  uint64_t unmatched_answers() const { return unmatched_; }
  const std::string& error() const { return error_; }  // a failure of the thread ("" if none)

 private:
  void loop();
  void receive_ready();

  PingerSettings s_;
  int fd_ = -1;
  uint16_t id_ = 0;
  std::atomic<bool> stop_{false};
  bool stopped_ = false;
  std::thread thread_;
  std::vector<PingPacket> packets_;    // the thread's until stop() joined it
  std::vector<int64_t> sent_real_ns_;  // CLOCK_REALTIME before each sendto
  uint64_t unmatched_ = 0;
  std::string error_;
};

// The ICMP checksum (RFC 1071) of `len` bytes.
uint16_t icmp_checksum(const uint8_t* data, size_t len);

// An echo request of 64 bytes (8 header + 56 payload) with `id` and `seq`, its checksum set.
std::vector<uint8_t> echo_request(uint16_t id, uint16_t seq);

// The id and sequence number of an echo reply in a raw IPv4 packet (IP header included), or
// nullopt when the packet is not an echo reply.
struct EchoReply {
  uint16_t id = 0, seq = 0;
};
std::optional<EchoReply> parse_echo_reply(const uint8_t* packet, size_t len);

}  // namespace xrunlab
