// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/campaign_progress.hpp"

#include <fmt/format.h>

namespace xrunlab {

std::string duration_text(double s) {
  // A duration is never negative, and for one that is not, + 0.5 and truncating rounds to the
  // nearest second.
  const auto total = static_cast<long>(s + 0.5);  // NOLINT(bugprone-incorrect-roundings)
  if (total < 60) return fmt::format("{} s", total);
  if (total < 3600) return fmt::format("{} min {:02d} s", total / 60, total % 60);
  return fmt::format("{} h {:02d} min", total / 3600, (total % 3600) / 60);
}

std::string campaign_progress_text(const CampaignProgress& p) {
  const uint64_t running = p.warmup ? 0 : p.running_xrun_events.value_or(0);
  std::string mine;
  if (p.warmup) {
    mine = "the warm-up's are not counted";
  } else if (p.running_xrun_events) {
    mine = fmt::format("{} in this run", *p.running_xrun_events);
  } else {
    mine = "this run's not read yet";
  }
  return fmt::format(
      "xrunlab: campaign {}: run {}/{} ({}), {} | {} in all, about {} left | {} xrun events so "
      "far ({})",
      p.campaign, p.position, p.runs, p.label, duration_text(p.run_elapsed_s),
      duration_text(p.all_elapsed_s), duration_text(p.left_s), p.finished_xrun_events + running,
      mine);
}

}  // namespace xrunlab
