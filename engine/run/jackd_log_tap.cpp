// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/jackd_log_tap.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>

#include "engine/base/errno_text.hpp"
#include "engine/base/file.hpp"
#include "engine/base/output_error.hpp"
#include "engine/system/clock.hpp"
#include "engine/system/output_folder.hpp"

namespace xrunlab {

JackdLogTap::~JackdLogTap() {
  close();
}

void JackdLogTap::open(const std::string& path) {
  fd_ = open_output_file(path);
  if (fd_ < 0) throw OutputError("create", path, errno);
  path_ = path;
}

void JackdLogTap::set_full_log(bool full) {
  std::lock_guard<std::mutex> lock(mu_);
  filter_ = LogFilter(full);
}

void JackdLogTap::end_startup() {
  std::lock_guard<std::mutex> lock(mu_);
  filter_.end_startup();
}

LogCounts JackdLogTap::log_counts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return filter_.counts();
}

void JackdLogTap::set_event_gap(int64_t gap_us) {
  std::lock_guard<std::mutex> lock(mu_);
  counter_ = JackdXrunCounter(gap_us);
}

void JackdLogTap::open_window(uint64_t t0_us) {
  std::lock_guard<std::mutex> lock(mu_);
  start_us_ = t0_us;
  window_open_ = true;
}

void JackdLogTap::close_window(uint64_t end_us) {
  std::lock_guard<std::mutex> lock(mu_);
  end_us_ = end_us;
}

void JackdLogTap::on_line(std::string_view line) {
  const uint64_t now = mono_raw_us();
  std::lock_guard<std::mutex> lock(mu_);
  const LogFilter::Verdict v = filter_.add(line);
  // The log degrades, the counting does not: after the first failed write (a full disk) no
  // line is written any more (a line written in part stays the file's last), each kept line is
  // counted as not written.
  if (fd_ >= 0 && v.keep) {
    if (write_failed_) {
      ++lines_not_written_;
    } else {
      std::string text = std::string(line) + "\n";
      if (v.last_of_kind) text += LogFilter::note(v.kind) + "\n";
      if (write_all(fd_, text)) {
        ++lines_written_;
      } else {
        write_failed_ = true;
        write_errno_ = errno;
        ++lines_not_written_;
      }
    }
  }
  if (window_open_ && now >= start_us_ && now < end_us_) {
    counter_.add(line, static_cast<int64_t>(now));
  }
}

void JackdLogTap::fill(XrunCounts& x) const {
  std::lock_guard<std::mutex> lock(mu_);
  x.log_client_events = counter_.client_events();
  x.log_client_lines = counter_.client_lines();
  x.log_driver_xruns = counter_.driver_xruns();
  x.log_driver_max_delay_us = counter_.driver_max_delay_us();
  x.log_timed_out_lines = counter_.timed_out_lines();
  x.late_clients.assign(counter_.late_clients().begin(), counter_.late_clients().end());
  x.log_events = log_events_locked();
}

std::vector<LogXrunEvent> JackdLogTap::log_events() const {
  std::lock_guard<std::mutex> lock(mu_);
  return log_events_locked();
}

std::vector<LogXrunEvent> JackdLogTap::log_events_locked() const {
  std::vector<LogXrunEvent> out;
  out.reserve(counter_.events().size());
  for (const JackdXrunCounter::Event& e : counter_.events()) {
    out.push_back({static_cast<double>(e.arrival_us - static_cast<int64_t>(start_us_)) / 1e6,
                   e.driver, e.clients});
  }
  return out;
}

void JackdLogTap::take_xrun_lines(std::vector<XrunLogLine>& into, bool* cut) {
  std::vector<JackdXrunCounter::LineArrival> taken;
  int64_t start = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cut != nullptr) *cut = counter_.line_arrivals_cut();
    taken = counter_.take_line_arrivals();
    start = static_cast<int64_t>(start_us_);
  }
  into.reserve(into.size() + taken.size());
  for (JackdXrunCounter::LineArrival& l : taken) {
    into.push_back({static_cast<double>(l.arrival_us - start) / 1e6, l.driver, std::move(l.client),
                    l.late_itself});
  }
}

std::string JackdLogTap::write_warning() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!write_failed_) return "";
  return fmt::format(
      "{}: {}: {} line(s) written, the {} after them not (the first of those may be there in "
      "part; jackd's xrun lines among them were still counted)",
      path_,
      is_disk_full(write_errno_) ? "the disk is full" : "cannot write: " + errno_text(write_errno_),
      lines_written_, lines_not_written_);
}

bool JackdLogTap::disk_full() const {
  std::lock_guard<std::mutex> lock(mu_);
  return write_failed_ && is_disk_full(write_errno_);
}

void JackdLogTap::close() {
  // A file system that writes late (NFS) may only report a failed write at close.
  if (fd_ >= 0 && ::close(fd_) != 0 && errno != EINTR) {
    const int err = errno;
    std::lock_guard<std::mutex> lock(mu_);
    if (!write_failed_) {
      write_failed_ = true;
      write_errno_ = err;
    }
  }
  fd_ = -1;
}

}  // namespace xrunlab
