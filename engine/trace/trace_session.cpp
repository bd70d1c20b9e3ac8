// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/trace/trace_session.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"

namespace xrunlab {

namespace {

constexpr long kTracefsMagic = 0x74726163;  // TRACEFS_MAGIC ("trac")

constexpr const char* kEvents[] = {"sched/sched_switch",    "sched/sched_waking",
                                   "irq/irq_handler_entry", "irq/irq_handler_exit",
                                   "irq/softirq_entry",     "irq/softirq_exit"};

bool is_tracefs(const std::string& path) {
  struct statfs fs {};
  return ::statfs(path.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTracefsMagic;
}

// "overrun: N" and "dropped events: N" of a per_cpu/cpuN/stats file.
uint64_t stats_lost(const std::string& text) {
  uint64_t lost = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    for (const char* key : {"overrun: ", "dropped events: "}) {
      if (line.rfind(key, 0) == 0)
        lost += std::strtoull(line.c_str() + std::strlen(key), nullptr, 10);
    }
  }
  return lost;
}

void check_events(const std::string& root, const std::string& flag) {
  for (const char* e : kEvents) {
    if (::access((root + "/events/" + e).c_str(), F_OK) != 0) {
      throw Error(ExitCode::kUnsupported, flag + ": the trace event " + std::string(e) +
                                              " is missing from " + root + "/events; leave " +
                                              flag + " out");
    }
  }
}

}  // namespace

void TraceSession::check_available(const std::string& root, const std::string& flag) {
  if (::geteuid() != 0) {
    throw Error(ExitCode::kPermission, flag +
                                           " needs root: it mounts tracefs and makes a trace "
                                           "instance under " +
                                           root + "; run as root or leave " + flag + " out");
  }
  struct stat st {};
  if (::stat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw Error(ExitCode::kUnsupported, flag + ": " + root +
                                            " does not exist: this kernel has no tracefs "
                                            "(CONFIG_TRACING); leave " +
                                            flag + " out");
  }
  if (!is_tracefs(root)) return;  // not mounted yet: start() mounts it; the events are checked then
  if (::access((root + "/instances").c_str(), W_OK) != 0) {
    throw Error(ExitCode::kUnsupported, flag + ": " + root +
                                            "/instances is missing or not writable: this kernel "
                                            "cannot make private trace instances; leave " +
                                            flag + " out");
  }
  check_events(root, flag);
}

std::string make_trace_instance(SysJournal& journal, const std::string& root,
                                const std::string& name, int buffer_kb_per_cpu,
                                const std::string& flag) {
  if (!is_tracefs(root)) journal.mount_fs("tracefs", root);
  check_events(root, flag);
  std::string instance = root + "/instances/" + name;
  journal.make_dir(instance);
  journal.write_setting(instance + "/tracing_on", "0");
  journal.write_setting(instance + "/trace_clock", "mono");
  journal.write_setting(instance + "/buffer_size_kb", std::to_string(buffer_kb_per_cpu));
  for (const char* e : kEvents) journal.write_setting(instance + "/events/" + e + "/enable", "1");
  return instance;
}

bool set_tracing_on(const std::string& instance, bool on) noexcept {
  const int fd = ::open((instance + "/tracing_on").c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = ::write(fd, on ? "1" : "0", 1) == 1;
  ::close(fd);
  return ok;
}

TraceSession::TraceSession(SysJournal& journal, std::string root, size_t max_events,
                           int buffer_kb_per_cpu)
    : journal_(journal),
      root_(std::move(root)),
      max_events_(max_events),
      buffer_kb_(buffer_kb_per_cpu) {}

TraceSession::~TraceSession() {
  stop();
}

void TraceSession::start() {
  if (started_) return;
  started_ = true;
  instance_ = make_trace_instance(journal_, root_, "xrunlab-" + std::to_string(::getpid()),
                                  buffer_kb_, "--explain");
  const std::string pipe = instance_ + "/trace_pipe";
  pipe_fd_ = ::open(pipe.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (pipe_fd_ < 0) {
    const int err = errno;
    throw SysChangeError("cannot open " + pipe + ": " + errno_text(err), err);
  }
  events_.reserve(std::min<size_t>(max_events_, 200000));
  reader_ = std::thread([this] { read_loop(); });
  journal_.write_setting(instance_ + "/tracing_on", "1");
}

void TraceSession::take_line(std::string_view line) {
  const TraceLine l = parse_trace_line(line);
  if (l.lost > 0) {
    stats_.lost_kernel += l.lost;
    return;
  }
  if (!l.event) {
    if (!line.empty()) ++stats_.unparsed_lines;
    return;
  }
  if (events_.size() >= max_events_) {
    ++stats_.dropped_store;
    return;
  }
  events_.push_back(*l.event);
}

void TraceSession::drain(int fd, std::string& pending) {
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) return;  // EAGAIN: empty for now
    pending.append(buf, static_cast<size_t>(n));
    size_t start = 0;
    while (true) {
      const size_t nl = pending.find('\n', start);
      if (nl == std::string::npos) break;
      take_line(std::string_view(pending).substr(start, nl - start));
      start = nl + 1;
    }
    pending.erase(0, start);
  }
}

void TraceSession::read_loop() {
  std::string pending;
  while (!stop_reader_.load()) {
    drain(pipe_fd_, pending);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  drain(pipe_fd_, pending);  // what was recorded before tracing_on = 0
}

void TraceSession::stop() noexcept {
  if (!started_ || stopped_) return;
  stopped_ = true;
  // Off first (not through the journal: the rmdir at restore ends the instance anyway).
  if (!instance_.empty()) set_tracing_on(instance_, false);
  stop_reader_ = true;
  if (reader_.joinable()) reader_.join();
  if (pipe_fd_ >= 0) ::close(pipe_fd_);
  pipe_fd_ = -1;
  // The pipe's LOST markers and the stats' overruns count the same losses as seen by the
  // reader and by the buffer: the larger of the two.
  uint64_t overruns = 0;
  for (int cpu = 0; !instance_.empty(); ++cpu) {
    const auto text = read_file(instance_ + "/per_cpu/cpu" + std::to_string(cpu) + "/stats");
    if (!text) break;
    overruns += stats_lost(*text);
  }
  stats_.lost_kernel = std::max(stats_.lost_kernel, overruns);
  // Each CPU's events come in order; the pipe interleaves CPUs by time already, but equal or
  // close stamps of different CPUs may come in any order: a stable sort by time.
  std::stable_sort(events_.begin(), events_.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.t_ns < b.t_ns; });
  stats_.unseen_switches = add_unseen_switches(events_);
  stats_.events = events_.size();
  if (!events_.empty()) {
    stats_.first_ns = events_.front().t_ns;
    stats_.last_ns = events_.back().t_ns;
  }
}

TraceStats TraceSession::stats() const {
  return stats_;
}

}  // namespace xrunlab
