// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Reading what a test needs: any file, the historical fixtures (tests/fixtures) and the golden
// files (tests/golden). A file that is missing fails the test with a message naming it (an
// exception GoogleTest reports), never with a crash on empty data.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#ifndef XRUNLAB_FIXTURES_DIR
#error "XRUNLAB_FIXTURES_DIR is set by tests/CMakeLists.txt (tests/fixtures)"
#endif
#ifndef XRUNLAB_GOLDEN_DIR
#error "XRUNLAB_GOLDEN_DIR is set by tests/CMakeLists.txt (tests/golden)"
#endif

namespace xrunlab::testing_support {

// The whole file; throws std::runtime_error("cannot read PATH") when it cannot be read.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) throw std::runtime_error("cannot read " + path);
  return s.str();
}

// The whole file, or "" when it cannot be read (a /proc file of a process that may be gone, a
// log a failed child may not have written).
inline std::string read_text_or_empty(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return in ? s.str() : std::string();
}

// Writes `text` to `path` (created or truncated; the folder must exist).
inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// Whether `path` exists, without following a symbolic link at its end.
inline bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

// tests/fixtures/REL.
inline std::string fixture_path(const std::string& rel) {
  return std::string(XRUNLAB_FIXTURES_DIR) + "/" + rel;
}

// The text of tests/fixtures/REL; throws, naming the file and where fixtures come from, when
// it is missing.
inline std::string fixture_text(const std::string& rel) {
  const std::string path = fixture_path(rel);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error("fixture " + path +
                             " is missing: the tests read historical data from tests/fixtures "
                             "(see tests/fixtures/README.md)");
  }
  return read_text(path);
}

// tests/golden/NAME.
inline std::string golden_path(const std::string& name) {
  return std::string(XRUNLAB_GOLDEN_DIR) + "/" + name;
}

// `actual` must equal tests/golden/NAME byte for byte. With XRUNLAB_UPDATE_GOLDEN=1 in the
// environment the golden file is rewritten instead and the test is skipped (check the change
// by eye, with git diff, before committing it).
inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_path(name);
  const char* update = std::getenv("XRUNLAB_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "golden file rewritten: " << path;
  }
  EXPECT_EQ(actual, read_text(path))
      << "differs from " << path
      << "; regenerate with XRUNLAB_UPDATE_GOLDEN=1 after checking the change by eye";
}

}  // namespace xrunlab::testing_support
