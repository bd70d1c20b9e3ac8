// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/file_owner.hpp"

#include <ftw.h>
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

// nftw's callback has no context argument: the walk's user and problems, under g_walk_mu.
std::mutex g_walk_mu;
InvokingUser g_walk_user;
std::vector<std::string>* g_walk_problems = nullptr;
constexpr size_t kMaxProblems = 4;

void note(std::vector<std::string>& problems, const std::string& path, int err) {
  if (err == ENOENT || problems.size() >= kMaxProblems) return;
  problems.push_back("cannot give '" + path + "' to the user who ran sudo: " + errno_text(err));
}

int chown_entry(const char* path, const struct stat*, int type, FTW*) {
  if (type == FTW_NS || type == FTW_DNR) {
    note(*g_walk_problems, path, errno != 0 ? errno : EACCES);
    // An unreadable folder itself can still be changed.
    if (type == FTW_NS) return 0;
  }
  if (::lchown(path, g_walk_user.uid, g_walk_user.gid) != 0) note(*g_walk_problems, path, errno);
  return 0;
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
  std::lock_guard<std::mutex> lock(g_walk_mu);
  g_walk_user = user;
  g_walk_problems = &problems;
  for (const Recorded& r : todo) {
    if (!r.folder) {
      if (::lchown(r.path.c_str(), user.uid, user.gid) != 0) note(problems, r.path, errno);
      continue;
    }
    if (::nftw(r.path.c_str(), chown_entry, 16, FTW_PHYS) != 0) note(problems, r.path, errno);
  }
  g_walk_problems = nullptr;
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
