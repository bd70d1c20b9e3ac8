#include "engine/base/text.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

using V = std::vector<std::string_view>;

TEST(Trim, RemovesSpacesTabsAndLineEndsAtBothEnds) {
  EXPECT_EQ(trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(trim("a"), "a");
  EXPECT_EQ(trim(""), "");
  EXPECT_EQ(trim(" \t\n"), "");
}

TEST(Split, KeepsEmptyPieces) {
  EXPECT_EQ(split("a,,b", ','), (V{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (V{""}));
  EXPECT_EQ(split(",", ','), (V{"", ""}));
  EXPECT_EQ(split("abc", ','), (V{"abc"}));
}

TEST(Lines, DropsLineEndsAndNoEmptyLastLine) {
  EXPECT_EQ(lines("a\r\nb\n\nc"), (V{"a", "b", "", "c"}));
  EXPECT_EQ(lines("a\n"), (V{"a"}));
  EXPECT_EQ(lines(""), V{});
}

TEST(Affixes, StartsWithAndEndsWith) {
  EXPECT_TRUE(starts_with("xrunlab-c01", "xrunlab-"));
  EXPECT_FALSE(starts_with("xrun", "xrunlab"));
  EXPECT_TRUE(ends_with("a.records.json", ".records.json"));
  EXPECT_FALSE(ends_with("json", ".records.json"));
  EXPECT_TRUE(starts_with("x", ""));
}

}  // namespace
}  // namespace xrunlab
