// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_dir.hpp"

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>

#include "engine/base/output_error.hpp"
#include "engine/system/file_owner.hpp"
#include "engine/system/output_folder.hpp"

namespace xrunlab {
namespace {

[[noreturn]] void output_error(const std::string& what, const std::string& path) {
  throw OutputError(what + " folder", path, errno);
}

}  // namespace

void make_dirs(const std::string& path) {
  // As root: the folders that exist are checked before anything is made in them, and the whole
  // path again once made, in case another user created a missing one first (in a sticky /tmp).
  check_output_folder(path);
  size_t pos = 0;
  bool created = false;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    const std::string partial = path.substr(0, pos);
    if (partial.empty()) continue;
    if (::mkdir(partial.c_str(), 0755) == 0) {
      // The first folder made holds every later one: under sudo it goes to the user, content
      // and all.
      if (!created) hand_over_folder(partial);
      created = true;
    } else if (errno != EEXIST) {
      output_error("create", partial);
    }
  }
  if (::access(path.c_str(), W_OK) != 0) output_error("write to", path);
  check_output_folder(path);
}

std::string create_run_dir(const std::string& output, const std::string& label) {
  const std::string base = output + "/" + label + "/" + utc_now("%Y%m%dT%H%M%SZ");
  make_dirs(output + "/" + label);
  std::string dir = base;
  for (int n = 2; ::mkdir(dir.c_str(), 0755) != 0; ++n) {
    if (errno != EEXIST) output_error("create", dir);
    dir = base + "-" + std::to_string(n);
  }
  hand_over_folder(dir);  // everything in it is this run's
  make_dirs(dir + "/clients");
  return dir;
}

std::optional<uint64_t> free_bytes(const std::string& path) {
  struct statvfs st {};
  if (::statvfs(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

}  // namespace xrunlab
