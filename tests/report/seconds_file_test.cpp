// SPDX-License-Identifier: GPL-2.0-or-later
// seconds.jsonl: the per-second rows a run appends at its checkpoints instead of holding them.
#include "engine/report/seconds_file.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/base/errors.hpp"
#include "engine/report/report_csv.hpp"
#include "engine/result/run_json.hpp"
#include "tests/support/files.hpp"
#include "tests/support/sample_result.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

// The sample without its rows: what a run holds after its last checkpoint took them.
RunResult without_rows(RunResult r) {
  for (ClientResult& c : r.client_results) c.seconds.clear();
  r.system.clear();
  return r;
}

std::string error_of(const std::string& text) {
  try {
    parse_seconds_file(text, "s.jsonl");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  ADD_FAILURE() << "read: " << text;
  return "";
}

TEST(SecondsFile, EachLineIsOneJsonObject) {
  const RunResult r = testing_support::sample_result();
  std::istringstream in(format_seconds_file(r));
  std::string line;
  std::vector<nlohmann::json> lines;
  while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 1u + 6u + 3u);
  EXPECT_EQ(lines[0]["xrunlab_seconds"], 1);
  EXPECT_EQ(lines[0]["client_columns"], nlohmann::json(client_second_columns()));
  EXPECT_EQ(lines[1]["client"], r.client_results[0].index);
  EXPECT_EQ(lines[1]["row"][0], 0);  // second 0
  EXPECT_EQ(lines[4]["client"], r.client_results[1].index);
  EXPECT_EQ(lines[7]["system"]["t_s"], r.system[0].t_s);
}

// Every row read back is the row written: the model with them renders the same run.json and
// timeseries.csv.
TEST(SecondsFile, RowsReadBackAreTheRowsWritten) {
  const RunResult r = testing_support::sample_result();
  RunResult back = without_rows(r);
  const std::vector<std::string> warnings =
      put_seconds_rows(back, parse_seconds_file(format_seconds_file(r), "s.jsonl"), "s.jsonl");
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(back.seconds_appended);
  EXPECT_EQ(format_timeseries_csv(back), format_timeseries_csv(r));
  EXPECT_EQ(format_seconds_file(back), format_seconds_file(r));
  EXPECT_EQ(to_json(back), to_json(r));
}

// A run takes its rows out of memory at each checkpoint; its averages over every system second
// stay what they would have been with every row held, to the last bit.
TEST(SecondsFile, TakenRowsStillCountInTheAverages) {
  RunResult whole = testing_support::sample_result();
  whole.system[1].cpu_accounted_pct = 60.0;  // one short second: the accounting warning
  RunResult taken = whole;
  finalize(whole);

  std::string lines = seconds_file_header();
  // First checkpoint: the first two system seconds and every client's first row.
  RunResult later = taken;
  for (ClientResult& c : taken.client_results) c.seconds.resize(1);
  taken.system.resize(2);
  lines += take_seconds_rows(taken);
  EXPECT_EQ(taken.client_rows_flushed, 2u);
  EXPECT_EQ(taken.system_flushed.n, 2u);
  EXPECT_TRUE(taken.system.empty());
  EXPECT_TRUE(taken.client_results[0].seconds.empty());
  // What arrived since.
  for (size_t i = 0; i < taken.client_results.size(); ++i) {
    const auto& all = later.client_results[i].seconds;
    taken.client_results[i].seconds.assign(all.begin() + 1, all.end());
  }
  taken.system.assign(later.system.begin() + 2, later.system.end());
  finalize(taken);
  EXPECT_EQ(taken.avg_user, whole.avg_user);
  EXPECT_EQ(taken.avg_ctxt, whole.avg_ctxt);
  EXPECT_EQ(taken.avg_dsp_load, whole.avg_dsp_load);
  EXPECT_EQ(taken.warnings, whole.warnings);
  EXPECT_EQ(to_json(taken)["per_second"], to_json(whole)["per_second"]);

  // The end: the rest appended, the whole file read back.
  lines += take_seconds_rows(taken);
  // Two appends: each holds every client's rows since the one before, then the system's.
  EXPECT_NE(lines, format_seconds_file(whole));
  RunResult back = without_rows(whole);
  put_seconds_rows(back, parse_seconds_file(lines, "s.jsonl"), "s.jsonl");
  EXPECT_EQ(format_timeseries_csv(back), format_timeseries_csv(whole));
  EXPECT_EQ(back.client_rows_flushed, 0u);
  EXPECT_EQ(back.system_flushed.n, 0u);
}

// The engine killed in the middle of an append: the complete lines are read, and the warning
// says which line was cut.
TEST(SecondsFile, ACutLastLineIsDroppedWithAWarning) {
  const std::string whole = format_seconds_file(testing_support::sample_result());
  const std::string cut = whole.substr(0, whole.size() - 10);
  const SecondsRows rows = parse_seconds_file(cut, "s.jsonl");
  EXPECT_EQ(rows.system.size(), 2u);
  EXPECT_EQ(rows.client_rows, 6u);
  EXPECT_NE(rows.cut.find("s.jsonl: its last line (line 10, "), std::string::npos) << rows.cut;

  RunResult r = without_rows(testing_support::sample_result());
  r.client_rows_flushed = 6;
  r.system_flushed.n = 3;  // as run.json counted them
  const std::vector<std::string> w = put_seconds_rows(r, rows, "s.jsonl");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], rows.cut);
  EXPECT_EQ(w[1],
            "s.jsonl: holds 6 client and 2 system rows, run.json counted 6 and 3: rows are "
            "missing");
}

TEST(SecondsFile, RefusalsNameTheLine) {
  const std::string header = seconds_file_header();
  EXPECT_EQ(error_of(""), "s.jsonl: empty (not even the header line)");
  EXPECT_EQ(error_of("[1]\n"), "s.jsonl:1: not a JSON object");
  EXPECT_EQ(error_of("{\"xrunlab_seconds\": 2, \"client_columns\": []}\n"),
            "s.jsonl:1: \"xrunlab_seconds\" is 2, this xrunlab reads 1");
  EXPECT_EQ(error_of(header + "{\"client\": 1, \"row\": [0]}\n"),
            "s.jsonl:2: 'row' has 1 cells for 10 columns");
  EXPECT_EQ(error_of(header + "{\"client\": \"a\", \"row\": []}\n"),
            "s.jsonl:2: \"client\" is not an integer");
  EXPECT_EQ(error_of(header + "{\"client\": -1, \"row\": []}\n"),
            "s.jsonl:2: \"client\" is out of range");
  EXPECT_EQ(error_of(header + "{\"system\": {\"t_s\": \"x\"}}\n"),
            "s.jsonl:2: 'system.t_s' is not a number (it is string)");
  EXPECT_EQ(error_of(header + "{}\n"), "s.jsonl:2: neither a \"client\" nor a \"system\" row");
  EXPECT_EQ(error_of(header + "{\"system\": {}}\nnot json\n"), "s.jsonl:3: not a JSON object");
  // Columns a later version adds are skipped; the ones it lacks keep their defaults.
  const SecondsRows rows = parse_seconds_file(
      "{\"xrunlab_seconds\": 1, \"client_columns\": [\"cycles\", \"new\", \"second\"]}\n"
      "{\"client\": 2, \"row\": [187, \"x\", 4]}\n",
      "s.jsonl");
  ASSERT_EQ(rows.clients.at(2).size(), 1u);
  EXPECT_EQ(rows.clients.at(2)[0].cycles, 187u);
  EXPECT_EQ(rows.clients.at(2)[0].second, 4);
  EXPECT_FALSE(rows.clients.at(2)[0].delay_max_us);
}

TEST(SecondsAppender, AppendsWholeLinesAfterItsHeader) {
  TempDir tmp;
  const std::string path = tmp.file("seconds.jsonl");
  const RunResult r = testing_support::sample_result();
  {
    SecondsAppender a(path);
    EXPECT_EQ(testing_support::read_text(path), seconds_file_header());
    a.append(format_seconds_rows(r));
    a.append("");
    a.append(format_seconds_rows(r));
  }
  const std::string rows = format_seconds_rows(r);
  EXPECT_EQ(testing_support::read_text(path), seconds_file_header() + rows + rows);
  // A new run's file starts over.
  SecondsAppender again(path);
  EXPECT_EQ(testing_support::read_text(path), seconds_file_header());
}

TEST(SecondsAppender, AnUnwritablePlaceIsAnOutputError) {
  try {
    SecondsAppender a("/nonexistent-folder/seconds.jsonl");
    ADD_FAILURE() << "created";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kOutput);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-folder/seconds.jsonl"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace xrunlab
