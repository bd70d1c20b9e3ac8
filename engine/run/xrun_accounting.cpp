// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/xrun_accounting.hpp"

#include <utility>

namespace xrunlab {

void XrunAccounting::set_audio(bool on) {
  audio_ = on;
  ledger_.set_audio(on);
}

void XrunAccounting::take() {
  std::vector<XrunCallback> callbacks;
  bool cut = false;
  source_.take_callbacks(callbacks, &cut);
  ledger_.add_callbacks(std::move(callbacks), cut);
  std::vector<XrunLogLine> lines;
  cut = false;
  source_.take_log_lines(lines, &cut);
  ledger_.add_log_lines(lines, cut);
}

void XrunAccounting::settle(CycleJoiner& joiner, LiveResult& live, double now_s, double period_ms) {
  take();
  const double before_s = now_s - kSettleMarginS;
  if (audio_ && !ledger_.audio_frozen()) {
    const bool full = live.with(
        [&](const RunResult& r) { return r.audio && r.audio->glitches.size() >= kGlitchesKept; });
    if (!full) return;
    const std::vector<LogXrunEvent> log_events = source_.log_events();
    const bool frozen = live.with([&](RunResult& r) {
      return ledger_.freeze_audio(joiner, *r.audio, log_events, before_s, kGlitchesKept, period_ms);
    });
    if (!frozen) return;
  }
  ledger_.settle(joiner, before_s, period_ms);
}

XrunReports XrunAccounting::pending(const CycleJoiner& joiner, bool horizon) {
  take();
  ledger_.set_until_us(until_us_);
  return ledger_.pending(joiner, horizon);
}

void XrunAccounting::count(RunResult& r, const CycleJoiner& joiner,
                           const XrunReports& reports) const {
  count_against_cycles(r, joiner.xrun_runs(), joiner.frames(), reports, &ledger_.settled(),
                       &ledger_.settled_causes());
}

}  // namespace xrunlab
