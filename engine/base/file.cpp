// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <system_error>

#include "engine/base/errno_text.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {

std::optional<std::string> read_file(const std::string& path, std::string* why) {
  auto fail = [&](int e) -> std::optional<std::string> {
    if (why != nullptr) *why = "cannot read " + path + ": " + errno_text(e);
    errno = e;
    return std::nullopt;
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(errno);
  std::string out;
  // A regular file says its size: read it in place, in one piece when it can. (/proc and /sys
  // files say 0 and are read in chunks.)
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    out.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int e = errno;
        ::close(fd);
        return fail(e);
      }
      if (n == 0) break;  // shrank meanwhile
      got += static_cast<size_t>(n);
    }
    out.resize(got);
  }
  char chunk[65536];
  for (;;) {  // the rest (a file that grew meanwhile), or all of a file without a size
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

std::optional<int64_t> read_number(const std::string& path) {
  const std::optional<std::string> text = read_file(path);
  if (!text) return std::nullopt;
  const std::string_view s = trim(*text);
  int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

bool write_all(int fd, std::string_view bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace xrunlab
