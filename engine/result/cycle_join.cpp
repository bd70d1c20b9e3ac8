// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/result/cycle_join.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

constexpr size_t kRollingCount = 32;  // JACK1's JACK_ENGINE_ROLLING_COUNT

// ns -> whole usecs, rounded toward minus infinity (a hop of -1 ns is -1 usec, not 0).
int64_t floor_us(int64_t ns) {
  return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}

HopSeries hop(std::string key, std::string kind, std::string label, int client) {
  HopSeries h;
  h.key = std::move(key);
  h.kind = std::move(kind);
  h.label = std::move(label);
  h.client = client;
  return h;
}

}  // namespace

CycleJoiner::CycleJoiner(JoinConfig config) : config_(std::move(config)) {
  const uint32_t rate = std::max<uint32_t>(config_.rate, 1);
  period_ns_ = static_cast<int64_t>(static_cast<uint64_t>(config_.frames) * 1000000000u / rate);
  period_us_ = static_cast<double>(config_.frames) * 1e6 / rate;
  frames_ = FrameCycleMap(config_.frames);
  const size_t n = config_.client_names.size();
  config_.dsp_nominal_us.resize(n, 0.0);
  not_run_.assign(n, 0);
  not_run_first_.assign(n, 0);
  if (config_.ramp) {
    ramp_.emplace(config_.client_names, config_.card, config_.ramp->ns_per_stage,
                  static_cast<double>(period_ns_), config_.ramp->every, config_.ramp->clients);
  }
  if (config_.card) {
    jackd_hop_ = hops_.size();
    hops_.push_back(hop("jackd_wakeup", "jackd_wakeup", "interrupt -> jackd wake-up", 0));
  }
  for (size_t k = 0; k < n; ++k) {
    const std::string& name = config_.client_names[k];
    const std::string from = k == 0 ? config_.server_wake : config_.client_names[k - 1] + " exit";
    const int client = static_cast<int>(k) + 1;
    hops_.push_back(
        hop("wakeup." + name, "client_wakeup", from + " -> " + name + " entry", client));
    hops_.push_back(hop("dsp." + name, "dsp", name + " DSP (entry -> exit)", client));
  }
  cycle_hop_ = hops_.size();
  // Without a card's record the cycle starts at the server's wake-up as the first client saw
  // it, and its deadline is that plus one period: the labels say so.
  const std::string origin = config_.card ? std::string("interrupt") : config_.server_wake;
  const std::string deadline =
      config_.card ? std::string("next interrupt") : config_.server_wake + " + one period";
  hops_.push_back(hop("cycle", "cycle", origin + " -> last client's exit (cycle time)", 0));
  slack_hop_ = hops_.size();
  hops_.push_back(hop("slack", "slack", "last client's exit -> " + deadline + " (slack)", 0));
  hops_[slack_hop_].us =
      Histogram(Histogram::kDefaultBoundUs, Histogram::kDefaultOverflowKeep, kSlackNegativeBoundUs);
  j1_.rolling.assign(kRollingCount, 0.0);
  j1_.interval = std::max<uint64_t>(1, static_cast<uint64_t>(std::floor(1024000.0 / period_us_)));
}

void CycleJoiner::forget_xrun_events(size_t n) {
  if (n == 0 || n >= runs_.runs().size()) return;
  const uint64_t keep_from = runs_.runs()[n].first;
  runs_.drop_front(n);
  frames_.drop_before(keep_from > 0 ? keep_from - 1 : 0);
}

void CycleJoiner::add_driver_xrun(int64_t start_ns, int64_t detected_ns) {
  xruns_detected_.push_back(detected_ns);
  const double us = static_cast<double>(std::max<int64_t>(0, detected_ns - start_ns)) / 1000.0;
  if (!j1_.delay_max_us || us > *j1_.delay_max_us) j1_.delay_max_us = us;
}

void CycleJoiner::jack1_wake(int64_t wake_ns, std::optional<int64_t> end_ns) {
  // A driver xrun detected since the previous wake-up: JACK1 restarted the stream.
  while (!xruns_detected_.empty() && xruns_detected_.front() <= wake_ns) {
    if (!j1_.prev_wake || xruns_detected_.front() > *j1_.prev_wake) j1_.restart = true;
    xruns_detected_.pop_front();
  }
  ++j1_.wakes;
  const bool account = j1_.prev_wake && !j1_.restart && !j1_.prev_overran;
  if (account) {
    const double delayed =
        static_cast<double>(wake_ns - (*j1_.prev_wake + period_ns_)) / 1000.0;  // usecs
    if (delayed > 0) {
      if (!j1_.delay_max_us || delayed > *j1_.delay_max_us) j1_.delay_max_us = delayed;
      if (j1_.spare_us > 0 && delayed >= j1_.spare_us) {
        ++j1_.over_spare;
        if (delayed > 1000.0) ++j1_.over_1000;
      }
    }
  }
  j1_.restart = false;
  j1_.prev_wake = wake_ns;
  // The cycle time JACK1 would have measured: wake-up to the end of the cycle (here: the last
  // client's exit). A cycle in which a client did not run has no end: it enters the rolling
  // window as a whole period (JACK1 would have waited for it at least that long).
  const double cycle_us = end_ns ? static_cast<double>(*end_ns - wake_ns) / 1000.0 : period_us_;
  j1_.prev_overran = !end_ns || *end_ns > wake_ns + period_ns_;
  if (end_ns && (!j1_.cycle_max_all_us || cycle_us > *j1_.cycle_max_all_us)) {
    j1_.cycle_max_all_us = cycle_us;
  }
  j1_.rolling[j1_.rolling_index] = cycle_us;
  j1_.rolling_index = (j1_.rolling_index + 1) % kRollingCount;
  if (++j1_.rolling_count % j1_.interval == 0) {
    const size_t filled = static_cast<size_t>(std::min<uint64_t>(j1_.rolling_count, kRollingCount));
    double max_us = 0;
    for (size_t i = 0; i < filled; ++i) max_us = std::max(max_us, j1_.rolling[i]);
    if (!j1_.cycle_max_us || max_us > *j1_.cycle_max_us) j1_.cycle_max_us = max_us;
    j1_.spare_us = max_us < period_us_ ? period_us_ - max_us : 0.0;
    if (!j1_.spare_min_us || j1_.spare_us < *j1_.spare_min_us) j1_.spare_min_us = j1_.spare_us;
    j1_.cpu_load = (1.0 - j1_.spare_us / period_us_) * 50.0 + j1_.cpu_load * 0.5;
    j1_.load_sum += j1_.cpu_load;
    ++j1_.checkpoints;
  }
}

void CycleJoiner::keep_row(const CycleRow& row) {
  if (row.missed) {
    ++missed_;
    if (missed_rows_.size() < config_.missed_keep) missed_rows_.push_back(row);
  }
  if (!row.slack_ns || config_.worst_keep == 0) return;
  const auto by_slack = [](const CycleRow& a, const CycleRow& b) {
    return *a.slack_ns < *b.slack_ns;
  };
  if (worst_.size() == config_.worst_keep && !by_slack(row, worst_.back())) return;
  worst_.insert(std::upper_bound(worst_.begin(), worst_.end(), row, by_slack), row);
  if (worst_.size() > config_.worst_keep) worst_.pop_back();
}

void CycleJoiner::add(const JoinRow& row) {
  const size_t n = config_.client_names.size();
  ++cycles_;
  // The row's reference: the interrupt (card), else jackd's wake-up as the first client that
  // ran saw it.
  std::optional<int64_t> wake = row.jackd_wake_ns;
  if (!config_.card) {
    for (size_t k = 0; k < n && k < row.cells.size(); ++k) {
      if (row.cells[k].ran) {
        wake = row.cells[k].wake_ns;
        break;
      }
    }
  }
  const std::optional<int64_t> ref = config_.card ? row.interrupt_ns : wake;
  CycleRow out;
  out.id = row.id;
  out.clients.resize(n);
  bool all_ran = true;
  bool first_missing_seen = false;
  for (size_t k = 0; k < n; ++k) {
    const bool ran = k < row.cells.size() && row.cells[k].ran;
    if (!ran) {
      all_ran = false;
      ++not_run_[k];
      if (!first_missing_seen) ++not_run_first_[k];
      first_missing_seen = true;
    }
  }
  for (size_t k = 0; k < n && k < row.cells.size(); ++k) {
    if (row.cells[k].ran) {
      frames_.add(row.id, row.cells[k].frame);
      break;
    }
  }
  if (!ref) {  // no reference at all (no client ran, not a card): counted, not decomposed
    out.missed = true;
    keep_row(out);
    runs_.add(row.id, true, std::nullopt, static_cast<double>(period_ns_) / 1e9);
    return;
  }
  out.t_s = static_cast<double>(*ref - origin_ns_) / 1e9;
  out.deadline_ns =
      config_.card
          ? static_cast<int64_t>(vcard::boundary_ns(row.id + 1, config_.rate, config_.frames)) -
                *row.interrupt_ns
          : period_ns_;
  if (config_.card && wake) out.jackd_wake_ns = *wake - *ref;
  if (config_.card && !wake) ++no_wake_;
  // The hops of the clients that ran in an unbroken chain from the head; after the first one
  // that did not run, later clients (if any ran at all) have no upstream to measure from.
  const size_t base = config_.card ? 1 : 0;  // hops_[base + 2k]: wake-up, [base + 2k + 1]: DSP
  bool has_prev = wake.has_value();          // the previous hop's end (absolute), if any
  int64_t prev = wake.value_or(0);
  if (config_.card && wake) hops_[jackd_hop_].us.add(floor_us(*wake - *ref));
  // A client that entered before its upstream's exit (out of chain order) breaks the chain
  // like one that did not run: it has no upstream exit of this cycle to be measured from.
  std::optional<int64_t> last_exit;
  for (size_t k = 0; k < n; ++k) {
    const bool ran = k < row.cells.size() && row.cells[k].ran;
    if (!ran) {
      has_prev = false;
      continue;
    }
    const JoinCell& c = row.cells[k];
    out.clients[k] = {true, c.entry_ns - *ref, c.exit_ns - *ref};
    const bool in_order = !(k > 0 && row.cells[k - 1].ran && c.entry_ns < row.cells[k - 1].exit_ns);
    if (!in_order) out.out_of_order = true;
    if (has_prev && in_order) hops_[base + 2 * k].us.add(floor_us(c.entry_ns - prev));
    hops_[base + 2 * k + 1].us.add(floor_us(c.exit_ns - c.entry_ns));
    prev = c.exit_ns;
    has_prev = true;
    if (!last_exit || c.exit_ns > *last_exit) last_exit = c.exit_ns;
  }
  std::optional<int64_t> end;
  if (all_ran && n > 0) {
    end = last_exit;
    ++complete_;
    out.end_ns = *end - *ref;
    out.slack_ns = out.deadline_ns - *out.end_ns;
    hops_[cycle_hop_].us.add(floor_us(*out.end_ns));
    hops_[slack_hop_].us.add(floor_us(*out.slack_ns));
    if (*out.slack_ns < 0) {
      ++deadline_missed_;
    } else if (out.out_of_order) {
      ++out_of_order_;
    }
    if (!slack_min_ns_ || *out.slack_ns < *slack_min_ns_) slack_min_ns_ = out.slack_ns;
  }
  out.missed = !all_ran || out.out_of_order || (out.slack_ns && *out.slack_ns < 0);
  if (ramp_) {
    std::vector<uint32_t> stages(n, 0);
    for (size_t k = 0; k < n && k < row.cells.size(); ++k) stages[k] = row.cells[k].stages;
    ramp_->add(out, stages);
  }
  keep_row(out);
  runs_.add(row.id, out.missed, out.t_s, static_cast<double>(out.deadline_ns) / 1e9);
  // JACK1's rules see each distinct poll return once.
  if (wake && (!last_wake_seen_ || *wake != *last_wake_seen_)) jack1_wake(*wake, end);
  if (wake) last_wake_seen_ = wake;
}

CycleTableResult CycleJoiner::table() const {
  CycleTableResult t;
  t.present = true;
  t.time_source = config_.time_source;
  t.resolution_us = config_.resolution_us;
  t.cycles = cycles_;
  t.complete = complete_;
  t.missed = missed_;
  t.deadline_missed = deadline_missed_;
  t.out_of_order = out_of_order_;
  t.rows_lost = lost_;
  t.no_jackd_wake = no_wake_;
  t.not_run = not_run_;
  t.not_run_first = not_run_first_;
  t.hops = hops_;
  t.worst = worst_;
  t.missed_rows = missed_rows_;
  t.missed_rows_total = missed_;
  const size_t first_client_hop = config_.card ? 1 : 0;
  for (size_t k = 0; k < config_.client_names.size(); ++k) {
    const double nominal = config_.dsp_nominal_us[k];
    const Histogram& h = hops_[first_client_hop + 2 * k + 1].us;
    if (nominal <= 0 || h.empty()) continue;
    CycleTableResult::DspNominal d;
    d.client = static_cast<int>(k) + 1;
    d.nominal_us = nominal;
    const auto p50 = h.percentile(50);
    d.overhead_p50_pct = (static_cast<double>(p50->value_us) - nominal) / nominal * 100.0;
    d.overhead_max_pct = (static_cast<double>(*h.max()) - nominal) / nominal * 100.0;
    uint64_t within = 0;
    for (const auto& [v, count] : h.nonzero()) {
      if (std::fabs(static_cast<double>(v) - nominal) <= 100.0) within += count;
    }
    d.within_100us_pct = 100.0 * static_cast<double>(within) / static_cast<double>(h.count());
    t.dsp_nominal.push_back(d);
  }
  return t;
}

JackTestFields CycleJoiner::jack_test() const {
  JackTestFields f;
  f.definitions = "jack1-rules";
  f.wake_source = config_.time_source;
  f.wake_resolution_us = config_.resolution_us;
  f.wakes = j1_.wakes;
  f.delay_max_us = j1_.delay_max_us;
  if (!f.delay_max_us && j1_.wakes > 1) f.delay_max_us = 0.0;  // every wake-up was on time
  f.cycle_max_us = j1_.cycle_max_us;
  f.cycle_max_all_us = j1_.cycle_max_all_us;
  f.delay_over_spare = j1_.over_spare;
  f.delay_over_1000 = j1_.over_1000;
  f.spare_min_us = j1_.spare_min_us;
  if (j1_.checkpoints > 0) {
    f.spare_last_us = j1_.spare_us;
    f.dsp_load_pct = j1_.load_sum / static_cast<double>(j1_.checkpoints);
  }
  return f;
}

}  // namespace xrunlab
