// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The live line of `xrunlab campaign` (and `run --repeat`): which run of how many, its case,
// the time in this run and in all, an estimate of the time left, and the xrun events so far
// (the finished runs' plus the running run's as of its last checkpoint). Shown once a second on
// a terminal through ProgressLine (engine/run/progress.hpp), which fits it to the width by
// dropping whole " | " fields from the end. Pure text; non-realtime.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace xrunlab {

// "42 s", "3 min 05 s", "2 h 30 min" (rounded to the second).
std::string duration_text(double seconds);

struct CampaignProgress {
  std::string campaign;
  size_t position = 0;  // 1-based, among every run of the plan
  size_t runs = 0;
  std::string label;  // the case's label, or "warmup"
  double run_elapsed_s = 0;
  double all_elapsed_s = 0;  // since this command started
  double left_s = 0;         // an estimate
  uint64_t finished_xrun_events = 0;
  // The running run's, from its last checkpoint; nullopt before its first one. Not counted
  // for the warm-up (its runs are not the campaign's).
  std::optional<uint64_t> running_xrun_events;
  bool warmup = false;
};

// "xrunlab: campaign t: run 2/6 (02-other-20), 3 s | 16 s in all, about 18 s left | 5 xrun
// events so far (1 in this run)": the time after the case is this run's; the running run's
// xrun events are its last checkpoint's (`xrunlab run` writes one every 5 s, at most every 60 s
// in long runs).
std::string campaign_progress_text(const CampaignProgress& p);

}  // namespace xrunlab
