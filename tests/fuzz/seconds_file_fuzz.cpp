// SPDX-License-Identifier: GPL-2.0-or-later
// seconds.jsonl's reader (engine/report/seconds_file.hpp parse_seconds_file: what the end of a
// run, load_run_folder and a killed run's janitor read back). A refusal is an Error naming the
// file; rows that read write a file that reads back to the same rows, which write the same text
// again.
#include <string>

#include "engine/base/errors.hpp"
#include "engine/report/seconds_file.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

// A model with a client for every index the rows name, holding the rows.
xrunlab::RunResult model_of(const xrunlab::SecondsRows& rows) {
  xrunlab::RunResult r;
  for (const auto& [index, seconds] : rows.clients) {
    xrunlab::ClientResult c;
    c.index = index;
    r.client_results.push_back(c);
  }
  xrunlab::put_seconds_rows(r, rows, "in");
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  xrunlab::SecondsRows rows;
  try {
    rows = xrunlab::parse_seconds_file(text, "in");
  } catch (const xrunlab::Error& e) {
    FUZZ_CHECK(std::string(e.what()).rfind("in", 0) == 0);
    return 0;
  }
  const std::string once = xrunlab::format_seconds_file(model_of(rows));
  xrunlab::SecondsRows back;
  try {
    back = xrunlab::parse_seconds_file(once, "out");
  } catch (const xrunlab::Error& e) {
    std::fprintf(stderr, "written seconds.jsonl does not read: %s\n", e.what());
    FUZZ_CHECK(false);
  }
  FUZZ_CHECK(back.cut.empty());
  FUZZ_CHECK(back.client_rows == rows.client_rows);
  FUZZ_CHECK(back.system.size() == rows.system.size());
  FUZZ_CHECK(xrunlab::format_seconds_file(model_of(back)) == once);
  return 0;
}
