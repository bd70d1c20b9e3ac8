// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/json_members.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

using nlohmann::json;

const std::vector<std::string_view> kKeep = {"spec", "totals", "empty"};

json document() {
  json j;
  j["host"] = {{"cmdline", "a}]\\\"{[ \\"}, {"n", -1.5e3}};
  j["spec"] = {{"label", "tricky \"label\" {x}"}};
  j["clients"] = json::array({{{"name", "c\"}],{"}, {"rows", {1, 2.5, nullptr, true}}}});
  j["totals"] = {{"xrun_count", 3}, {"delay_us", {{"max", 7}}}};
  j["empty"] = json::object();
  j["zzz_after"] = {{"note", "]}"}, {"t", false}, {"z", nullptr}};
  return j;
}

// Only the kept members, whatever the layout; brackets and quotes inside skipped strings do
// not confuse the scanner.
TEST(ParseJsonMembers, KeepsOnlyTheNamedMembersInAnyLayout) {
  const json j = document();
  json expected = {{"spec", j["spec"]}, {"totals", j["totals"]}, {"empty", json::object()}};
  for (const std::string& text : {j.dump(), j.dump(2), j.dump(-1, ' ', true), j.dump(1, '\t')}) {
    std::string why;
    const auto got = parse_json_members(text, kKeep, &why);
    ASSERT_TRUE(got) << why;
    EXPECT_EQ(*got, expected) << text;
  }
  std::string why;
  EXPECT_EQ(parse_json_members("{}", kKeep, &why), json::object());
  EXPECT_EQ(parse_json_members(" { \"other\" : [ ] } \n", kKeep, &why), json::object());
}

// Broken anywhere, also in a part that would be skipped: an error, not a half-read object.
TEST(ParseJsonMembers, BrokenTextIsAnError) {
  std::string text = document().dump();
  text.resize(text.size() - 3);
  for (const std::string& broken : {text, std::string("{\"spec\": {"), std::string("{\"spec\" 1}"),
                                    std::string(""), std::string("{\"a\": 1} x")}) {
    std::string why;
    EXPECT_FALSE(parse_json_members(broken, kKeep, &why)) << broken;
    EXPECT_EQ(why.rfind("not valid JSON (", 0), 0u) << why;
  }
}

// What the scanner does not expect goes to the full parser: a document that is not an object
// comes back as it is (the caller checks its type).
TEST(ParseJsonMembers, OtherDocumentsAsTheyAre) {
  std::string why;
  EXPECT_EQ(parse_json_members("[1, {\"spec\": 2}]", kKeep, &why),
            json::parse("[1, {\"spec\": 2}]"));
  EXPECT_EQ(parse_json_members("42", kKeep, &why), json(42));
}

}  // namespace
}  // namespace xrunlab
