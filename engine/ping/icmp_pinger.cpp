// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/ping/icmp_pinger.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

constexpr size_t kPacketBytes = 64;
constexpr uint8_t kEchoRequest = 8, kEchoReply = 0;

int64_t now_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

timespec to_timespec(int64_t ns) {
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(ns / 1000000000);
  ts.tv_nsec = static_cast<long>(ns % 1000000000);
  return ts;
}

in_addr parse_address(const std::string& dotted) {
  in_addr a{};
  if (::inet_pton(AF_INET, dotted.c_str(), &a) != 1) {
    throw Error(ExitCode::kRunFailed, "--ping: '" + dotted + "' is not an IPv4 address");
  }
  return a;
}

}  // namespace

uint16_t icmp_checksum(const uint8_t* data, size_t len) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < len; i += 2) sum += static_cast<uint32_t>(data[i] << 8 | data[i + 1]);
  if (len % 2 != 0) sum += static_cast<uint32_t>(data[len - 1] << 8);
  while ((sum >> 16) != 0) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum & 0xffff);
}

std::vector<uint8_t> echo_request(uint16_t id, uint16_t seq) {
  std::vector<uint8_t> p(kPacketBytes, 0);
  p[0] = kEchoRequest;
  p[4] = static_cast<uint8_t>(id >> 8);
  p[5] = static_cast<uint8_t>(id & 0xff);
  p[6] = static_cast<uint8_t>(seq >> 8);
  p[7] = static_cast<uint8_t>(seq & 0xff);
  for (size_t i = 8; i < p.size(); ++i) p[i] = static_cast<uint8_t>(i);
  const uint16_t sum = icmp_checksum(p.data(), p.size());
  p[2] = static_cast<uint8_t>(sum >> 8);
  p[3] = static_cast<uint8_t>(sum & 0xff);
  return p;
}

std::optional<EchoReply> parse_echo_reply(const uint8_t* packet, size_t len) {
  if (len < 20 || (packet[0] >> 4) != 4) return std::nullopt;
  const size_t ihl = static_cast<size_t>(packet[0] & 0x0f) * 4;
  if (ihl < 20 || len < ihl + 8) return std::nullopt;
  const uint8_t* icmp = packet + ihl;
  if (icmp[0] != kEchoReply || icmp[1] != 0) return std::nullopt;
  EchoReply r;
  r.id = static_cast<uint16_t>(icmp[4] << 8 | icmp[5]);
  r.seq = static_cast<uint16_t>(icmp[6] << 8 | icmp[7]);
  return r;
}

IcmpPinger::~IcmpPinger() {
  stop();
  if (fd_ >= 0) ::close(fd_);
}

void IcmpPinger::start(const PingerSettings& s) {
  s_ = s;
  fd_ = ::socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
  if (fd_ < 0) {
    const int err = errno;
    throw Error(err == EPERM || err == EACCES ? ExitCode::kPermission : ExitCode::kRunFailed,
                "--ping: cannot open a raw ICMP socket: " + errno_text(err) +
                    " (needs CAP_NET_RAW: run xrunlab with sudo, or leave --ping out)");
  }
  auto fail = [&](const std::string& what) {
    const int err = errno;
    throw Error(ExitCode::kRunFailed, "--ping: " + what + ": " + errno_text(err));
  };
  if (::setsockopt(fd_, SOL_SOCKET, SO_BINDTODEVICE, s_.interface.c_str(),
                   static_cast<socklen_t>(s_.interface.size())) != 0) {
    fail("cannot bind the ICMP socket to " + s_.interface);
  }
  sockaddr_in src{};
  src.sin_family = AF_INET;
  src.sin_addr = parse_address(s_.source);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&src), sizeof src) != 0) {  // NOLINT
    fail("cannot bind the ICMP socket to " + s_.source);
  }
  const int on = 1;
  if (::setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0) {
    fail("cannot ask for receive timestamps (SO_TIMESTAMPNS)");
  }
  id_ = static_cast<uint16_t>(::getpid() & 0xffff);
  parse_address(s_.target);
  packets_.reserve(static_cast<size_t>(s_.count));
  sent_real_ns_.reserve(static_cast<size_t>(s_.count));
  thread_ = std::thread([this] { loop(); });
}

void IcmpPinger::receive_ready() {
  for (;;) {
    uint8_t buf[1500];
    alignas(cmsghdr) char control[256];
    iovec iov{buf, sizeof buf};
    msghdr msg{};
    sockaddr_in from{};
    msg.msg_name = &from;
    msg.msg_namelen = sizeof from;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(fd_, &msg, MSG_DONTWAIT);
    if (n < 0) return;  // EAGAIN: nothing more now
    const std::optional<EchoReply> reply = parse_echo_reply(buf, static_cast<size_t>(n));
    if (!reply || reply->id != id_) continue;  // not an answer to us
    int64_t rx_ns = -1;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        timespec ts{};
        std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
        rx_ns = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
      }
    }
    if (rx_ns < 0) rx_ns = now_ns(CLOCK_REALTIME);
    // The latest request with this 16-bit sequence number (it wraps after 65536 requests).
    const size_t sent = packets_.size();
    if (sent == 0) {
      ++unmatched_;
      continue;
    }
    size_t k = (sent - 1) - ((static_cast<size_t>(sent - 1) - reply->seq) & 0xffff);
    if (k >= sent || (k & 0xffff) != reply->seq) {
      ++unmatched_;
      continue;
    }
    PingPacket& p = packets_[k];
    ++p.answers;
    const int64_t rtt = rx_ns - sent_real_ns_[k];
    if (p.answers == 1 && rtt <= s_.answer_wait_ns) p.rtt_ns = std::max<int64_t>(rtt, 0);
  }
}

void IcmpPinger::loop() {
  try {
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr = parse_address(s_.target);
    const int64_t interval = 1000000000 / s_.rate_hz;
    const int64_t t0 = now_ns(CLOCK_MONOTONIC);
    for (uint64_t k = 0; k < s_.count && !stop_.load(); ++k) {
      const int64_t due = t0 + static_cast<int64_t>(k) * interval;
      // Until it is due: answers as they come (poll), then the rest by absolute sleep.
      for (;;) {
        const int64_t left = due - now_ns(CLOCK_MONOTONIC);
        if (left <= 0 || stop_.load()) break;
        pollfd pfd{fd_, POLLIN, 0};
        if (left > 2000000) {
          if (::poll(&pfd, 1, static_cast<int>((left - 1000000) / 1000000)) > 0) {
            receive_ready();
          }
          continue;
        }
        const timespec until = to_timespec(due);
        ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
      }
      if (stop_.load()) break;
      const std::vector<uint8_t> req = echo_request(id_, static_cast<uint16_t>(k & 0xffff));
      PingPacket p;
      p.due_ns = due - t0;
      sent_real_ns_.push_back(now_ns(CLOCK_REALTIME));
      p.late_ns = now_ns(CLOCK_MONOTONIC) - due;
      packets_.push_back(p);
      if (::sendto(fd_, req.data(), req.size(), 0,
                   reinterpret_cast<const sockaddr*>(&to),  // NOLINT
                   sizeof to) < 0 &&
          error_.empty()) {
        error_ = "sendto " + s_.target + ": " + errno_text(errno);
      }
      receive_ready();
    }
    // The answers of the last requests: the answer wait after the last one.
    const int64_t until = now_ns(CLOCK_MONOTONIC) + s_.answer_wait_ns;
    for (;;) {
      const int64_t left = until - now_ns(CLOCK_MONOTONIC);
      if (left <= 0) break;
      // Done early when every request of the last answer wait has its answer.
      bool all = true;
      for (size_t i = packets_.size(); i-- > 0;) {
        if (packets_[i].due_ns < packets_.back().due_ns - s_.answer_wait_ns) break;
        if (packets_[i].answers == 0) all = false;
      }
      if (all) break;
      pollfd pfd{fd_, POLLIN, 0};
      if (::poll(&pfd, 1, static_cast<int>(std::max<int64_t>(1, left / 1000000))) > 0) {
        receive_ready();
      }
    }
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

void IcmpPinger::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  thread_.join();
  stopped_ = true;
}

}  // namespace xrunlab
