// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One thread that reads text lines from many descriptors (jackd's output, every client's
// telemetry pipe) and hands each line to the sink registered with its descriptor. Sources may
// be added while it runs. Nothing else in the engine reads those pipes.
//
// It waits with epoll, not poll: with 254 clients it reads about 760 pipes, and a wake-up for
// one line must not cost a scan of all of them (jackd -v writes thousands of lines a second
// while clients start).
//
// Threads: add(), start() and stop() from the run's thread; the sinks run on the hub's thread,
// one line at a time, and must not block for long (a slow sink backs the pipes up, then the
// clients' drain threads, then their realtime rings).
#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace xrunlab {

class LineHub {
 public:
  using Sink = std::function<void(std::string_view line)>;

  LineHub();  // throws std::system_error when the kernel refuses an epoll or eventfd descriptor
  LineHub(const LineHub&) = delete;
  LineHub& operator=(const LineHub&) = delete;
  ~LineHub();  // stop()

  // Reads `fd` (not owned; it must stay open until stop() returns) line by line into `sink`.
  // A last line without a newline is delivered at end of file. Thread-safe.
  void add(int fd, Sink sink);
  void start();
  // Lets the thread finish: it returns once every source reached end of file, or once nothing
  // arrived for 20 ms after stop() was called. Then joins it. Idempotent.
  void stop();

 private:
  struct Source {
    int fd = -1;
    Sink sink;
    std::string buffer;
    bool eof = false;
  };
  void loop();
  bool adopt_pending();  // moves pending_ into sources_ and epoll; false when none was pending
  static void pump(Source& s);

  int epoll_fd_ = -1;
  int wake_fd_ = -1;             // an eventfd: add() and stop() wake the thread through it
  std::mutex mu_;                // guards pending_
  std::vector<Source> pending_;  // added, not yet picked up by the thread
  std::deque<Source> sources_;   // the thread's own (a deque: epoll keeps their indexes)
  size_t open_sources_ = 0;      // of sources_, those not at end of file
  std::thread thread_;
  std::atomic<bool> stopping_{false};
};

}  // namespace xrunlab
