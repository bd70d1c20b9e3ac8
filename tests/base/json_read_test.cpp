// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/json_read.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using nlohmann::json;
using testing_support::TempDir;

// The message a read refuses with ("" when it reads).
template <typename F>
std::string refusal(F read) {
  try {
    read();
  } catch (const JsonRefused& e) {
    return e.what();
  }
  return "";
}

TEST(JsonRead, ReadsEachMemberByItsKeyAndKeepsTheDefaultOfAbsentAndNullOnes) {
  const json doc = json::parse(R"({"rate": 48000, "name": "a", "load": 1.5, "gone": null})");
  const JsonObject o(doc, "");
  uint32_t rate = 0;
  std::string name, gone = "kept";
  double load = 0;
  int absent = 7;
  o.get("rate", rate);
  o.get("name", name);
  o.get("load", load);
  o.get("gone", gone);
  o.get("absent", absent);
  EXPECT_EQ(rate, 48000u);
  EXPECT_EQ(name, "a");
  EXPECT_EQ(load, 1.5);
  EXPECT_EQ(gone, "kept");
  EXPECT_EQ(absent, 7);
}

TEST(JsonRead, IntegersWrittenAsWholeFloatsReadButFractionsAndOutOfRangeAreRefused) {
  const json doc = json::parse(R"({"a": 300.0, "b": 300.5, "c": -1, "d": 4294967296, "e": 1e300})");
  const JsonObject o(doc, "top");
  uint32_t a = 0;
  o.get("a", a);
  EXPECT_EQ(a, 300u);
  uint32_t b = 0, c = 0, d = 0;
  int64_t e = 0;
  EXPECT_EQ(refusal([&] { o.get("b", b); }),
            "'top.b' is not a non-negative integer (it is number)");
  EXPECT_EQ(refusal([&] { o.get("c", c); }),
            "'top.c' is not a non-negative integer (it is number)");
  EXPECT_EQ(refusal([&] { o.get("d", d); }), "'top.d' is not an integer in range (it is number)");
  EXPECT_EQ(refusal([&] { o.get("e", e); }), "'top.e' is not an integer in range (it is number)");
}

TEST(JsonRead, AWrongTypeIsRefusedNamingItsPath) {
  const json doc = json::parse(R"({"s": {"clients": "four", "list": [1, "x"]}})");
  const JsonObject o(doc, "");
  const std::optional<JsonObject> s = o.object("s");
  ASSERT_TRUE(s);
  int clients = 0;
  std::vector<int> list;
  EXPECT_EQ(refusal([&] { s->get("clients", clients); }),
            "'s.clients' is not an integer (it is string)");
  EXPECT_EQ(refusal([&] { s->get("list", list); }), "'s.list[1]' is not an integer (it is string)");
  EXPECT_EQ(refusal([&] { JsonObject(json::array(), "", "run.json"); }),
            "'run.json' is not an object (it is array)");
}

TEST(JsonRead, OptionalsReadNullAsNotKnown) {
  const json doc = json::parse(R"({"x": null, "y": 2.5})");
  const JsonObject o(doc, "");
  std::optional<double> x = 1.0, y;
  o.get("x", x);  // null: the member is as absent, x keeps its value
  o.get("y", y);
  EXPECT_EQ(x, 1.0);
  EXPECT_EQ(y, 2.5);
  std::vector<std::optional<int>> v;
  JsonObject(json::parse(R"({"v": [1, null]})"), "").get("v", v);
  EXPECT_EQ(v, (std::vector<std::optional<int>>{1, std::nullopt}));
}

TEST(JsonRead, RequireRefusesAMissingMember) {
  const json doc = json::parse(R"({"runs": []})");
  const JsonObject o(doc, "campaign");
  int schema = 0;
  EXPECT_EQ(refusal([&] { o.require("schema_version", schema); }), "no 'campaign.schema_version'");
}

TEST(JsonRead, EachVisitsEveryObjectOfAnArrayWithItsPath) {
  const json doc = json::parse(R"({"runs": [{"i": 1}, {"i": 2}, 3]})");
  const JsonObject o(doc, "");
  std::vector<int> seen;
  const std::string why = refusal([&] {
    o.each("runs", [&](const JsonObject& r) {
      int i = 0;
      r.get("i", i);
      seen.push_back(i);
    });
  });
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(why, "'runs[2]' is not an object (it is number)");
}

TEST(ReadJsonFile, SaysWhichFileCannotBeReadOrIsNotJson) {
  TempDir dir("json_read");
  std::string why;
  EXPECT_FALSE(read_json_file(dir.path().string() + "/none.json", &why));
  EXPECT_EQ(why.rfind("cannot read " + dir.path().string() + "/none.json: ", 0), 0u) << why;
  const std::string bad = dir.write("bad.json", "{\"a\": ");
  EXPECT_FALSE(read_json_file(bad, &why));
  EXPECT_EQ(why.rfind(bad + ": not JSON (parse error at line 1, column 7: ", 0), 0u) << why;
  const std::optional<json> good = read_json_file(dir.write("good.json", "{\"a\": 1}\n"), &why);
  ASSERT_TRUE(good);
  EXPECT_EQ(good->at("a"), 1);
}

}  // namespace
}  // namespace xrunlab
