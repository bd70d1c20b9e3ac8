// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/line_hub.hpp"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace xrunlab {
namespace {

constexpr uint64_t kWakeTag = UINT64_MAX;  // the epoll tag of the eventfd (sources: their index)
constexpr int kIdleMs = 20;                // after stop(): this long without input ends the loop

[[noreturn]] void throw_errno(const char* what) {
  throw std::system_error(errno, std::generic_category(), what);
}

}  // namespace

LineHub::LineHub() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) throw_errno("LineHub: epoll_create1");
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    const int e = errno;
    ::close(epoll_fd_);
    errno = e;
    throw_errno("LineHub: eventfd");
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kWakeTag;
  if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, wake_fd_, &ev) != 0) {
    const int e = errno;
    ::close(wake_fd_);
    ::close(epoll_fd_);
    errno = e;
    throw_errno("LineHub: epoll_ctl");
  }
}

LineHub::~LineHub() {
  stop();
  ::close(wake_fd_);
  ::close(epoll_fd_);
}

void LineHub::add(int fd, Sink sink) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(Source{fd, std::move(sink), {}, false});
  }
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
}

void LineHub::start() {
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void LineHub::stop() {
  stopping_ = true;
  const uint64_t one = 1;
  (void)!::write(wake_fd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

void LineHub::pump(Source& s) {
  char chunk[65536];
  const ssize_t n = ::read(s.fd, chunk, sizeof chunk);
  if (n == 0) {
    s.eof = true;
    if (!s.buffer.empty()) s.sink(s.buffer);
    s.buffer.clear();
    return;
  }
  if (n < 0) {
    if (errno != EINTR && errno != EAGAIN) s.eof = true;
    return;
  }
  s.buffer.append(chunk, static_cast<size_t>(n));
  size_t start = 0, nl;
  while ((nl = s.buffer.find('\n', start)) != std::string::npos) {
    s.sink(std::string_view(s.buffer).substr(start, nl - start));
    start = nl + 1;
  }
  s.buffer.erase(0, start);
}

bool LineHub::adopt_pending() {
  std::vector<Source> adopted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    adopted.swap(pending_);
  }
  for (Source& s : adopted) {
    const uint64_t index = sources_.size();
    sources_.push_back(std::move(s));
    Source& added = sources_.back();
    if (added.fd < 0) {
      added.eof = true;
      continue;
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = index;
    if (::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, added.fd, &ev) != 0) {
      // Not a descriptor epoll can wait on (a regular file: always readable): read it whole.
      while (!added.eof) pump(added);
      continue;
    }
    ++open_sources_;
  }
  return !adopted.empty();
}

void LineHub::loop() {
  epoll_event events[64];
  while (true) {
    const bool added = adopt_pending();
    if (stopping_.load() && open_sources_ == 0 && !added) {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) return;
      continue;
    }
    const int n = ::epoll_wait(epoll_fd_, events, 64, stopping_.load() ? kIdleMs : -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    bool input = false;
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == kWakeTag) {
        uint64_t count = 0;
        (void)!::read(wake_fd_, &count, sizeof count);
        continue;
      }
      Source& s = sources_[static_cast<size_t>(events[i].data.u64)];
      if (s.eof) continue;
      input = true;
      pump(s);
      if (s.eof) {
        ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, s.fd, nullptr);
        --open_sources_;
      }
    }
    if (stopping_.load() && !input && n == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) return;  // else pick up the sources added meanwhile first
    }
  }
}

}  // namespace xrunlab
