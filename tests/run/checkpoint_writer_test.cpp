// SPDX-License-Identifier: GPL-2.0-or-later
// The checkpoint writer (engine/run/checkpoint_writer.hpp) on a hand-built result: the files it
// writes say "incomplete" while the live result keeps its own status, the per-second rows leave
// memory for seconds.jsonl and all come back at the end, and a write that fails is reported,
// not thrown.
#include "engine/run/checkpoint_writer.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/sample_result.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::read_text;
using testing_support::sample_result;
using testing_support::TempDir;

nlohmann::json run_json(const TempDir& dir) {
  return nlohmann::json::parse(read_text(dir.file("run.json")));
}

TEST(CheckpointWriter, TheStartingFilesSayIncompleteAndTheResultKeepsItsStatus) {
  TempDir dir("checkpoint");
  RunResult r = sample_result();
  CheckpointWriter w;
  EXPECT_FALSE(w.started());
  w.start(dir.str(), r);
  EXPECT_TRUE(w.started());
  const nlohmann::json j = run_json(dir);
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_NE(j["status_detail"].get<std::string>().find("written as the run started"),
            std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir.file("summary.txt")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("histogram.csv")));
  EXPECT_EQ(read_text(dir.file("seconds.jsonl")), seconds_file_header());
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_EQ(r.status_detail, "client 2 exited with status 1");
  EXPECT_EQ(r.ended_utc, "");
}

TEST(CheckpointWriter, ACheckpointMovesTheRowsToDiskAndEveryRowComesBackAtTheEnd) {
  TempDir dir("checkpoint");
  RunResult r = sample_result();
  const size_t system_rows = r.system.size();
  const size_t client_rows = r.client_results[0].seconds.size();
  const size_t warnings = r.warnings.size();
  ASSERT_GT(system_rows, 0u);
  CheckpointWriter w;
  w.start(dir.str(), r);
  const CheckpointFiles files = w.render(r, 2.5);
  EXPECT_TRUE(r.system.empty()) << "the rows left memory";
  EXPECT_TRUE(r.client_results[0].seconds.empty());
  EXPECT_EQ(r.status, RunStatus::kFailed) << "the live status is the run's, not the checkpoint's";
  EXPECT_DOUBLE_EQ(r.seconds_ran, 3.02);
  const CheckpointWrite written = w.write(files);
  EXPECT_TRUE(written.ok) << written.message;
  const nlohmann::json j = run_json(dir);
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_NE(j["status_detail"].get<std::string>().find("checkpoint during the run"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(j["measurement"]["seconds_ran"].get<double>(), 2.5) << j["measurement"];

  w.collect_seconds(r);
  EXPECT_EQ(r.system.size(), system_rows);
  EXPECT_EQ(r.client_results[0].seconds.size(), client_rows);
  EXPECT_EQ(r.warnings.size(), warnings) << r.warnings.back();
}

TEST(CheckpointWriter, AWriteThatFailsIsReportedNotThrown) {
  RunResult r = sample_result();
  CheckpointWriter w;
  TempDir dir("checkpoint");
  const std::string run_dir = dir.file("run");
  std::filesystem::create_directory(run_dir);
  w.start(run_dir, r);
  // The folder replaced by a file: nothing can be written into it any more.
  std::filesystem::remove_all(run_dir);
  dir.write("run", "");
  const CheckpointWrite written = w.write(w.render(r, 1.0));
  EXPECT_FALSE(written.ok);
  EXPECT_FALSE(written.disk_full);
  EXPECT_NE(written.message.find(run_dir), std::string::npos) << written.message;
}

TEST(CheckpointWriter, WithoutStartNothingIsCollected) {
  RunResult r = sample_result();
  const size_t system_rows = r.system.size();
  const size_t warnings = r.warnings.size();
  CheckpointWriter w;
  w.collect_seconds(r);
  EXPECT_EQ(r.system.size(), system_rows);
  EXPECT_EQ(r.warnings.size(), warnings);
}

}  // namespace
}  // namespace xrunlab
