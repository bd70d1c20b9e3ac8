// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/x_display.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "engine/base/errno_text.hpp"

namespace xrunlab::load_tool {
namespace {

using Clock = std::chrono::steady_clock;

// True when nothing accepts connections on the unix socket at `path` any more.
bool refuses_connections(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.size() >= sizeof addr.sun_path) return false;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  const bool refused = ::connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0 &&
                       errno == ECONNREFUSED;
  ::close(s);
  return refused;
}

// The pid a lock file names ("%10d\n" as the X server writes it), or -1.
pid_t lock_pid(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  char buf[32] = {};
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return -1;
  const char* p = buf;
  while (*p == ' ') ++p;
  char* end = nullptr;
  const long pid = std::strtol(p, &end, 10);
  if (end == p || (*end != '\n' && *end != '\0') || pid <= 0) return -1;
  return static_cast<pid_t>(pid);
}

}  // namespace

int read_display_number(int fd, std::chrono::milliseconds timeout, std::string* why) {
  const auto deadline = Clock::now() + timeout;
  std::string got;
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      *why = fmt::format("no display number from the X server within {} ms", timeout.count());
      return -1;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) {
      *why = "cannot wait for the X server's display number: " + errno_text(errno);
      return -1;
    }
    if (ready == 0) continue;
    char buf[16];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *why = "the X server ended before it named its display (see its messages in the log)";
      return -1;
    }
    got.append(buf, static_cast<size_t>(n));
    const size_t nl = got.find('\n');
    if (nl == std::string::npos && got.size() < 8) continue;
    const std::string number = got.substr(0, nl);
    if (number.empty() || number.size() > 5 ||
        number.find_first_not_of("0123456789") != std::string::npos) {
      *why = "the X server wrote '" + number + "' instead of a display number";
      return -1;
    }
    return std::stoi(number);
  }
}

std::string x_display_record(int display, pid_t server) {
  return fmt::format("{} {}\n", display, server);
}

bool parse_x_display_record(std::string_view text, int* display, pid_t* server) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  const size_t space = text.find(' ');
  if (space == std::string_view::npos) return false;
  int d = -1;
  pid_t p = -1;
  const std::string_view a = text.substr(0, space), b = text.substr(space + 1);
  const auto [end_a, ec_a] = std::from_chars(a.data(), a.data() + a.size(), d);
  const auto [end_b, ec_b] = std::from_chars(b.data(), b.data() + b.size(), p);
  if (ec_a != std::errc() || end_a != a.data() + a.size() || ec_b != std::errc() ||
      end_b != b.data() + b.size() || d < 0 || p <= 0) {
    return false;
  }
  *display = d;
  *server = p;
  return true;
}

std::string x_socket_path(const std::string& tmp, int display) {
  return fmt::format("{}/.X11-unix/X{}", tmp, display);
}

std::string x_lock_path(const std::string& tmp, int display) {
  return fmt::format("{}/.X{}-lock", tmp, display);
}

std::string remove_stale_x_files(const std::string& tmp, int display, pid_t server) {
  std::string errors;
  auto remove = [&](const std::string& path) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      errors += (errors.empty() ? "" : "\n") +
                fmt::format("cannot remove {} of the ended X server: {}", path, errno_text(errno));
    }
  };
  struct stat st {};
  const std::string socket = x_socket_path(tmp, display);
  if (::lstat(socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && st.st_uid == ::geteuid() &&
      refuses_connections(socket)) {
    remove(socket);
  }
  const std::string lock = x_lock_path(tmp, display);
  if (::lstat(lock.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() &&
      lock_pid(lock) == server) {
    remove(lock);
  }
  return errors;
}

}  // namespace xrunlab::load_tool
