// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/errno_text.hpp"

#include <gtest/gtest.h>

#include <cerrno>

namespace xrunlab {
namespace {

TEST(ErrnoText, TheCLibrarysWords) {
  EXPECT_EQ(errno_text(ENOENT), "No such file or directory");
  EXPECT_EQ(errno_text(EPERM), "Operation not permitted");
}

TEST(ErrnoTextNamed, WithTheSymbolicName) {
  EXPECT_EQ(errno_text_named(EPERM), "Operation not permitted (EPERM)");
  EXPECT_EQ(errno_text_named(EBUSY), "Device or resource busy (EBUSY)");
  // A value without a name is only its text.
  EXPECT_EQ(errno_text_named(100000), errno_text(100000));
  EXPECT_EQ(errno_text(100000).find("100000") != std::string::npos, true);
}

}  // namespace
}  // namespace xrunlab
