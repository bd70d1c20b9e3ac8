#include "engine/run/line_hub.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace xrunlab {

LineHub::~LineHub() {
  stop();
}

void LineHub::add(int fd, Sink sink) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.push_back(Source{fd, std::move(sink), {}, false});
}

void LineHub::start() {
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void LineHub::stop() {
  stopping_ = true;
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

void LineHub::loop() {
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (Source& s : pending_) sources_.push_back(std::move(s));
      pending_.clear();
    }
    std::vector<pollfd> fds;
    std::vector<size_t> which;
    for (size_t k = 0; k < sources_.size(); ++k) {
      if (!sources_[k].eof && sources_[k].fd >= 0) {
        fds.push_back({sources_[k].fd, POLLIN, 0});
        which.push_back(k);
      }
    }
    if (fds.empty()) {
      if (stopping_.load()) {
        std::lock_guard<std::mutex> lock(mu_);
        if (pending_.empty()) return;
        continue;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    const int n = ::poll(fds.data(), fds.size(), 20);
    if (n < 0 && errno != EINTR) return;
    for (size_t f = 0; n > 0 && f < fds.size(); ++f) {
      if ((fds[f].revents & (POLLIN | POLLHUP | POLLERR)) != 0) pump(sources_[which[f]]);
    }
    if (stopping_.load() && n == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (pending_.empty()) return;  // else pick up the sources added meanwhile first
    }
  }
}

}  // namespace xrunlab
