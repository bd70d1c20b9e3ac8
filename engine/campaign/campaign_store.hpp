// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// campaign.json: a campaign's plan and the state of each of its runs, written atomically after
// every change, so that the same command continues a campaign after Ctrl-C, a crash or a
// reboot. Finished runs are kept and never redone; a run that did not finish is redone (its
// folder, if any, set aside as <folder>.incomplete-N, never deleted).
// Non-realtime.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/campaign/campaign_plan.hpp"

namespace xrunlab {

struct CampaignRunRecord {
  int index = 0;
  int case_index = 0;
  int rep = 0;
  bool warmup = false;
  std::string folder;              // under runs/: "<case label>-rNN" or "warmup"
  std::string status = "pending";  // pending | running | completed | failed | interrupted
  std::string run_dir;             // the run's folder, relative to the campaign folder
  std::optional<int> exit_code;
  std::string started_utc, ended_utc;
  double wall_s = 0;       // start to end of the `xrunlab run` process
  std::string detail;      // why it failed
  nlohmann::json figures;  // a few of its numbers, for progress lines (run.json has them all)
};

// bugprone-exception-escape: clang-tidy 14 flags every struct holding a nlohmann::json, in a
// member or its own (what it takes for a throw is inside the library's noexcept members).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct CampaignState {
  int schema_version = 1;
  std::string xrunlab_version;
  std::string created_utc, updated_utc;
  std::string file;       // the campaign file as given
  std::string file_text;  // its text when planned
  nlohmann::json host;    // where it ran (host_context)
  nlohmann::json plan;    // plan_json()
  std::vector<CampaignRunRecord> runs;
};

// "<label>-r03", "warmup".
std::string run_folder_name(const CampaignPlan& plan, const PlannedRun& run);

nlohmann::json to_json(const CampaignState& s);
// Throws Error(kUsage) naming `path` when the JSON is not a campaign state.
CampaignState campaign_state_from_json(const nlohmann::json& j, const std::string& path);

// DIR/campaign.json, or nullopt when there is none; a malformed one is Error(kUsage) naming it.
std::optional<CampaignState> load_campaign_state(const std::string& dir);
void save_campaign_state(const std::string& dir, CampaignState& s);  // sets updated_utc

// The state to run `plan` with, given what `dir` holds. A folder with no campaign gives every
// run pending. One with the same plan keeps its completed runs (whose run.json is still there).
// One with another plan is refused (Error(kUsage) saying what differs) unless `replan`: then a
// completed run is kept when the new plan has a run with the same case arguments and
// repetition, and the rest is planned anew.
// bugprone-exception-escape: clang-tidy 14 flags every struct holding a nlohmann::json, in a
// member or its own (what it takes for a throw is inside the library's noexcept members).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct ResumedState {
  CampaignState state;
  size_t kept = 0;  // completed runs carried over
};
ResumedState resume_campaign(const std::optional<CampaignState>& old, const CampaignPlan& plan,
                             const std::string& dir, bool replan);

}  // namespace xrunlab
