// SPDX-License-Identifier: GPL-2.0-or-later
// campaign.json (engine/campaign/campaign_store.hpp): written and read back, and resuming: the
// finished runs kept, the rest planned, another plan refused unless --replan.
#include "engine/campaign/campaign_store.hpp"

#include <gtest/gtest.h>

#include "engine/base/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

void accept(const std::vector<std::string>&) {}

CampaignPlan plan_of(const std::string& extra = "") {
  return plan_campaign(parse_campaign("name = \"s\"\nrepetitions = 2\nseed = 3\n[run]\n"
                                      "duration = 2\n" +
                                          extra + "[axes]\npolicy = [\"fifo\", \"rr\"]\n",
                                      "c.toml"),
                       1, std::nullopt, accept);
}

// Marks run `i` completed with a run.json on disk.
void complete(CampaignState& s, size_t i, const TempDir& dir) {
  CampaignRunRecord& r = s.runs.at(i);
  r.status = "completed";
  r.run_dir = "runs/" + r.folder + "/x/20260101T000000Z";
  r.started_utc = "2026-01-01T00:00:0" + std::to_string(i) + "Z";
  r.figures = {{"xrun_events", 4}};
  dir.write(r.run_dir + "/run.json", "{}");
}

TEST(CampaignStore, ANewFolderHasEveryRunPending) {
  TempDir dir("campaign");
  const CampaignPlan p = plan_of();
  const ResumedState r = resume_campaign(std::nullopt, p, dir.str(), false);
  ASSERT_EQ(r.state.runs.size(), 4u);
  EXPECT_EQ(r.kept, 0u);
  for (const CampaignRunRecord& x : r.state.runs) EXPECT_EQ(x.status, "pending");
  EXPECT_EQ(r.state.runs[0].folder, run_folder_name(p, p.runs[0]));
  EXPECT_NE(r.state.runs[0].folder.find("-r01"), std::string::npos);
}

TEST(CampaignStore, TheStateRoundTripsThroughCampaignJson) {
  TempDir dir("campaign");
  CampaignState s = resume_campaign(std::nullopt, plan_of(), dir.str(), false).state;
  s.file = "c.toml";
  s.file_text = "name = \"s\"";
  s.runs[1].status = "failed";
  s.runs[1].exit_code = 4;
  s.runs[1].detail = "jackd did not start";
  save_campaign_state(dir.str(), s);
  const std::optional<CampaignState> back = load_campaign_state(dir.str());
  ASSERT_TRUE(back);
  EXPECT_EQ(to_json(*back), to_json(s));
  EXPECT_FALSE(s.updated_utc.empty());
  EXPECT_FALSE(load_campaign_state(dir.str() + "/none")) << "no campaign there";
}

TEST(CampaignStore, ResumingKeepsFinishedRunsAndRedoesTheRest) {
  TempDir dir("campaign");
  const CampaignPlan p = plan_of();
  CampaignState s = resume_campaign(std::nullopt, p, dir.str(), false).state;
  complete(s, 0, dir);
  complete(s, 1, dir);
  s.runs[2].status = "interrupted";
  s.runs[2].run_dir = "runs/x";
  s.runs[3].status = "completed";  // says completed, but its run.json is gone: redone
  s.runs[3].run_dir = "runs/gone";
  const ResumedState r = resume_campaign(s, p, dir.str(), false);
  EXPECT_EQ(r.kept, 2u);
  EXPECT_EQ(r.state.runs[0].status, "completed");
  EXPECT_EQ(r.state.runs[0].run_dir, s.runs[0].run_dir);
  EXPECT_EQ(r.state.runs[0].started_utc, s.runs[0].started_utc);
  EXPECT_EQ(r.state.runs[1].figures["xrun_events"], 4);
  EXPECT_EQ(r.state.runs[2].status, "pending");
  EXPECT_EQ(r.state.runs[3].status, "pending");
}

TEST(CampaignStore, AnotherPlanIsRefusedUnlessReplanned) {
  TempDir dir("campaign");
  CampaignState s = resume_campaign(std::nullopt, plan_of(), dir.str(), false).state;
  complete(s, 0, dir);
  const CampaignPlan other = plan_of("clients = 3\n");
  try {
    resume_campaign(s, other, dir.str(), false);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("another plan (its cases or their run options differ)"),
              std::string::npos)
        << e.what();
  }
  // Replanned: no case kept its arguments, so nothing is kept.
  EXPECT_EQ(resume_campaign(s, other, dir.str(), true).kept, 0u);
  // One more repetition: the finished run of the same case and repetition is kept.
  const CampaignPlan more = plan_campaign(
      parse_campaign("name = \"s\"\nrepetitions = 3\nseed = 3\n[run]\nduration = 2\n[axes]\n"
                     "policy = [\"fifo\", \"rr\"]\n",
                     "c.toml"),
      1, std::nullopt, accept);
  const ResumedState r = resume_campaign(s, more, dir.str(), true);
  EXPECT_EQ(r.kept, 1u);
}

TEST(CampaignStore, AMalformedStateIsNamed) {
  TempDir dir("campaign");
  dir.write("campaign.json", "{ not json");
  try {
    load_campaign_state(dir.str());
    ADD_FAILURE();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(dir.file("campaign.json") + ": not JSON (parse error at line 1, ", 0), 0u)
        << what;
    EXPECT_NE(what.find("); move it aside to start the campaign anew"), std::string::npos) << what;
  }
  dir.write("campaign.json", "{\"plan\": {}, \"runs\": [], \"schema_version\": 9}");
  try {
    load_campaign_state(dir.str());
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema_version 9 is not 1"), std::string::npos);
  }
}

}  // namespace
}  // namespace xrunlab
