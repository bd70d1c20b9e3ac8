// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/run_answer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/report/jack_test_labels.hpp"
#include "engine/report/plot_data.hpp"
#include "engine/report/report_text.hpp"
#include "engine/report/run_metrics.hpp"

namespace xrunlab {

namespace {

std::string us_text(double us) {
  return fmt::format("{:.0f} us", std::floor(us));
}

std::string ms_text(double us) {
  return fmt::format("{:.2f} ms", us / 1000.0);
}

// "6 xrun events" / "1 xrun event".
std::string events_text(uint64_t n) {
  return fmt::format("{} xrun event{}", n, n == 1 ? "" : "s");
}

std::string seconds_text(double s) {
  if (!std::isfinite(s) || s < 0) s = 0;
  return s < 10 ? fmt::format("{:.1f} s", s) : fmt::format("{:.0f} s", std::floor(s));
}

// The verdict's own words, before its figures.
std::string verdict_head(const RunResult& r, uint64_t events, uint64_t glitches) {
  if (r.status == RunStatus::kCompleted)
    return events == 0 && glitches == 0 ? "clean" : "not clean";
  if (r.status == RunStatus::kInterrupted) {
    return fmt::format("interrupted after {}{}", seconds_text(r.seconds_ran),
                       events == 0 ? " (clean so far)" : " (not clean)");
  }
  return std::string(run_status_name(r.status)) +
         (r.status_detail.empty() ? "" : " (" + one_line(r.status_detail) + ")");
}

std::string verdict_line(const RunResult& r, uint64_t events, uint64_t glitches) {
  std::string v = verdict_head(r, events, glitches) + ": " + events_text(events);
  v += " in " + seconds_text(r.seconds_ran);
  if (events > 0 && r.seconds_ran > 0) {
    const double rate = static_cast<double>(events) / r.seconds_ran;
    v += rate >= 10 ? fmt::format(" ({:.0f}/s)", rate) : fmt::format(" ({:.2g}/s)", rate);
  }
  if (r.frames > 0) {
    v += fmt::format(" at {} frames", r.frames);
    if (r.period_us > 0) v += " (" + ms_text(r.period_us) + ")";
  }
  if (glitches > 0) v += fmt::format(", {} audible glitch{}", glitches, glitches == 1 ? "" : "es");
  if (const std::optional<double> slack = run_metric(r, "slack_min")) {
    v += ", worst slack " + us_text(*slack);
  }
  return v;
}

// jack_test's four figures as its block prints them (the same values, not re-derived).
void jack_test_figures(const RunResult& r, std::vector<AnswerFigure>& out) {
  namespace f = jack_test_field;
  const bool jack1 = r.jack_test.definitions == "jack1-rules";
  auto usecs = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.0f} usecs", std::floor(*v)) : std::string("n/a");
  };
  out.push_back({std::string(f::kXrunCount.label), fmt::format("{}", r.xrun_count),
                 r.backend.is_pipewire()
                     ? "jack_test's: PipeWire's xrun callbacks (its driver's count)"
                     : "jack_test's: the driver's xruns only (JACK2's client-late xruns are in "
                       "the xrun events above)"});
  if (jack1) {
    out.push_back({std::string(f::kDelayMax.label), usecs(r.jack_test.delay_max_us),
                   "jack_test's: the largest delay of jackd's wake-up after its period (JACK1's "
                   "delayed_usecs), or of a driver xrun"});
    out.push_back({std::string(f::kCycleMax.label), usecs(r.jack_test.cycle_max_us),
                   "jack_test's: JACK1's sampled maximum of jackd's wake-up to the last client's "
                   "exit (32-cycle windows, every ~1 s)"});
  } else {
    auto opt = [](const std::optional<int64_t>& v) {
      return v ? fmt::format("{} usecs", *v) : std::string("n/a");
    };
    out.push_back({std::string(f::kDelayMax.label), opt(r.delay.max_us),
                   "an older xrunlab's: the clients' callback delay against the interrupt (not "
                   "jack_test's)"});
    out.push_back({std::string(f::kCycleMax.label), opt(r.cycle.max_us),
                   "an older xrunlab's: the clients' callback end against the interrupt (not "
                   "jack_test's)"});
  }
  const std::optional<double> load =
      jack1 && r.jack_test.dsp_load_pct ? r.jack_test.dsp_load_pct : r.avg_dsp_load;
  out.push_back({std::string(f::kDspLoad.label),
                 load ? fmt::format("{:.1f} %", *load) : std::string("n/a"),
                 "jack_test's: JACK's own DSP load estimate, the mean of its readings"});
}

// One witness against the count: how many of the count's events it reported, and its reports
// that fell to no xrun cycle.
std::string witness_text(const SourceTally& s) {
  std::string t = fmt::format("{}: {} of {} event{} reported", s.label, s.events_reported,
                              s.events_judged, s.events_judged == 1 ? "" : "s");
  if (s.until_s) t += fmt::format(" (its list ends at {:.1f} s)", *s.until_s);
  if (s.key != "audio") {
    // Its reports that no chain event explains are the xruns outside the chain: counted in the
    // xrun events, so no disagreement.
    if (s.reports_unmatched > 0) {
      t += fmt::format(", {} of its {} {} fell to no chain event", s.reports_unmatched, s.reports,
                       s.unit);
    }
    return t + (s.events_missed == 0 ? " (agrees)" : " (disagrees)");
  }
  const bool agrees = s.events_missed == 0 && s.reports_unmatched == 0;
  if (s.reports_unmatched > 0) {
    t += fmt::format(", {} of its {} {} fell to no xrun cycle of the run's chain",
                     s.reports_unmatched, s.reports, s.unit);
  }
  {
    // The tail hears only what reached the checked port: a missed event is not a disagreement.
    return t + (agrees ? " (agrees)" : " (hears only what reached its port)");
  }
  return t + (agrees ? " (agrees)" : " (disagrees)");
}

// The hop of the worst row that ran longest past its own median, as "c07's wake-up 1036 us (p50
// 9 us)"; "" when no hop is known.
std::string longest_hop(const CycleTableResult& t, const CycleRow& row) {
  auto median = [&](const std::string& kind, int client) -> std::optional<double> {
    for (const HopSeries& h : t.hops) {
      if (h.kind != kind || h.client != client) continue;
      const std::optional<Percentile> p = h.us.percentile(50.0);
      if (p) return static_cast<double>(p->value_us);
    }
    return std::nullopt;
  };
  std::string best;
  double best_excess = -1e300;
  auto consider = [&](const std::string& name, const std::string& kind, int client, int64_t ns) {
    const double took = static_cast<double>(ns) / 1000.0;
    const std::optional<double> m = median(kind, client);
    const double excess = took - m.value_or(0.0);
    if (excess <= best_excess) return;
    best_excess = excess;
    best = name + " took " + us_text(took) + (m ? " (p50 " + us_text(*m) + ")" : "");
  };
  if (row.jackd_wake_ns) consider("jackd's wake-up", "jackd_wakeup", 0, *row.jackd_wake_ns);
  std::optional<int64_t> upstream = row.jackd_wake_ns;
  for (size_t c = 0; c < row.clients.size(); ++c) {
    const CycleClient& cc = row.clients[c];
    const int client = static_cast<int>(c) + 1;
    const std::string name = fmt::format("c{:02d}", client);
    if (!cc.ran) {
      if (best.empty()) best = name + " did not run";
      break;
    }
    if (upstream && cc.entry_ns >= *upstream) {
      consider(name + "'s wake-up", "client_wakeup", client, cc.entry_ns - *upstream);
    }
    consider(name + "'s DSP", "dsp", client, cc.exit_ns - cc.entry_ns);
    upstream = cc.exit_ns;
  }
  return best;
}

std::string worst_cycle_line(const RunResult& r) {
  const CycleTableResult& t = r.cycle_table;
  if (!t.present || t.worst.empty()) return "";
  const CycleRow& row = t.worst[0];
  std::string line = fmt::format("worst cycle at {:.3f} s: ", row.t_s);
  line += row.slack_ns ? "slack " + us_text(static_cast<double>(*row.slack_ns) / 1000.0)
                       : std::string("a client did not run");
  // --explain names what held the hop up (the kernel trace); without it, the hop and its time.
  if (r.explain && !r.explain->cycles.empty() && r.explain->cycles[0].cycle == row.id) {
    const std::string note = explain_note(r.explain->cycles[0]);
    if (!note.empty()) return line + "; " + note + " (kernel trace)";
  }
  const std::string hop = longest_hop(t, row);
  return hop.empty() ? line : line + "; " + hop;
}

std::string floor_line(const RunResult& r) {
  if (!r.baseline) return "";
  const BaselineRecord& b = *r.baseline;
  if (b.error) return "timer baseline: none (" + one_line(*b.error) + ")";
  if (!b.jackd_wakeup_ratio && !b.head_client_delay_ratio) return "";
  auto ratio = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.2f}x", *v) : std::string("n/a");
  };
  return fmt::format(
      "floor: jackd wake-up p99 {}, head client's delay p99 {} the timer baseline's p99 "
      "(cyclictest beside the run)",
      ratio(b.jackd_wakeup_ratio), ratio(b.head_client_delay_ratio));
}

// The few causes with the most events, in one line; the rest summed (summary.txt's "Xrun
// events by cycle" has every one).
std::string causes_line(const RunResult& r, uint64_t events) {
  if (events == 0 || !r.xrun_causes || r.xrun_causes->causes.empty()) return "";
  const std::vector<CauseCount> causes = causes_by_events(*r.xrun_causes);
  uint64_t chain = 0, outside = 0;
  for (const CauseCount& c : causes) {
    chain += c.chain;
    outside += c.outside;
  }
  const bool mixed = chain > 0 && outside > 0;
  constexpr size_t kShown = 4;
  std::string out = "causes:";
  for (size_t i = 0; i < causes.size() && i < kShown; ++i) {
    const CauseCount& c = causes[i];
    out += fmt::format("{} {} {}", i == 0 ? "" : ",", cause_text(c, /*brief=*/true),
                       c.chain + c.outside);
    if (mixed) out += fmt::format(" ({} in the chain, {} outside)", c.chain, c.outside);
  }
  if (causes.size() > kShown) {
    uint64_t rest = 0;
    for (size_t i = kShown; i < causes.size(); ++i) rest += causes[i].chain + causes[i].outside;
    out += fmt::format(", {} other causes {}", causes.size() - kShown, rest);
  }
  if (!mixed) out += outside > 0 ? " (all outside the chain)" : " (all in the chain)";
  return out;
}

}  // namespace

std::vector<CauseCount> causes_by_events(const XrunAttribution& a) {
  std::vector<CauseCount> causes = a.causes;
  std::stable_sort(causes.begin(), causes.end(), [](const CauseCount& x, const CauseCount& y) {
    return x.chain + x.outside > y.chain + y.outside;
  });
  return causes;
}

std::string outside_cause_text(const XrunAttribution& a, const OutsideXrun& o) {
  CauseCount c{o.cause, 0, 0, false};
  for (const CauseCount& k : a.causes) {
    if (k.cause == o.cause) c.run_client = k.run_client;
  }
  return cause_text(c);
}

std::string cause_text(const CauseCount& c, bool brief) {
  const XrunCause& k = c.cause;
  if (k.kind == "client") {
    if (brief && c.run_client) {
      // The run's clients are named after its server ("xrunlab-PID-N-c03"): c03 says it.
      const size_t dash = k.client.rfind('-');
      return (dash == std::string::npos ? k.client : k.client.substr(dash + 1)) + " (the run's)";
    }
    if (brief) return k.client + " (another program's)";
    return k.client + (c.run_client ? " (the run's client)" : " (another program's client)");
  }
  if (k.kind == "driver") {
    return brief ? "the driver" : "the driver (jackd's own cycle or the card was late)";
  }
  if (k.kind == "not_started") {
    return brief ? "clients not started" : "clients not started (jackd named only waiting clients)";
  }
  return brief ? "unnamed" : "unnamed (no jackd line)";
}

RunAnswer run_answer(const RunResult& r) {
  RunAnswer a;
  const auto events = static_cast<uint64_t>(run_metric(r, "xruns").value_or(0.0));
  const auto glitches = static_cast<uint64_t>(run_metric(r, "glitches").value_or(0.0));
  a.clean = r.status == RunStatus::kCompleted && events == 0 && glitches == 0;
  a.verdict = verdict_line(r, events, glitches);
  a.count_by = r.xrun_cycles.present ? "the cycle table" : "the monitor";
  a.figures.push_back(
      {"xrun events", fmt::format("{}", events),
       r.xrun_cycles.present
           ? fmt::format("runs of consecutive cycles of the run's chain that missed their "
                         "deadline or in which a client did not run (the cycle table: every "
                         "cycle, exact: {}), and the xruns JACK reported that no cycle of the "
                         "chain explains (outside the chain: {})",
                         r.xrun_cycles.events, r.xrun_cycles.outside_events)
           : "JACK's xrun notifications to the monitor client, merged per event (no cycle "
             "table in this run)"});
  jack_test_figures(r, a.figures);
  for (const SourceTally& s : r.xrun_cycles.sources) a.witnesses.push_back(witness_text(s));
  a.causes = causes_line(r, events);
  a.worst_cycle = worst_cycle_line(r);
  a.floor = floor_line(r);
  if (r.ramp) a.ramp = "DSP ramp: " + ramp_text(*r.ramp);
  a.warnings = r.warnings;
  return a;
}

std::string answer_block(const RunAnswer& a) {
  std::string out = " Result: " + a.verdict + "\n";
  size_t width = 0;
  for (const AnswerFigure& f : a.figures) width = std::max(width, f.label.size());
  for (const AnswerFigure& f : a.figures) {
    out += fmt::format("   {:<{}}  {:<12}  {}\n", f.label, width, f.value, f.definition);
  }
  if (!a.ramp.empty()) out += "   " + a.ramp + "\n";
  if (!a.causes.empty()) out += "   " + a.causes + "\n";
  for (const std::string& w : a.witnesses) out += "   witness " + w + "\n";
  if (!a.worst_cycle.empty()) out += "   " + a.worst_cycle + "\n";
  if (!a.floor.empty()) out += "   " + a.floor + "\n";
  return out;
}

}  // namespace xrunlab
