// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A temporary folder for one test, removed with everything in it when the test ends (kept, for
// a look afterwards, when XRUNLAB_KEEP_TEST_DIRS is set in the environment).
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace xrunlab::testing_support {

class TempDir {
 public:
  // A new empty folder $TMPDIR/xrunlab-TAG-XXXXXX (/tmp without TMPDIR). Throws when it cannot
  // be made, which fails the test with that message.
  explicit TempDir(const std::string& tag = "test") {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/xrunlab-" +
                       tag + "-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("cannot create " + tmpl);
    path_ = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    if (std::getenv("XRUNLAB_KEEP_TEST_DIRS") != nullptr) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  // The path of `rel` inside the folder (not created).
  std::string file(const std::string& rel) const { return (path_ / rel).string(); }
  // Writes `text` to `rel` (parent folders created); returns its path.
  std::string write(const std::string& rel, const std::string& text) const {
    const std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  // A symbolic link `rel` -> `target` (parent folders created).
  void link(const std::string& rel, const std::string& target) const {
    const std::filesystem::path p = path_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::create_symlink(target, p);
  }

 private:
  std::filesystem::path path_;
};

}  // namespace xrunlab::testing_support
