// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/base64.hpp"

#include <gtest/gtest.h>

#include <string>

namespace xrunlab {
namespace {

// RFC 4648 section 10's test vectors: every padding case.
TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

// Bytes above 0x7f (a PNG's signature) and NULs, and the last two letters of the alphabet.
TEST(Base64, BinaryBytes) {
  EXPECT_EQ(base64_encode(std::string("\x89PNG\r\n\x1a\n", 8)), "iVBORw0KGgo=");
  EXPECT_EQ(base64_encode(std::string("\0\0\0", 3)), "AAAA");
  EXPECT_EQ(base64_encode("\xfb\xff\xbf"), "+/+/");
}

}  // namespace
}  // namespace xrunlab
