// SPDX-License-Identifier: GPL-2.0-or-later
// The run.json readers: parse_json_members (engine/report/json_members.hpp, the fast reader of
// `xrunlab summary`), run_result_from_json (engine/result/run_json.hpp), the run record and
// records-file readers (engine/report/run_record.hpp). Checked:
//  * where the input is JSON, parse_json_members keeps exactly the members the full parser
//    sees (the same values for the same kept keys);
//  * a RunResult read from the input writes a run.json that reads back and writes the same
//    (to_json(*run_result_from_json(to_json(r))) == to_json(r), the codec's contract);
//  * its record survives to_json/run_record_from_json; a records file that reads gives records
//    that write and read back the same.
// Every rejection says why.
#include <string>
#include <vector>

#include "engine/report/json_members.hpp"
#include "engine/report/run_record.hpp"
#include "engine/result/run_json.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

const std::vector<std::string_view> kKeep = {
    "schema_version", "spec",      "status",          "totals", "host",
    "jack",           "jack_test", "xrunlab_records", "records"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  const nlohmann::json full = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);

  std::string why;
  const auto members = xrunlab::parse_json_members(text, kKeep, &why);
  if (!members) FUZZ_CHECK(!why.empty());
  if (!full.is_discarded()) {
    FUZZ_CHECK(members.has_value());
    if (full.is_object()) {
      FUZZ_CHECK(members->is_object());
      nlohmann::json expected = nlohmann::json::object();
      for (const auto& [k, v] : full.items()) {
        for (const std::string_view keep : kKeep) {
          if (k == keep) expected[k] = v;
        }
      }
      if (*members != expected) {
        std::fprintf(stderr, "kept members differ:\n%s\n%s\n", members->dump().c_str(),
                     expected.dump().c_str());
      }
      FUZZ_CHECK(*members == expected);
    }
  }
  if (full.is_discarded()) return 0;

  std::string why2;
  const auto r = xrunlab::run_result_from_json(full, &why2);
  if (!r) {
    FUZZ_CHECK(!why2.empty());
  } else {
    const nlohmann::ordered_json once = xrunlab::to_json(*r);
    std::string why3;
    const auto back = xrunlab::run_result_from_json(nlohmann::json(once), &why3);
    if (!back) std::fprintf(stderr, "written run.json does not read: %s\n", why3.c_str());
    FUZZ_CHECK(back.has_value());
    const nlohmann::ordered_json twice = xrunlab::to_json(*back);
    if (twice != once) {
      std::fprintf(stderr, "run.json changes when read back:\n%s\n%s\n", once.dump().c_str(),
                   twice.dump().c_str());
    }
    FUZZ_CHECK(twice == once);

    xrunlab::RunRecord rec = xrunlab::record_of(*r);
    if (rec.label.empty()) rec.label = "run";  // as read_run_folder names it (its folder)
    std::string why4;
    const auto rec_back = xrunlab::run_record_from_json(xrunlab::to_json(rec), &why4);
    if (!rec_back) std::fprintf(stderr, "record does not read back: %s\n", why4.c_str());
    FUZZ_CHECK(rec_back.has_value());
    FUZZ_CHECK(xrunlab::to_json(*rec_back) == xrunlab::to_json(rec));
  }

  std::string why5;
  const auto records = xrunlab::records_from_file_json(full, &why5);
  if (!records) {
    FUZZ_CHECK(!why5.empty());
  } else {
    const nlohmann::json file = xrunlab::records_file_json(*records, "fuzz.records.json");
    std::string why6;
    const auto again = xrunlab::records_from_file_json(file, &why6);
    if (!again) std::fprintf(stderr, "records file does not read back: %s\n", why6.c_str());
    FUZZ_CHECK(again.has_value());
    FUZZ_CHECK(xrunlab::records_file_json(*again, "fuzz.records.json") == file);
  }
  return 0;
}
