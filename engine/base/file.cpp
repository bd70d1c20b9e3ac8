#include "engine/base/file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace xrunlab {

std::optional<std::string> read_file(const std::string& path, std::string* why) {
  auto fail = [&](int e) -> std::optional<std::string> {
    if (why != nullptr) *why = "cannot read " + path + ": " + std::strerror(e);
    errno = e;
    return std::nullopt;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(errno);
  std::string out;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      return fail(e);
    }
    if (n == 0) break;
    out.append(chunk, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

std::optional<std::string> read_first_line(const std::string& path, std::string* why) {
  std::optional<std::string> text = read_file(path, why);
  if (!text) return std::nullopt;
  const size_t nl = text->find('\n');
  if (nl != std::string::npos) text->resize(nl);
  return text;
}

}  // namespace xrunlab
