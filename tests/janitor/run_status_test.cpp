// SPDX-License-Identifier: GPL-2.0-or-later
// A killed engine's run folder, marked: a checkpoint becomes "killed" with its figures kept; a
// final status stays (its summary.txt follows it); a folder without run.json gets one.
#include "engine/janitor/run_status.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "engine/report/report_summary.hpp"
#include "engine/report/run_folder.hpp"
#include "tests/support/files.hpp"
#include "tests/support/sample_result.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using nlohmann::json;
using testing_support::read_text_or_empty;

void write_folder(const std::string& dir, RunResult r, const std::string& status) {
  finalize(r);
  r.status = *parse_run_status(status);
  r.status_detail = status == "incomplete" ? "checkpoint during the run" : "";
  write_run_files(dir, render_run_files(r));
}

KilledRun killed() {
  KilledRun k;
  k.detail = "the engine (pid 4242) ended before the run did";
  k.command_line = {"xrunlab", "run", "--duration", "5"};
  k.started_utc = "2026-01-01T00:00:00Z";
  return k;
}

TEST(RunStatus, ACheckpointIsMarkedKilledWithItsFiguresKept) {
  testing_support::TempDir dir("runstatus");
  write_folder(dir.str(), testing_support::sample_result(), "incomplete");
  const json before = json::parse(read_text_or_empty(dir.str() + "/run.json"));
  const std::string said = mark_run_killed(dir.str(), killed());
  EXPECT_NE(said.find("killed"), std::string::npos) << said;
  const json after = json::parse(read_text_or_empty(dir.str() + "/run.json"));
  EXPECT_EQ(after["status"], "killed");
  EXPECT_EQ(after["status_detail"], killed().detail);
  EXPECT_EQ(after["clients"], before["clients"]);
  EXPECT_EQ(after["totals"], before["totals"]);
  const auto s = parse_summary(read_text_or_empty(dir.str() + "/summary.txt"));
  EXPECT_EQ(s.at("Status").rfind("killed (the engine (pid 4242)", 0), 0u) << s.at("Status");
  // The page to share is there too, with what the checkpoint measured and why it has no plots.
  const std::string page = read_text_or_empty(dir.str() + "/report.html");
  EXPECT_NE(page.find("killed (the engine (pid 4242)"), std::string::npos);
  EXPECT_NE(page.find("the run was killed before it drew its plots (xrunlab plot " + dir.str()),
            std::string::npos);
}

TEST(RunStatus, AFinalStatusStaysAndItsSummaryFollowsIt) {
  testing_support::TempDir dir("runstatus");
  write_folder(dir.str(), testing_support::sample_result(), "completed");
  const std::string run_json = read_text_or_empty(dir.str() + "/run.json");
  const std::string summary = read_text_or_empty(dir.str() + "/summary.txt");
  EXPECT_NE(mark_run_killed(dir.str(), killed()).find("kept the final status 'completed'"),
            std::string::npos);
  EXPECT_EQ(read_text_or_empty(dir.str() + "/run.json"), run_json);
  EXPECT_EQ(read_text_or_empty(dir.str() + "/summary.txt"), summary);

  // Killed between run.json and summary.txt: the checkpoint's summary is written again.
  RunResult r = testing_support::sample_result();
  finalize(r);
  r.status = RunStatus::kIncomplete;
  for (const RunFile& f : render_run_files(r)) {
    if (f.name == "summary.txt") write_run_files(dir.str(), {f});
  }
  EXPECT_NE(mark_run_killed(dir.str(), killed()).find("summary.txt written again"),
            std::string::npos);
  EXPECT_EQ(read_text_or_empty(dir.str() + "/summary.txt"), summary);
  EXPECT_EQ(read_text_or_empty(dir.str() + "/run.json"), run_json);
}

// The engine killed while writing its results: summary.txt, histogram.csv ... are the final ones,
// run.json (written last) is still the starting checkpoint's, without the clients.
TEST(RunStatus, KilledBeforeTheFinalRunJsonItsStatusLineSaysKilledToo) {
  testing_support::TempDir dir("runstatus");
  write_folder(dir.str(), testing_support::sample_result(), "completed");
  RunResult start = testing_support::sample_result();
  start.client_results.clear();
  finalize(start);
  start.status = RunStatus::kIncomplete;
  for (const RunFile& f : render_checkpoint_files(start)) {
    if (f.name == "run.json") write_run_files(dir.str(), {f});
  }
  const std::string summary = read_text_or_empty(dir.str() + "/summary.txt");
  const std::string said = mark_run_killed(dir.str(), killed());
  EXPECT_NE(said.find("did not match run.json"), std::string::npos) << said;
  EXPECT_EQ(json::parse(read_text_or_empty(dir.str() + "/run.json"))["status"], "killed");
  const std::string after = read_text_or_empty(dir.str() + "/summary.txt");
  const auto s = parse_summary(after);
  EXPECT_EQ(s.at("Status").rfind("killed (the engine (pid 4242)", 0), 0u) << s.at("Status");
  // Only the Status line changed: the final figures stay.
  EXPECT_EQ(s.at("Number of clients"), parse_summary(summary).at("Number of clients"));
  EXPECT_EQ(std::count(after.begin(), after.end(), '\n'),
            std::count(summary.begin(), summary.end(), '\n'));
  // A second janitor pass finds run.json final and leaves it.
  EXPECT_NE(mark_run_killed(dir.str(), killed()).find("kept the final status 'killed'"),
            std::string::npos);
  EXPECT_EQ(read_text_or_empty(dir.str() + "/summary.txt"), after);
}

// A final run.json beside files the model cannot read: summary.txt's Status line follows it.
TEST(RunStatus, AFinalStatusBesideAnUnreadableFolderStillSetsTheStatusLine) {
  testing_support::TempDir dir("runstatus");
  write_folder(dir.str(), testing_support::sample_result(), "completed");
  RunResult r = testing_support::sample_result();
  finalize(r);
  r.status = RunStatus::kIncomplete;
  for (const RunFile& f : render_run_files(r)) {
    if (f.name == "summary.txt") write_run_files(dir.str(), {f});
  }
  write_run_files(dir.str(), {{"histogram.csv", "not a histogram\n"}});
  EXPECT_NE(mark_run_killed(dir.str(), killed()).find("Status line written again"),
            std::string::npos);
  const auto s = parse_summary(read_text_or_empty(dir.str() + "/summary.txt"));
  EXPECT_EQ(s.at("Status"), "completed");
}

TEST(RunStatus, AFolderWithoutRunJsonGetsOne) {
  testing_support::TempDir dir("runstatus");
  EXPECT_NE(mark_run_killed(dir.str(), killed()).find("no checkpoint yet"), std::string::npos);
  const json j = json::parse(read_text_or_empty(dir.str() + "/run.json"));
  EXPECT_EQ(j["status"], "killed");
  EXPECT_EQ(j["command_line"], json(killed().command_line));
  const auto s = parse_summary(read_text_or_empty(dir.str() + "/summary.txt"));
  EXPECT_EQ(s.at("Status").rfind("killed", 0), 0u);
}

TEST(RunStatus, FinalStatuses) {
  for (const char* s : {"completed", "failed", "interrupted", "killed"}) {
    EXPECT_TRUE(is_final_status(s)) << s;
  }
  EXPECT_FALSE(is_final_status("incomplete"));
  EXPECT_FALSE(is_final_status(""));
}

}  // namespace
}  // namespace xrunlab
