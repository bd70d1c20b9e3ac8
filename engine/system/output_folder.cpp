// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/output_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <optional>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/system/file_owner.hpp"

namespace xrunlab {
namespace {

constexpr int kMaxLinks = 40;  // as the kernel's own limit on links in one path (ELOOP)

bool trusted_user(const FolderTrust& t, uid_t uid) {
  return std::find(t.users.begin(), t.users.end(), uid) != t.users.end();
}

std::string mode_text(const struct stat& st) {
  return fmt::format("{:04o}", st.st_mode & 07777);
}

// Why the folder `st` (at `path`) is not safe for root's output, or "".
std::string folder_problem(const std::string& path, const struct stat& st, const FolderTrust& t) {
  if (!S_ISDIR(st.st_mode)) return fmt::format("'{}' is not a folder", path);
  const bool others_write =
      (st.st_mode & S_IWOTH) != 0 || ((st.st_mode & S_IWGRP) != 0 && st.st_gid != 0);
  const bool sticky = (st.st_mode & S_ISVTX) != 0;
  if (trusted_user(t, st.st_uid) && (!others_write || sticky)) return "";
  return fmt::format(
      "folder '{}' (owner uid {}, group gid {}, mode {}) can be changed by a user other than "
      "root and you",
      path, st.st_uid, st.st_gid, mode_text(st));
}

std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= path.size()) {
    const size_t end = std::min(path.find('/', pos), path.size());
    if (end > pos) out.push_back(path.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

std::string parent_of(const std::string& canonical) {
  const size_t slash = canonical.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : canonical.substr(0, slash);
}

std::string join(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir + "/" + name;
}

// Walks `path` from `start` (a canonical folder already checked); `*cur` ends as the canonical
// path of the last folder that exists. `links` counts the symbolic links followed.
std::string walk(const std::string& path, std::string* cur, const FolderTrust& t, int* links) {
  for (const std::string& c : components(path)) {
    if (c == ".") continue;
    if (c == "..") {
      *cur = parent_of(*cur);  // a prefix of a checked canonical path: checked
      continue;
    }
    const std::string next = join(*cur, c);
    struct stat st {};
    if (::lstat(next.c_str(), &st) != 0) {
      if (errno == ENOENT) return "";  // the rest is created by this process, inside *cur
      return fmt::format("cannot check folder '{}': {}", next, errno_text(errno));
    }
    if (S_ISLNK(st.st_mode)) {
      if (!trusted_user(t, st.st_uid)) {
        return fmt::format(
            "'{}' is a symbolic link of uid {}, a user other than root and you: it could point "
            "anywhere",
            next, st.st_uid);
      }
      if (++*links > kMaxLinks) return fmt::format("'{}': too many symbolic links", next);
      std::string target(PATH_MAX, '\0');
      const ssize_t n = ::readlink(next.c_str(), target.data(), target.size());
      if (n < 0) return fmt::format("cannot read link '{}': {}", next, errno_text(errno));
      target.resize(static_cast<size_t>(n));
      std::string from = !target.empty() && target.front() == '/' ? "/" : *cur;
      std::string rest = walk(target, &from, t, links);
      if (!rest.empty()) return rest;
      // A link to nothing (yet): nothing further exists; a mkdir through it fails on its own.
      struct stat resolved {};
      if (::stat(next.c_str(), &resolved) != 0) return "";
      *cur = from;
      continue;
    }
    if (std::string p = folder_problem(next, st, t); !p.empty()) return p;
    *cur = next;
  }
  return "";
}

}  // namespace

FolderTrust output_trust() {
  FolderTrust t;
  t.users.push_back(0);
  if (::geteuid() != 0) t.users.push_back(::geteuid());
  if (const auto u = invoking_user()) t.users.push_back(u->uid);
  return t;
}

std::string untrusted_output_folder(const std::string& path, const FolderTrust& trust) {
  std::string cur = "/";
  std::string start = path;
  if (path.empty() || path.front() != '/') {
    std::string cwd(PATH_MAX, '\0');
    if (::getcwd(cwd.data(), cwd.size()) == nullptr) {
      return fmt::format("cannot tell the working folder: {}", errno_text(errno));
    }
    cwd.resize(cwd.find('\0'));
    start = cwd + "/" + path;  // getcwd's answer is canonical; it is checked like the rest
  }
  struct stat root {};
  if (::lstat("/", &root) != 0) return "cannot check folder '/'";
  if (std::string p = folder_problem("/", root, trust); !p.empty()) return p;
  int links = 0;
  return walk(start, &cur, trust, &links);
}

void check_output_folder(const std::string& path) {
  if (::geteuid() != 0) return;
  const std::string p = untrusted_output_folder(path, output_trust());
  if (p.empty()) return;
  throw Error(ExitCode::kOutput,
              fmt::format("refusing to write '{}' as root: {}; another user could redirect "
                          "root's files there. Choose a folder only root and you can write "
                          "(--output), or make it so (chmod go-w)",
                          path, p));
}

int open_output_file(const std::string& path, bool append) {
  const int flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW | (append ? O_APPEND : 0);
  int fd = ::open(path.c_str(), flags | O_CREAT | O_EXCL, 0644);
  if (fd >= 0 || errno != EEXIST) return fd;
  // The name exists: reuse it only when it is this user's own plain file.
  fd = ::open(path.c_str(), flags);  // O_NOFOLLOW: ELOOP for a link
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return -1;
  }
  // A character device (/dev/null, /dev/full in a test) only root could have made: written as
  // it is. Anything else that is not this user's own single-link file is not ours to write.
  if (S_ISCHR(st.st_mode) && st.st_uid == 0) return fd;
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || st.st_nlink != 1) {
    ::close(fd);
    errno = EEXIST;
    return -1;
  }
  if (::ftruncate(fd, 0) != 0) {
    const int err = errno;
    ::close(fd);
    errno = err;
    return -1;
  }
  return fd;
}

}  // namespace xrunlab
