// SPDX-License-Identifier: GPL-2.0-or-later
// What `xrunlab history add` reads from outside: another machine's history file (any bytes, as
// a SQLite file: engine/history/history_db.hpp) and a run.json (its history row:
// engine/history/history_row.hpp). Checked:
//  * a file that is not a usable history is refused with Error(kHistory) in one line naming it,
//    never a crash;
//  * the rows of one that opens merge into a new history and read back the same, and merging
//    them again adds nothing (each row is keyed on its run id);
//  * a run.json that reads gives a row with an id, the same id every time.
#include <unistd.h>

#include <fstream>
#include <string>

#include "engine/base/errors.hpp"
#include "engine/history/history_db.hpp"
#include "engine/history/history_row.hpp"
#include "engine/result/run_identity.hpp"
#include "engine/result/run_json.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

bool same(const xrunlab::HistoryRow& a, const xrunlab::HistoryRow& b) {
  return a.run_id == b.run_id && a.source == b.source && a.started_utc == b.started_utc &&
         a.kernel == b.kernel && a.kernel_relabelled == b.kernel_relabelled &&
         a.policy == b.policy && a.period == b.period && a.clients == b.clients &&
         a.imported == b.imported && a.figures.size() == b.figures.size() && [&] {
           for (size_t i = 0; i < a.figures.size(); ++i) {
             // NaN never equals itself: compare what SQLite keeps (NULL for NaN).
             if (a.figures[i].has_value() != b.figures[i].has_value()) return false;
             if (a.figures[i] && *a.figures[i] == *a.figures[i] && *a.figures[i] != *b.figures[i]) {
               return false;
             }
           }
           return true;
         }();
}

void history_file(std::string_view bytes) {
  const std::string dir = "/tmp/xrunlab-fuzz-history-" + std::to_string(::getpid());
  const std::string in = dir + "-in.sqlite", out = dir + "-out.sqlite";
  {
    std::ofstream f(in, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  ::unlink(out.c_str());
  std::vector<xrunlab::HistoryRow> rows;
  try {
    rows = xrunlab::HistoryDb::open_existing(in).rows();
  } catch (const xrunlab::Error& e) {
    FUZZ_CHECK(e.code() == xrunlab::ExitCode::kHistory);
    const std::string m = e.what();
    FUZZ_CHECK(m.rfind(in + ": ", 0) == 0);
    FUZZ_CHECK(m.find('\n') == std::string::npos);
    return;
  }
  // Rows with the same id: the first is kept.
  xrunlab::HistoryDb merged(out);
  const size_t added = merged.add(rows);
  FUZZ_CHECK(added <= rows.size());
  FUZZ_CHECK(merged.add(rows) == 0);
  const std::vector<xrunlab::HistoryRow> back = merged.rows();
  FUZZ_CHECK(back.size() == added);
  for (const xrunlab::HistoryRow& b : back) {
    bool found = false;
    for (const xrunlab::HistoryRow& r : rows) {
      if (r.run_id == b.run_id) {
        found = same(r, b);
        break;
      }
    }
    FUZZ_CHECK(found);
  }
}

void run_json(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;
  std::string why;
  const auto r = xrunlab::run_result_from_json(j, &why);
  if (!r) return;
  const xrunlab::HistoryRow row = xrunlab::history_row_of(*r, "fuzz");
  FUZZ_CHECK(!row.run_id.empty());
  FUZZ_CHECK(row.run_id == xrunlab::run_identity(*r));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes = xrunlab::fuzz::text_of(data, size);
  if (bytes.rfind("SQLite format 3", 0) == 0 || bytes.empty() || bytes[0] != '{') {
    history_file(bytes);
  } else {
    run_json(bytes);
  }
  return 0;
}
