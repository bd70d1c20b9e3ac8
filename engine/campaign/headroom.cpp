// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/headroom.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "engine/base/errors.hpp"
#include "engine/base/json_read.hpp"
#include "engine/base/text.hpp"
#include "engine/campaign/sweep.hpp"
#include "engine/stats/describe.hpp"

namespace xrunlab {
namespace {

// The longest ramp list a spec may ask for: binomial coefficients up to n = 1000 stay finite
// as doubles (C(1000, 500) ~ 2.7e299), and 1000 ramps per cell is far more than anyone runs.
constexpr int kMaxRepetitions = 1000;
constexpr double kLevel = 0.95;

std::string plural(int64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// A percentage or a time for people: one decimal, without a trailing ".0" ("71", "70.5").
std::string num(double v) {
  std::string s = fmt::format("{:.1f}", v);
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

double period_ms(uint32_t period, uint32_t rate) {
  return rate > 0 ? static_cast<double>(period) * 1000.0 / rate : 0.0;
}

// "128 frames (2.7 ms)".
std::string frames_ms(uint32_t period, uint32_t rate) {
  return fmt::format("{} frames ({:.1f} ms)", period, period_ms(period, rate));
}

// One step of the ramp at a period, in ms.
double step_ms(const HeadroomSpec& spec, uint32_t period) {
  return every_cycles_at(spec, period) * period_ms(period, spec.rate);
}

// "[68..74]", "[68..74, 94 %]" below 95 % coverage; "" without an interval.
std::string interval_text(const HeadroomCell& c) {
  if (!c.ci_low || !c.ci_high) return "";
  std::string s = fmt::format("[{}..{}", num(*c.ci_low), num(*c.ci_high));
  if (c.ci_coverage < kLevel) s += fmt::format(", {:.0f} %", c.ci_coverage * 100.0);
  return s + "]";
}

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

// The cells in the order of the table and the JSON: client counts as the spec
// gives them (others after, ascending), periods ascending.
std::vector<const HeadroomCell*> ordered(const HeadroomSpec& spec,
                                         const std::vector<HeadroomCell>& cells) {
  auto rank = [&](int clients) {
    const auto it = std::find(spec.clients.begin(), spec.clients.end(), clients);
    return std::pair<long, int>(it - spec.clients.begin(), clients);
  };
  std::vector<const HeadroomCell*> out;
  out.reserve(cells.size());
  for (const HeadroomCell& c : cells) out.push_back(&c);
  std::stable_sort(out.begin(), out.end(), [&](const HeadroomCell* a, const HeadroomCell* b) {
    const auto ra = rank(a->clients), rb = rank(b->clients);
    return ra != rb ? ra < rb : a->period < b->period;
  });
  return out;
}

// "Ramp: +1 % of the period every 30 cycles at 64 frames (40 ms), 15 at 128 (40 ms), ...", or
// with one K for every period "every 4 cycles (5.3 ms at 64 frames, ..., 85.3 ms at 1024)".
std::string ramp_line(const HeadroomSpec& spec) {
  std::string out = fmt::format("Ramp: +{:g} % of the period", spec.step_pct);
  if (spec.periods.empty()) return out + "\n";
  bool one_k = true;
  for (uint32_t p : spec.periods) {
    one_k = one_k && every_cycles_at(spec, p) == every_cycles_at(spec, spec.periods.front());
  }
  if (one_k) {
    out += fmt::format(" every {} (",
                       plural(every_cycles_at(spec, spec.periods.front()), "cycle", "cycles"));
    for (size_t i = 0; i < spec.periods.size(); ++i) {
      const uint32_t p = spec.periods[i];
      out += fmt::format("{}{} ms at {}{}", i == 0 ? "" : ", ", num(step_ms(spec, p)), p,
                         i == 0 ? " frames" : "");
    }
    out += ")";
  } else {
    out += " every";
    for (size_t i = 0; i < spec.periods.size(); ++i) {
      const uint32_t p = spec.periods[i];
      out +=
          fmt::format("{} {}{} at {}{} ({} ms)", i == 0 ? "" : ",", every_cycles_at(spec, p),
                      i == 0 ? " cycles" : "", p, i == 0 ? " frames" : "", num(step_ms(spec, p)));
    }
  }
  return out + ", until the first xrun or 100 %\n";
}

}  // namespace

void check_headroom_spec(const HeadroomSpec& spec) {
  auto refuse = [](const std::string& what) { throw Error(ExitCode::kUsage, "headroom: " + what); };
  if (spec.periods.empty()) refuse("no period to measure (give e.g. --periods 64,128,256)");
  for (size_t i = 1; i < spec.periods.size(); ++i) {
    if (spec.periods[i] <= spec.periods[i - 1]) {
      refuse(fmt::format("the periods must be ascending and distinct ({} after {})",
                         spec.periods[i], spec.periods[i - 1]));
    }
  }
  if (spec.periods.front() == 0) refuse("a period of 0 frames");
  if (spec.clients.empty()) refuse("no client count to measure (give e.g. --clients 14,1)");
  for (size_t i = 0; i < spec.clients.size(); ++i) {
    if (spec.clients[i] < 1) refuse(fmt::format("{} clients: at least 1", spec.clients[i]));
    if (std::find(spec.clients.begin(), spec.clients.begin() + static_cast<long>(i),
                  spec.clients[i]) != spec.clients.begin() + static_cast<long>(i)) {
      refuse(fmt::format("the client count {} is given twice", spec.clients[i]));
    }
  }
  if (spec.ports < 1) refuse(fmt::format("{} ports per client: at least 1", spec.ports));
  if (spec.rate == 0) refuse("a sample rate of 0");
  if (spec.repetitions < 1 || spec.repetitions > kMaxRepetitions) {
    refuse(fmt::format("{} ramps per cell: give 1..{}", spec.repetitions, kMaxRepetitions));
  }
  if (!(spec.step_pct > 0 && spec.step_pct <= 100)) {
    refuse(fmt::format("a step of {:g} % of the period: give more than 0, at most 100",
                       spec.step_pct));
  }
  if (spec.every_cycles < 0) {
    refuse(fmt::format("{} cycles per step: give 1 or more (or 0: 40 ms' worth, at least 4)",
                       spec.every_cycles));
  }
}

int every_cycles_at(const HeadroomSpec& spec, uint32_t period) {
  return spec.every_cycles > 0 ? spec.every_cycles
                               : static_cast<int>(ramp_every_cycles(period, spec.rate));
}

double ramp_longest_s(const HeadroomSpec& spec, uint32_t period) {
  if (spec.step_pct <= 0 || spec.rate == 0) return 0;
  // 100 / step_pct, up: a step of 3 % needs 34 steps to reach 100 %. The tolerance keeps
  // 100 / 0.1 = 1000.0000000000001 at 1000.
  const double steps = std::ceil(100.0 / spec.step_pct - 1e-9);
  return steps * every_cycles_at(spec, period) * static_cast<double>(period) / spec.rate;
}

std::optional<RampOutcome> ramp_outcome_from_run_json(const nlohmann::json& run, std::string* why) {
  auto fail = [&](std::string msg) -> std::optional<RampOutcome> {
    if (why) *why = std::move(msg);
    return std::nullopt;
  };
  if (!run.is_object()) {
    return fail(fmt::format("run.json is not a JSON object (it is {})", run.type_name()));
  }
  try {
    const JsonObject top(run, "");
    std::string status;
    top.get("status", status);
    if (status != "completed") {
      return fail(status.empty() ? "run.json has no status (the run did not finish)"
                                 : fmt::format("the run's status is '{}', not completed", status));
    }
    RampOutcome o;
    const std::optional<JsonObject> settings = top.object("settings");
    if (!settings) return fail("run.json has no 'settings' (clients, frames)");
    settings->require("clients", o.clients);
    settings->require("frames", o.period);
    const std::optional<JsonObject> ramp = top.object("ramp");
    if (!ramp) return fail("run.json has no 'ramp' section (the run was not a headroom ramp)");
    std::string ended;
    ramp->require("ended", ended);
    ramp->require("reached_pct", o.reached_pct);
    if (ended == "stopped") {
      return fail(fmt::format(
          "the ramp stopped at {} % before its first xrun or 100 % (the run ended otherwise)",
          num(o.reached_pct)));
    }
    if (ended == "full") {
      ramp->get("measured_pct", o.measured_pct);
      ramp->get("nominal_pct", o.nominal_pct);
      return o;
    }
    if (ended != "first_xrun") {
      return fail(fmt::format("'ramp.ended' is '{}', not first_xrun, full or stopped", ended));
    }
    const std::optional<JsonObject> first = ramp->object("first_xrun");
    if (!first) return fail("the ramp ended at its first xrun but has no 'ramp.first_xrun'");
    double load = 0;
    first->require("load_pct", load);
    o.first_xrun_pct = load;
    first->get("measured_pct", o.measured_pct);
    first->get("nominal_pct", o.nominal_pct);
    if (const std::optional<JsonObject> b = first->object("broke")) {
      RampBreak rb;
      b->get("key", rb.key);
      b->get("kind", rb.kind);
      b->get("client", rb.client);
      b->get("label", rb.label);
      b->get("late_us", rb.late_us);
      b->get("cause", rb.cause);
      if (rb.label.empty()) rb.label = rb.key;  // a label for people, else the key
      o.broke = std::move(rb);
    }
    return o;
  } catch (const JsonRefused& e) {
    return fail(fmt::format("run.json: {}", e.what()));
  }
}

MedianRanks median_interval_ranks(size_t n) {
  MedianRanks r;
  if (n < 2 || n > static_cast<size_t>(kMaxRepetitions)) return r;
  // Row n of Pascal's triangle, by additions: exact integers while below 2^53 (n <= 55), and
  // within a rounding of them beyond; over 2^n (ldexp: exact), P(B = i).
  std::vector<double> row(n + 1, 0.0);
  row[0] = 1;
  for (size_t m = 1; m <= n; ++m) {
    for (size_t i = m; i > 0; --i) row[i] += row[i - 1];
  }
  const int exponent = -static_cast<int>(n);
  // coverage(k) = 1 - 2 P(B <= k-1), falling with k; k runs up to the middle ((n + 1) / 2).
  double below = 0;  // P(B <= k-1)
  for (size_t k = 1; k <= (n + 1) / 2; ++k) {
    below += std::ldexp(row[k - 1], exponent);
    const double coverage = 1.0 - 2.0 * below;
    if (k > 1 && coverage < kLevel) break;
    r.k = k;
    r.coverage = coverage;
    if (coverage < kLevel) break;  // k = 1 below 95 %: min..max, said with its coverage
  }
  return r;
}

HeadroomCell summarise_cell(int clients, uint32_t period, const std::vector<RampOutcome>& ramps) {
  HeadroomCell c;
  c.clients = clients;
  c.period = period;
  std::vector<double> loads, measured, nominal;
  for (const RampOutcome& r : ramps) {
    if (r.clients != clients || r.period != period) continue;
    ++c.ramps;
    if (r.first_xrun_pct) {
      loads.push_back(*r.first_xrun_pct);
    } else {
      ++c.censored;
      loads.push_back(r.reached_pct);  // a lower bound
    }
    if (r.measured_pct) measured.push_back(*r.measured_pct);
    if (r.nominal_pct) nominal.push_back(*r.nominal_pct);
    if (r.first_xrun_pct && r.broke) {
      const std::string& label = r.broke->label;
      auto it = std::find_if(c.broke_counts.begin(), c.broke_counts.end(),
                             [&](const auto& e) { return e.first == label; });
      if (it == c.broke_counts.end()) {
        c.broke_counts.emplace_back(label, 1);
      } else {
        ++it->second;
      }
    }
  }
  if (c.ramps == 0) return c;
  const stats::Description d = stats::describe(loads);
  c.median = d.median;
  c.min = d.min;
  c.max = d.max;
  std::sort(loads.begin(), loads.end());
  const MedianRanks mr = median_interval_ranks(loads.size());
  if (mr.k > 0) {
    c.ci_low = loads[mr.k - 1];
    c.ci_high = loads[loads.size() - mr.k];
    c.ci_coverage = mr.coverage;
  }
  c.measured_pct = stats::describe(measured).median;
  c.nominal_pct = stats::describe(nominal).median;
  // Most first; a stable sort keeps the one seen first ahead in a tie.
  std::stable_sort(c.broke_counts.begin(), c.broke_counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (!c.broke_counts.empty()) {
    c.broke_most = c.broke_counts.front().first;
    c.broke_most_count = c.broke_counts.front().second;
  }
  return c;
}

std::vector<HeadroomCell> summarise_cells(const HeadroomSpec& spec,
                                          const std::vector<RampOutcome>& ramps) {
  std::vector<HeadroomCell> out;
  out.reserve(spec.clients.size() * spec.periods.size());
  for (int clients : spec.clients) {
    for (uint32_t p : spec.periods) out.push_back(summarise_cell(clients, p, ramps));
  }
  return out;
}

std::string headroom_answer_at(const HeadroomCell& c) {
  if (c.ramps == 0 || !c.median) return "";
  std::string s = fmt::format("{}{} %", c.censored > 0 ? "at least " : "", num(*c.median));
  const std::string ci = interval_text(c);
  s += ci.empty() ? fmt::format(" ({})", plural(c.ramps, "ramp", "ramps")) : " " + ci;
  return s;
}

namespace {

// The answer's last words: "; most often broken by X (3 of 5 ramps)" only when one hop broke
// more often than every other, and in more than one ramp; otherwise what the breaks were.
std::string broke_words(const HeadroomCell& c) {
  if (c.broke_counts.empty()) return "";
  const int with_xrun = c.ramps - c.censored;
  const int top = c.broke_counts.front().second;
  const bool tie = c.broke_counts.size() > 1 && c.broke_counts[1].second == top;
  if (top >= 2 && !tie) {
    return fmt::format("; most often broken by {} ({} of {})", c.broke_counts.front().first, top,
                       plural(with_xrun, "ramp", "ramps"));
  }
  if (top == 1) {
    return c.broke_counts.size() == 1
               ? "; broken by " + c.broke_counts.front().first
               : fmt::format("; a different hop broke in each of the {} ramps", with_xrun);
  }
  return fmt::format("; broken as often by {} as by {} ({} of {} each)", c.broke_counts[0].first,
                     c.broke_counts[1].first, top, with_xrun);
}

}  // namespace

std::string headroom_answers(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells) {
  if (spec.clients.empty()) return "";
  const int clients = spec.clients.front();
  std::string out;
  for (uint32_t p : spec.periods) {
    const auto it = std::find_if(cells.begin(), cells.end(), [&](const HeadroomCell& c) {
      return c.clients == clients && c.period == p;
    });
    if (it == cells.end()) continue;
    const HeadroomCell& c = *it;
    std::string line = frames_ms(p, spec.rate) + ": ";
    if (c.ramps == 0) {
      out += line + "no usable ramp (see the table)\n";
      continue;
    }
    line += headroom_answer_at(c) + " of the period before the first dropout";
    if (c.censored > 0) {
      line += fmt::format(" ({} of {} ran to the ramp's end without one)", c.censored,
                          plural(c.ramps, "ramp", "ramps"));
    }
    line += broke_words(c);
    out += line + "\n";
  }
  return out;
}

std::string headroom_table(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"period", "ms", "clients", "ramps", "no xrun", "headroom %", "interval",
                  "min..max", "measured/nominal %", "broke most often"});
  for (const HeadroomCell* c : ordered(spec, cells)) {
    std::vector<std::string> r = {
        std::to_string(c->period), fmt::format("{:.1f}", period_ms(c->period, spec.rate)),
        std::to_string(c->clients), std::to_string(c->ramps), std::to_string(c->censored)};
    if (c->ramps == 0 || !c->median) {
      r.insert(r.end(), {"-", "-", "-", "-", "-"});
      rows.push_back(std::move(r));
      continue;
    }
    r.push_back((c->censored > 0 ? ">= " : "") + num(*c->median));
    r.push_back(c->ci_low && c->ci_high ? fmt::format("{}..{} ({} %)", num(*c->ci_low),
                                                      num(*c->ci_high), num(c->ci_coverage * 100.0))
                                        : "-");
    r.push_back(fmt::format("{}..{}", num(*c->min), num(*c->max)));
    r.push_back(fmt::format("{}/{}", c->measured_pct ? num(*c->measured_pct) : "-",
                            c->nominal_pct ? num(*c->nominal_pct) : "-"));
    r.push_back(c->broke_most.empty() ? "-"
                                      : fmt::format("{} {}/{}", c->broke_most, c->broke_most_count,
                                                    c->ramps - c->censored));
    rows.push_back(std::move(r));
  }
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out = ramp_line(spec);
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      // The last column (words) to the left, the rest (numbers) to the right.
      line += i + 1 == r.size() ? fmt::format("  {:<{}}", r[i], width[i])
                                : fmt::format("  {:>{}}", r[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out +=
      "  headroom %: the clients' total DSP load, % of the period, in the cycle of each ramp's "
      "first xrun; the median\n"
      "    over the ramps. '>=': some ramps ('no xrun') ran to the ramp's end without one and "
      "count at it (a lower bound)\n"
      "  interval: distribution-free for the median, with its exact coverage (below 6 ramps: "
      "min..max, under 95 %)\n"
      "  measured/nominal: the DSP time the clients took and their calibrated load, over the "
      "step before the xrun\n"
      "  broke most often: the hop that was late in the first xrun cycle, of the ramps with an "
      "xrun\n";
  return out;
}

nlohmann::json headroom_json(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells,
                             const std::vector<RampOutcome>& ramps) {
  nlohmann::json steps = nlohmann::json::array();
  for (uint32_t p : spec.periods) {
    steps.push_back({{"period", p},
                     {"every_cycles", every_cycles_at(spec, p)},
                     {"step_ms", step_ms(spec, p)},
                     {"longest_s", ramp_longest_s(spec, p)}});
  }
  nlohmann::json jcells = nlohmann::json::array();
  for (const HeadroomCell* c : ordered(spec, cells)) {
    nlohmann::json counts = nlohmann::json::array();
    for (const auto& [label, n] : c->broke_counts)
      counts.push_back({{"label", label}, {"ramps", n}});
    jcells.push_back(
        {{"clients", c->clients},
         {"period", c->period},
         {"period_ms", period_ms(c->period, spec.rate)},
         {"period_text", period_text(c->period, spec.rate)},
         {"ramps", c->ramps},
         {"censored", c->censored},
         {"median_pct", opt(c->median)},
         {"min_pct", opt(c->min)},
         {"max_pct", opt(c->max)},
         {"ci_low_pct", opt(c->ci_low)},
         {"ci_high_pct", opt(c->ci_high)},
         {"ci_coverage", c->ci_low ? nlohmann::json(c->ci_coverage) : nlohmann::json()},
         {"measured_pct", opt(c->measured_pct)},
         {"nominal_pct", opt(c->nominal_pct)},
         {"broke_most", c->broke_most.empty() ? nlohmann::json() : nlohmann::json(c->broke_most)},
         {"broke_most_count", c->broke_most_count},
         {"broke_counts", std::move(counts)},
         {"answer", headroom_answer_at(*c)}});
  }
  nlohmann::json jramps = nlohmann::json::array();
  for (const RampOutcome& r : ramps) {
    nlohmann::json b;  // null without a break
    if (r.broke) {
      b = {{"key", r.broke->key},     {"kind", r.broke->kind},       {"client", r.broke->client},
           {"label", r.broke->label}, {"late_us", r.broke->late_us}, {"cause", r.broke->cause}};
    }
    jramps.push_back({{"clients", r.clients},
                      {"period", r.period},
                      {"rep", r.rep},
                      {"run_dir", r.run_dir},
                      {"first_xrun_pct", opt(r.first_xrun_pct)},
                      {"censored", !r.first_xrun_pct.has_value()},
                      {"reached_pct", r.reached_pct},
                      {"measured_pct", opt(r.measured_pct)},
                      {"nominal_pct", opt(r.nominal_pct)},
                      {"broke", std::move(b)}});
  }
  const nlohmann::json definitions = {
      {"headroom_pct",
       "the clients' total nominal DSP load, as % of the period, in the cycle of a ramp's first "
       "xrun event (by the cycle table): the load at which this machine first dropped out. The "
       "load is calibrated (DSP stages x ns per stage) and grows by step_pct every every_cycles "
       "cycles"},
      {"censored",
       "a ramp that reached its end (100 %) without an xrun: its headroom is at least its "
       "reached_pct, and it counts at that value, so a cell's median, interval, min and max "
       "with a censored ramp are lower bounds"},
      {"interval",
       "the distribution-free interval for the median headroom: order statistics (x_(k), "
       "x_(n+1-k)) of the n ramps, k the largest with coverage 1 - 2 P(Binomial(n, 1/2) <= "
       "k-1) >= 95 %; ci_coverage is that coverage, exactly. Below 6 ramps no pair reaches "
       "95 %: min..max at its real coverage (5 ramps: 93.75 %). One ramp: none"},
      {"measured_pct",
       "the DSP hops' p50, summed over the clients, as % of the period, over the step before "
       "the first xrun (or the ramp's last step); median over the ramps"},
      {"nominal_pct",
       "the calibrated load of that same step (stages x ns per stage), as % of the period; "
       "median over the ramps. Measured far above nominal: the DSP ran slower than calibrated "
       "(frequency, cache, contention)"},
      {"broke",
       "the hop of the first xrun cycle that was late, as the run named it: jackd's wake-up, a "
       "client's wake-up, a client's DSP or a client that did not run; late_us is how much "
       "later than its usual (wake-ups: the window's p50; DSP: its nominal at that load). "
       "broke_most counts the ramps with an xrun"}};
  return {{"name", spec.name},
          {"settings", headroom_settings_json(spec)},
          {"rate", spec.rate},
          {"ramp_steps", std::move(steps)},
          {"cells", std::move(jcells)},
          {"ramps", std::move(jramps)},
          {"answers", headroom_answers(spec, cells)},
          {"definitions", definitions}};
}

std::string headroom_plot_data(const HeadroomSpec& spec, const std::vector<HeadroomCell>& cells) {
  std::string out;
  for (size_t i = 0; i < spec.clients.size(); ++i) {
    const int clients = spec.clients[i];
    if (i > 0) out += "\n\n";
    out += fmt::format("# {}: period median ci_low ci_high min max ramps censored\n",
                       plural(clients, "client", "clients"));
    std::vector<const HeadroomCell*> mine;
    for (const HeadroomCell& c : cells) {
      if (c.clients == clients && c.ramps > 0 && c.median) mine.push_back(&c);
    }
    std::stable_sort(mine.begin(), mine.end(), [](const HeadroomCell* a, const HeadroomCell* b) {
      return a->period < b->period;
    });
    // gnuplot merges the blank lines around a block without rows into one separator, so that
    // `index` would count one block too few: a row of NaN (undefined, not drawn) keeps it.
    if (mine.empty()) out += "NaN NaN NaN NaN NaN NaN 0 0\n";
    for (const HeadroomCell* c : mine) {
      out += fmt::format("{} {} {} {} {} {} {} {}\n", c->period, *c->median,
                         c->ci_low.value_or(*c->median), c->ci_high.value_or(*c->median),
                         c->min.value_or(*c->median), c->max.value_or(*c->median), c->ramps,
                         c->censored);
    }
  }
  return out;
}

nlohmann::json headroom_settings_json(const HeadroomSpec& s) {
  return {{"periods", s.periods},   {"clients", s.clients},
          {"ports", s.ports},       {"repetitions", s.repetitions},
          {"step_pct", s.step_pct}, {"every_cycles", s.every_cycles},
          {"explain", s.explain},   {"run_args", s.run_args}};
}

std::string default_headroom_name(const HeadroomSpec& spec) {
  return fmt::format("headroom-{:08x}", fnv1a_32(headroom_settings_json(spec).dump()));
}

}  // namespace xrunlab
