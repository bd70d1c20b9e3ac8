// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/file_owner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "engine/base/errno_text.hpp"

namespace xrunlab {
namespace {

struct Recorded {
  std::string path;
  bool folder = false;
};

std::mutex g_mu;
std::vector<Recorded> g_recorded;  // guarded by g_mu

// Only root can give files away: a plain user's runs record nothing.
bool recording() {
  return ::geteuid() == 0;
}

void record(const std::string& path, bool folder) {
  if (!recording() || path.empty()) return;
  std::lock_guard<std::mutex> lock(g_mu);
  for (const Recorded& r : g_recorded) {
    if (r.path == path && r.folder == folder) return;
  }
  g_recorded.push_back({path, folder});
}

std::optional<unsigned long> decimal(const char* s) {
  if (s == nullptr || *s == '\0') return std::nullopt;
  unsigned long v = 0;
  const char* end = s + std::strlen(s);
  const auto [ptr, ec] = std::from_chars(s, end, v);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

constexpr size_t kMaxProblems = 4;
constexpr int kMaxDepth = 64;  // a run's folders are a few levels deep

void note(std::vector<std::string>& problems, const std::string& path, int err) {
  if (err == ENOENT || problems.size() >= kMaxProblems) return;
  problems.push_back("cannot give '" + path + "' to the user who ran sudo: " + errno_text(err));
}

// Gives the content of the open folder `dir` (shown as `shown`) to `user`, depth first: each
// subfolder's content before the subfolder itself, so a folder stays root's, closed to its new
// owner, until everything in it is done, and nobody can swap a name in it meanwhile. Every step
// goes through an fd: a folder is opened with O_NOFOLLOW and changed with fchown, anything else
// with fchownat(AT_SYMLINK_NOFOLLOW), so a name swapped for a symbolic link is never followed -
// the link itself is what changes owner.
void hand_over_content(int dir, const std::string& shown, const InvokingUser& user,
                       std::vector<std::string>& problems, int depth) {
  const int list_fd = ::dup(dir);
  DIR* d = list_fd < 0 ? nullptr : ::fdopendir(list_fd);
  if (d == nullptr) {
    note(problems, shown, errno);
    if (list_fd >= 0) ::close(list_fd);
    return;
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = shown + "/" + name;
    const int sub = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub >= 0) {
      if (depth < kMaxDepth) {
        hand_over_content(sub, path, user, problems, depth + 1);
      } else {
        note(problems, path, ELOOP);
      }
      if (::fchown(sub, user.uid, user.gid) != 0) note(problems, path, errno);
      ::close(sub);
      continue;
    }
    // Not a folder (ENOTDIR), a link (ELOOP), or one that cannot be opened: the name itself.
    if (::fchownat(dir, name.c_str(), user.uid, user.gid, AT_SYMLINK_NOFOLLOW) != 0) {
      note(problems, path, errno);
    }
  }
  ::closedir(d);
}

void hand_over_tree(const std::string& path, const InvokingUser& user,
                    std::vector<std::string>& problems) {
  const int top = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (top < 0) {
    // Gone (not a problem), or no longer a folder: the name itself, never what it points to.
    if (errno != ENOENT && ::lchown(path.c_str(), user.uid, user.gid) != 0) {
      note(problems, path, errno);
    }
    return;
  }
  hand_over_content(top, path, user, problems, 0);
  if (::fchown(top, user.uid, user.gid) != 0) note(problems, path, errno);
  ::close(top);
}

}  // namespace

std::optional<InvokingUser> invoking_user_from(uid_t euid, const char* sudo_uid,
                                               const char* sudo_gid) {
  if (euid != 0) return std::nullopt;
  const auto uid = decimal(sudo_uid);
  const auto gid = decimal(sudo_gid);
  if (!uid || !gid || *uid == 0) return std::nullopt;
  return InvokingUser{static_cast<uid_t>(*uid), static_cast<gid_t>(*gid)};
}

std::optional<InvokingUser> invoking_user() {
  return invoking_user_from(::geteuid(), std::getenv("SUDO_UID"), std::getenv("SUDO_GID"));
}

void hand_over_folder(const std::string& path) {
  record(path, true);
}

void hand_over_file(const std::string& path) {
  record(path, false);
}

std::vector<std::string> hand_over_recorded(const InvokingUser& user) {
  std::vector<Recorded> todo;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    todo.swap(g_recorded);
  }
  std::vector<std::string> problems;
  for (const Recorded& r : todo) {
    if (!r.folder) {
      if (::lchown(r.path.c_str(), user.uid, user.gid) != 0) note(problems, r.path, errno);
      continue;
    }
    hand_over_tree(r.path, user, problems);
  }
  return problems;
}

HandOverAtExit::~HandOverAtExit() {
  try {
    const std::optional<InvokingUser> user = invoking_user();
    if (!user) return;
    for (const std::string& p : hand_over_recorded(*user)) {
      std::fprintf(stderr, "xrunlab: warning: %s\n", p.c_str());
    }
  } catch (...) {
  }
}

}  // namespace xrunlab
