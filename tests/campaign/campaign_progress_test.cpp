// SPDX-License-Identifier: GPL-2.0-or-later
// The campaign's live line (engine/campaign/campaign_progress.hpp): its fields, the running run's
// checkpoint counted once, the warm-up never, and whole fields dropped to fit a terminal.
#include "engine/campaign/campaign_progress.hpp"

#include <gtest/gtest.h>

#include "engine/run/progress.hpp"

namespace xrunlab {
namespace {

CampaignProgress sample() {
  CampaignProgress p;
  p.campaign = "t";
  p.position = 2;
  p.runs = 6;
  p.label = "02-other-20";
  p.run_elapsed_s = 3.4;
  p.all_elapsed_s = 16;
  p.left_s = 18;
  p.finished_xrun_events = 4;
  return p;
}

TEST(DurationText, SecondsMinutesHours) {
  EXPECT_EQ(duration_text(0.4), "0 s");
  EXPECT_EQ(duration_text(59.4), "59 s");
  EXPECT_EQ(duration_text(185), "3 min 05 s");
  EXPECT_EQ(duration_text(9000), "2 h 30 min");
}

TEST(CampaignProgressText, TheFinishedRunsAndTheRunningOnesCheckpoint) {
  CampaignProgress p = sample();
  EXPECT_EQ(campaign_progress_text(p),
            "xrunlab: campaign t: run 2/6 (02-other-20), 3 s | 16 s in all, about 18 s left | 4 "
            "xrun events so far (this run's not read yet)");
  p.running_xrun_events = 1;
  EXPECT_EQ(campaign_progress_text(p),
            "xrunlab: campaign t: run 2/6 (02-other-20), 3 s | 16 s in all, about 18 s left | 5 "
            "xrun events so far (1 in this run)");
}

TEST(CampaignProgressText, TheWarmUpsXrunsAreNotTheCampaigns) {
  CampaignProgress p = sample();
  p.warmup = true;
  p.label = "warmup";
  p.running_xrun_events = 7;
  EXPECT_NE(campaign_progress_text(p).find("| 4 xrun events so far (the warm-up's are not "
                                           "counted)"),
            std::string::npos)
      << campaign_progress_text(p);
}

TEST(CampaignProgressText, ANarrowTerminalLosesWholeFieldsFromTheEnd) {
  CampaignProgress p = sample();
  EXPECT_EQ(progress_fit(campaign_progress_text(p), 80),
            "campaign t: run 2/6 (02-other-20), 3 s | 16 s in all, about 18 s left");
  EXPECT_EQ(progress_fit(campaign_progress_text(p), 40), "campaign t: run 2/6 (02-other-20), 3 s");
}

}  // namespace
}  // namespace xrunlab
