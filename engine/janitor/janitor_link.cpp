// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/janitor/janitor_link.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

namespace xrunlab {

void JanitorLink::start(const std::string& program, const std::string& journal) {
  SpawnSpec s;
  s.argv = {program, "--engine", std::to_string(::getpid()), "--journal", journal};
  if (const char* tmp = std::getenv("TMPDIR"); tmp != nullptr && tmp[0] == '/') {
    s.argv.insert(s.argv.end(), {"--tmp-dir", tmp});
  }
  s.stdin_pipe = true;
  s.death_signal = 0;  // it must outlive the engine
  child_ = Child::spawn(s);
  // The engine never waits for its janitor: a line that does not fit is dropped.
  const int fd = child_.stdin_fd();
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  set_child_report_fd(fd);
}

void JanitorLink::tell(const std::string& line) noexcept {
  if (!started() || finished_) return;
  const std::string text = line + "\n";
  ssize_t ignored = ::write(child_.stdin_fd(), text.data(), text.size());
  (void)ignored;
}

std::string JanitorLink::ended() {
  if (!started() || finished_ || child_.running()) return "";
  return "xrunlab-janitor (pid " + std::to_string(child_.pid()) + ") " + child_.describe_exit();
}

void JanitorLink::finish() noexcept {
  if (!started() || finished_) return;
  set_child_report_fd(-1);
  tell("done");
  finished_ = true;
  try {
    child_.close_stdin();
    if (!child_.wait_for(std::chrono::milliseconds(1000)))
      child_.stop(std::chrono::milliseconds(0));
  } catch (...) {
  }
}

}  // namespace xrunlab
