// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The commands that read finished runs (plot, summary, compare, import, export), and where the
// shipped campaign presets are.
#include <string>
#include <vector>

#include "engine/app/cli.hpp"
#include "engine/campaign/campaign_plan.hpp"
#include "engine/campaign/campaign_runner.hpp"

namespace xrunlab {

// The records of an `xrunlab import` file (*.records.json); Error(kUsage) naming the file and
// what is wrong when it cannot be read or is not one.
std::vector<RunRecord> read_records_file(const std::string& path);

// Returns the exit code; throws xrunlab::Error for bad input (one line, documented code).
int run_report_command(const Command& cmd, const std::string& self_exe);

// `xrunlab run --repeat N`: a one-case campaign of N runs into OUTPUT/campaigns/LABEL, each run
// given the run's own arguments less those the campaign sets per run (cmd.repeat_run_args), the
// --fail-if thresholds and --junit checked on the case's median. Throws Error(kUsage) for
// arguments `run` refuses.
struct RepeatCampaign {
  CampaignOptions options;
  CampaignPlan plan;
};
RepeatCampaign repeat_campaign(const Command& cmd, const std::string& self_exe);

// The file of a shipped campaign preset: <scripts>/campaigns/NAME.toml, beside the plots'
// scripts (find_script_dir), never a relative folder. Throws Error(kUsage) naming the presets there
// when NAME is none, Error(kMissingProgram) when the scripts folder is not found.
std::string preset_file(const std::string& name, const std::string& self_exe);

}  // namespace xrunlab
