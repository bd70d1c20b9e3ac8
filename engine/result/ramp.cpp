// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/ramp.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace xrunlab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// The cycles of one level whose hops are kept (its medians are over these).
constexpr size_t kLevelRowsKept = 4096;

// The median of the finite values (nullopt: none). Sorts a copy.
std::optional<double> median_of(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return std::nullopt;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

uint32_t ramp_every_cycles(uint32_t period, uint32_t rate) {
  if (period == 0) return 4;
  const double cycles = std::round(0.040 * static_cast<double>(rate) / static_cast<double>(period));
  return static_cast<uint32_t>(std::max(4.0, cycles));
}

double ramp_seconds(double start_pct, double top_pct, double step_pct, uint32_t every,
                    uint32_t period, uint32_t rate) {
  if (step_pct <= 0 || rate == 0 || top_pct <= start_pct) return 0;
  const double steps = std::ceil((top_pct - start_pct) / step_pct - 1e-9);
  return steps * every * static_cast<double>(period) / static_cast<double>(rate);
}

std::string ramp_text(const RampRecord& r) {
  const std::string how = fmt::format("+{:g} % every {} cycles", r.step_pct, r.every);
  if (!r.first_xrun) {
    if (r.ended == "full") {
      return fmt::format("no xrun up to {:.1f} % of the period, the ramp's top ({})", r.reached_pct,
                         how);
    }
    return fmt::format("stopped at {:.1f} % of the period before its first xrun ({})",
                       r.reached_pct, how);
  }
  const RampFirstXrun& f = *r.first_xrun;
  std::string out = fmt::format(
      "first xrun at {:.1f} % of the period (step {}, {}; cycle {} at "
      "{:.3f} s)",
      f.load_pct, f.step, how, f.cycle, f.t_s);
  if (f.measured_pct && f.nominal_pct) {
    out += fmt::format("; the step before measured {:.1f} % against its nominal {:.1f} %",
                       *f.measured_pct, *f.nominal_pct);
  }
  if (f.broke) {
    out += "; broke: " + f.broke->label;
    if (f.broke->kind != "not_run") {
      out += fmt::format(", {:.0f} us later than usual", f.broke->late_us);
    }
    if (!f.broke->cause.empty()) out += " (kernel: " + f.broke->cause + ")";
  }
  return out;
}

std::string explained_cause(const ExplainRecord& explain, uint64_t cycle, const std::string& key) {
  for (const ExplainedCycle& c : explain.cycles) {
    if (c.cycle != cycle) continue;
    for (const HopExplanation& h : c.hops) {
      if (h.hop.hop_key == key) return h.line;
    }
    return c.line;
  }
  return "";
}

RampTracker::RampTracker(std::vector<std::string> names, bool card, double ns_per_stage,
                         double period_ns, uint32_t every,
                         std::vector<std::optional<DspRampStages>> ramps)
    : names_(std::move(names)),
      clients_(names_.size()),
      card_(card),
      ns_per_stage_(ns_per_stage),
      period_ns_(period_ns),
      every_(std::max<uint32_t>(every, 1)),
      ramps_(std::move(ramps)),
      last_stages_(clients_, 0) {}

double RampTracker::pct(uint64_t stages) const {
  return period_ns_ > 0 ? static_cast<double>(stages) * ns_per_stage_ / period_ns_ * 100.0 : 0.0;
}

uint64_t RampTracker::total_stages(const std::vector<uint32_t>& stages, const CycleRow& row) {
  uint64_t total = 0;
  for (size_t k = 0; k < clients_; ++k) {
    if (k < row.clients.size() && row.clients[k].ran && k < stages.size()) {
      last_stages_[k] = stages[k];
    } else if (from_ && k < ramps_.size() && ramps_[k]) {
      last_stages_[k] = ramps_[k]->stages_of_step(ramps_[k]->step_at(row.id, *from_));
    }
    total += last_stages_[k];
  }
  return total;
}

std::vector<double> RampTracker::hop_values_ns(const CycleRow& row) const {
  std::vector<double> v(1 + 2 * clients_, kNaN);
  if (card_ && row.jackd_wake_ns) v[0] = static_cast<double>(*row.jackd_wake_ns);
  // The previous hop's end relative to the interrupt: jackd's wake-up (card) or, without a
  // card, the reference itself (jackd's wake-up as the first client saw it).
  bool has_prev = !card_ || row.jackd_wake_ns.has_value();
  int64_t prev = card_ ? row.jackd_wake_ns.value_or(0) : 0;
  for (size_t k = 0; k < clients_ && k < row.clients.size(); ++k) {
    const CycleClient& c = row.clients[k];
    if (!c.ran) {
      has_prev = false;
      continue;
    }
    if (has_prev && c.entry_ns >= prev) v[1 + 2 * k] = static_cast<double>(c.entry_ns - prev);
    v[2 + 2 * k] = static_cast<double>(c.exit_ns - c.entry_ns);
    prev = c.exit_ns;
    has_prev = true;
  }
  return v;
}

void RampTracker::add(const CycleRow& row, const std::vector<uint32_t>& stages) {
  if (first_) return;  // everything after the first xrun is beyond the ramp's question
  const uint64_t total = total_stages(stages, row);
  max_total_ = std::max(max_total_, total);
  if (total != current_.total) {
    previous_ = std::move(current_);
    current_ = Level{};
    current_.total = total;
    current_.hops.assign(1 + 2 * clients_, {});
    current_.stages = last_stages_;
  }
  if (row.missed) {
    first_ = First{row, last_stages_, total, {}};
    // The step before: the level below this one. The xrun may come in the first cycle of a
    // new level (then the previous level is the one before) or later in it (then the cycles of
    // this level before it are still a level below in time, but at the same load: the previous
    // level stays the one to compare with, as its cycles ran at the load just below).
    first_->before = previous_.total != std::numeric_limits<uint64_t>::max() ? previous_ : Level{};
    return;
  }
  // A level's usual times need its first cycles only: a ramp held at its top for a long
  // --duration would otherwise keep every cycle of it.
  if (current_.dsp_sum_ns.size() >= kLevelRowsKept) return;
  const std::vector<double> v = hop_values_ns(row);
  double dsp = 0;
  bool all = true;
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i])) current_.hops[i].push_back(v[i]);
  }
  for (size_t k = 0; k < clients_; ++k) {
    if (!std::isfinite(v[2 + 2 * k])) all = false;
    if (all) dsp += v[2 + 2 * k];
  }
  if (all) current_.dsp_sum_ns.push_back(dsp);
}

std::optional<RampFirstXrun> RampTracker::first_xrun(const std::vector<HopSeries>& hops) const {
  if (!first_) return std::nullopt;
  const First& f = *first_;
  RampFirstXrun out;
  out.cycle = f.row.id;
  out.t_s = f.row.t_s;
  out.step = from_ && f.row.id >= *from_ ? 1 + (f.row.id - *from_) / every_ : 0;
  out.load_pct = pct(f.total);
  const Level& b = f.before;
  if (!b.dsp_sum_ns.empty()) {
    out.measured_pct = *median_of(b.dsp_sum_ns) / period_ns_ * 100.0;
  }
  if (b.total != std::numeric_limits<uint64_t>::max()) out.nominal_pct = pct(b.total);

  // Each hop's usual time: its median over the step before, else over the window's series.
  auto window_p50_ns = [&](const std::string& key) -> std::optional<double> {
    for (const HopSeries& h : hops) {
      if (h.key != key) continue;
      if (const auto p = h.us.percentile(50)) return static_cast<double>(p->value_us) * 1000.0;
    }
    return std::nullopt;
  };
  const std::vector<double> v = hop_values_ns(f.row);
  std::optional<RampBreak> best;
  auto consider = [&](double value, std::optional<double> usual, RampBreak what) {
    if (!std::isfinite(value) || !usual) return;
    what.late_us = (value - *usual) / 1000.0;
    if (!best || what.late_us > best->late_us) best = std::move(what);
  };
  auto usual_of = [&](size_t i) -> std::optional<double> {
    if (!b.hops.empty() && !b.hops[i].empty()) return median_of(b.hops[i]);
    return std::nullopt;
  };
  if (card_) {
    consider(v[0], usual_of(0).has_value() ? usual_of(0) : window_p50_ns("jackd_wakeup"),
             {"jackd_wakeup", "jackd_wakeup", 0, "jackd's wake-up", 0, ""});
  }
  for (size_t k = 0; k < clients_; ++k) {
    const std::string& tag = names_[k];
    std::optional<double> wake_usual = usual_of(1 + 2 * k);
    if (!wake_usual) wake_usual = window_p50_ns("wakeup." + tag);
    consider(v[1 + 2 * k], wake_usual,
             {"wakeup." + tag, "client_wakeup", static_cast<int>(k + 1), tag + " wake-up", 0, ""});
    // The DSP hop's usual time at the stages it ran in the xrun cycle.
    std::optional<double> dsp_usual;
    const uint32_t now = f.stages[k];
    if (const auto before = usual_of(2 + 2 * k); before && k < b.stages.size() && b.stages[k] > 0) {
      dsp_usual = *before * static_cast<double>(now) / static_cast<double>(b.stages[k]);
    } else {
      dsp_usual = static_cast<double>(now) * ns_per_stage_;
    }
    consider(v[2 + 2 * k], dsp_usual,
             {"dsp." + tag, "dsp", static_cast<int>(k + 1), tag + " DSP", 0, ""});
  }
  // No hop measured later than usual: the first client that did not run, if one did not.
  if (!best || best->late_us <= 0) {
    for (size_t k = 0; k < clients_ && k < f.row.clients.size(); ++k) {
      if (f.row.clients[k].ran) continue;
      const std::string& tag = names_[k];
      best = RampBreak{"not_run." + tag,     "not_run", static_cast<int>(k + 1),
                       tag + " did not run", 0,         ""};
      break;
    }
  }
  out.broke = best;
  return out;
}

}  // namespace xrunlab
