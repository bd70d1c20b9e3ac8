// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The run folder of a killed engine, marked as such: run.json and summary.txt say
// "status": "killed" (the status_detail says what happened), with everything the last
// checkpoint had measured kept. A folder whose run.json already has a final status (completed,
// failed, interrupted: the engine had written its results) keeps it, and summary.txt is made to
// follow it. An engine killed while writing its results (the other files written, run.json,
// which goes last, not yet) leaves a run.json that the files beside it do not match: run.json and
// summary.txt's Status line are then marked killed by hand. A folder without run.json (killed
// before the first checkpoint) gets one from what the janitor knows.
// Non-realtime.
#include <string>
#include <vector>

namespace xrunlab {

struct KilledRun {
  std::string detail;                     // status_detail
  std::vector<std::string> command_line;  // the engine's, for a folder without run.json
  std::string started_utc;                // likewise (the janitor's start)
};

// What was done, one line ("marked ... killed", "kept the final status 'completed'"); throws
// Error(kOutput) naming the file when the folder cannot be written.
std::string mark_run_killed(const std::string& run_dir, const KilledRun& k);

// Is `status` one an engine writes at its end (not the checkpoint's "incomplete")?
bool is_final_status(const std::string& status);

}  // namespace xrunlab
