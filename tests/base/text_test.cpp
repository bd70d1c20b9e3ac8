// SPDX-License-Identifier: GPL-2.0-or-later
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

TEST(KeyValue, TheFirstLineWithTheKeyTrimmed) {
  const std::string_view status = "Name:\tjackd\nTgid:\t1234\nCapEff:\t000001ffffffffff\n";
  EXPECT_EQ(key_value(status, "Tgid"), std::optional<std::string_view>("1234"));
  EXPECT_EQ(key_value(status, "CapEff"), std::optional<std::string_view>("000001ffffffffff"));
  EXPECT_EQ(key_value("Tgid:\nTgid: 2\n", "Tgid"), std::optional<std::string_view>(""));
}

TEST(KeyValue, OnlyAWholeKeyAtTheStartOfALine) {
  EXPECT_EQ(key_value("CapEffective: 1\n", "CapEff"), std::nullopt);
  EXPECT_EQ(key_value("x CapEff: 1\n", "CapEff"), std::nullopt);
  EXPECT_EQ(key_value("CapEff 1\n", "CapEff"), std::nullopt);
  EXPECT_EQ(key_value("", "CapEff"), std::nullopt);
}

// One escape for JUnit's XML and report.html: markup as entities, the control characters XML
// 1.0 does not allow (and DEL) as the given character; tab, newline and CR kept.
TEST(MarkupEscape, EntitiesAndControlCharacters) {
  EXPECT_EQ(markup_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(markup_escape("t\tn\nr\rbell\a del\x7f"), "t\tn\nr\rbell? del?");
  EXPECT_EQ(markup_escape("bell\a", ' '), "bell ");
  EXPECT_EQ(markup_escape("<script>"), "&lt;script&gt;");
  EXPECT_EQ(markup_escape(""), "");
}

// The published FNV-1a test vectors (the empty string is the offset basis).
TEST(Fnv1a, MatchesThePublishedVectors) {
  EXPECT_EQ(fnv1a_32(""), 0x811c9dc5u);
  EXPECT_EQ(fnv1a_32("a"), 0xe40c292cu);
  EXPECT_EQ(fnv1a_32("foobar"), 0xbf9cf968u);
  EXPECT_EQ(fnv1a_64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a_64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a_64("foobar"), 0x85944171f73967e8ULL);
}

}  // namespace
}  // namespace xrunlab
