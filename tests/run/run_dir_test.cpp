// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <regex>

#include "engine/base/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;

TEST(CreateRunDir, LabelThenUtcTimestampWithItsClientsFolder) {
  TempDir out("rundir");
  const std::string dir = create_run_dir(out.str() + "/results", "fifo-1");
  const fs::path p(dir);
  EXPECT_EQ(p.parent_path(), fs::path(out.str()) / "results" / "fifo-1");
  EXPECT_TRUE(std::regex_match(p.filename().string(), std::regex(R"(\d{8}T\d{6}Z(-\d+)?)")))
      << p.filename();
  EXPECT_TRUE(fs::is_directory(p / "clients"));
}

TEST(CreateRunDir, TwoRunsInOneSecondGetTwoFolders) {
  TempDir out("rundir");
  const std::string a = create_run_dir(out.str(), "x");
  const std::string b = create_run_dir(out.str(), "x");
  const std::string c = create_run_dir(out.str(), "x");
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);
  EXPECT_NE(a, c);
}

TEST(CreateRunDir, AnUnwritableOutputIsAnOutputErrorNamingIt) {
  try {
    create_run_dir("/proc/xrunlab-cannot", "x");
    ADD_FAILURE() << "created";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("/proc/xrunlab-cannot"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--output"), std::string::npos) << e.what();
  }
}

TEST(UtcNow, IsoFormat) {
  EXPECT_TRUE(std::regex_match(utc_now_iso(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
}

}  // namespace
}  // namespace xrunlab
