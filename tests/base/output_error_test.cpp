// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/output_error.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace xrunlab {
namespace {

TEST(OutputError, AFullDiskSaysSoAndNamesThePath) {
  EXPECT_TRUE(is_disk_full(ENOSPC));
  EXPECT_TRUE(is_disk_full(EDQUOT));
  EXPECT_FALSE(is_disk_full(EACCES));
  const OutputError e("write", "/out/x/run.json", ENOSPC);
  EXPECT_EQ(e.code(), ExitCode::kOutput);
  EXPECT_TRUE(e.disk_full());
  EXPECT_EQ(e.err(), ENOSPC);
  EXPECT_EQ(e.path(), "/out/x/run.json");
  EXPECT_EQ(std::string(e.what()),
            "cannot write '/out/x/run.json': the disk is full (No space left on device); free "
            "some space or choose another folder with --output");
}

TEST(OutputError, OtherErrorsKeepTheirText) {
  const OutputError e("create folder", "/proc/x", EACCES);
  EXPECT_FALSE(e.disk_full());
  EXPECT_EQ(std::string(e.what()),
            "cannot create folder '/proc/x': Permission denied (choose a writable folder with "
            "--output)");
}

}  // namespace
}  // namespace xrunlab
