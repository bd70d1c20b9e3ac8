// SPDX-License-Identifier: GPL-2.0-or-later
// The jack_test importer (engine/report/run_record.hpp import_jack_test, on top of
// engine/report/report_summary.hpp parse_summary_lines). Nothing imported means a message
// naming the source; every imported record keeps the documented bounds (counts and settings
// whole numbers in range, times, loads and rates in range, runs >= 1) and survives the records
// file (records_file_json / records_from_file_json) unchanged.
#include <cmath>
#include <string>

#include "engine/report/report_summary.hpp"
#include "engine/report/run_record.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

bool whole(double v) {
  return std::floor(v) == v;
}

void check_bounds(const xrunlab::RunRecord& r) {
  using xrunlab::FieldKind;
  FUZZ_CHECK(r.imported);
  FUZZ_CHECK(r.runs >= 1 && r.runs <= 1000000);
  for (const xrunlab::RecordField& f : xrunlab::record_fields()) {
    const std::optional<double>& v = r.*f.member;
    if (!v) continue;
    FUZZ_CHECK(std::isfinite(*v) && *v >= 0);
    switch (f.kind) {
      case FieldKind::kSetting:
        FUZZ_CHECK(whole(*v) && *v <= 1e6);
        break;
      case FieldKind::kCount:
        FUZZ_CHECK(whole(*v) && *v <= 1e9);
        break;
      case FieldKind::kUsecs:
        FUZZ_CHECK(*v <= 3.6e9);
        break;
      case FieldKind::kPercent:
        FUZZ_CHECK(*v <= 100);
        break;
      case FieldKind::kPerSecond:
        FUZZ_CHECK(*v <= 1e9);
        break;
      case FieldKind::kPerHour:
        FUZZ_CHECK(*v <= 1e8);
        break;
      case FieldKind::kSeconds:
        // A consolidated block's seconds are runs x its "Total seconds ran".
        FUZZ_CHECK(*v <= 31536000.0 * r.runs);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  for (const xrunlab::SummaryLine& l : xrunlab::parse_summary_lines(text)) {
    FUZZ_CHECK(l.line >= 1);
    FUZZ_CHECK(!l.label.empty());
  }
  (void)xrunlab::parse_summary(text);

  std::string why;
  const std::vector<xrunlab::RunRecord> records =
      xrunlab::import_jack_test(text, "fuzz.SUMMARY", &why);
  if (records.empty()) {
    FUZZ_CHECK(why.rfind("fuzz.SUMMARY", 0) == 0);
    return 0;
  }
  for (const xrunlab::RunRecord& r : records) check_bounds(r);
  const nlohmann::json file = xrunlab::records_file_json(records, "fuzz.SUMMARY");
  std::string why2;
  const auto back = xrunlab::records_from_file_json(file, &why2);
  if (!back) std::fprintf(stderr, "records file does not read back: %s\n", why2.c_str());
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(back->size() == records.size());
  FUZZ_CHECK(xrunlab::records_file_json(*back, "fuzz.SUMMARY") == file);
  return 0;
}
