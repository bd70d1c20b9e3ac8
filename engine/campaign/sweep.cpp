// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/campaign/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/base/errors.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

std::string plural(uint64_t n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

// "1.0 per minute", "4.1 dropouts per minute", "2.3 per hour" for small rates.
std::string rate_text(double per_min, const std::string& noun = "") {
  const std::string n = noun.empty() ? "" : noun + " ";
  if (per_min >= 0.1 || per_min == 0) return fmt::format("{:.1f} {}per minute", per_min, n);
  return fmt::format("{:.1f} {}per hour", per_min * 60.0, n);
}

}  // namespace

const SweepStep* SweepGrid::find(int clients, uint32_t period) const {
  for (const SweepStep& s : steps) {
    if (s.clients == clients && s.period == period) return &s;
  }
  return nullptr;
}

SweepGrid search_sweep(const SweepSpec& spec, const MeasureStep& measure) {
  SweepGrid g;
  const int k = static_cast<int>(spec.periods.size());
  // Measures (clients, periods[i]); false when the sweep must stop.
  auto step = [&](int clients, int i, bool* clean) {
    const StepOutcome o = measure(clients, spec.periods[static_cast<size_t>(i)]);
    if (!o.step) {
      g.exit_code = o.exit_code != 0 ? o.exit_code : static_cast<int>(ExitCode::kRunFailed);
      return false;
    }
    g.steps.push_back(*o.step);
    *clean = o.step->clean();
    return true;
  };
  // The largest period index known dirty for the client counts so far (bisect): -1 none.
  int known_dirty = -1;
  for (int clients : spec.clients) {
    bool clean = false;
    if (spec.search == "all") {
      for (int i = k - 1; i >= 0; --i) {
        if (!step(clients, i, &clean)) return g;
      }
    } else if (spec.search == "descending") {
      for (int i = k - 1; i >= 0; --i) {
        if (!step(clients, i, &clean)) return g;
        if (!clean) break;
      }
    } else {  // bisect: the smallest clean index lies in (lo, hi]; hi = k: none clean
      int lo = known_dirty, hi = k;
      while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        if (!step(clients, mid, &clean)) return g;
        if (clean) {
          hi = mid;
        } else {
          lo = mid;
        }
      }
      known_dirty = lo;
    }
  }
  return g;
}

SweepAnswer sweep_answer(const SweepSpec& spec, const SweepGrid& grid, int clients) {
  SweepAnswer a;
  a.clients = clients;
  for (uint32_t p : spec.periods) {  // ascending: the first clean one
    const SweepStep* s = grid.find(clients, p);
    if (s && s->clean()) {
      a.clean = s;
      break;
    }
  }
  for (uint32_t p : spec.periods) {  // the largest dirty one below it (or of all)
    const SweepStep* s = grid.find(clients, p);
    if (!s || s->clean()) continue;
    if (a.clean && p > a.clean->period) continue;
    a.dirty = s;
  }
  a.smallest_listed_clean = a.clean && a.clean->period == spec.periods.front();
  return a;
}

std::string period_text(uint32_t frames, uint32_t rate) {
  const double ms = rate > 0 ? static_cast<double>(frames) * 1000.0 / rate : 0.0;
  const std::string khz =
      rate % 1000 == 0 ? fmt::format("{}", rate / 1000) : fmt::format("{:.1f}", rate / 1000.0);
  return fmt::format("{} frames at {} kHz ({:.1f} ms)", frames, khz, ms);
}

std::string runs_text(const SweepStep& s, double duration_s) {
  const double each = s.runs > 0 ? s.seconds / s.runs : 0.0;
  // The runs measured what they were asked to (a run stops within its last period).
  if (s.runs > 0 && std::fabs(each - duration_s) <= std::max(1.0, 0.05 * duration_s)) {
    return fmt::format("{} x {:g} s", s.runs, duration_s);
  }
  return fmt::format("{}, {:.0f} s", plural(static_cast<uint64_t>(s.runs), "run", "runs"),
                     s.seconds);
}

std::string sweep_recommendation(const SweepSpec& spec, const SweepGrid& grid) {
  std::string out;
  for (int clients : spec.clients) {
    const SweepAnswer a = sweep_answer(spec, grid, clients);
    bool any = false;
    for (const SweepStep& s : grid.steps) any = any || s.clients == clients;
    if (!any) {
      // Bisection skips a client count when a smaller one had no clean period left to try.
      int fewer = 0;
      for (int c : spec.clients) {
        if (c < clients && sweep_answer(spec, grid, c).clean == nullptr &&
            sweep_answer(spec, grid, c).dirty != nullptr) {
          fewer = c;
        }
      }
      if (fewer > 0 && grid.exit_code == 0) {
        out += fmt::format(
            "{}: not measured: with {} no listed period ran without dropouts, and more "
            "clients are taken as no better (bisection).\n",
            plural(static_cast<uint64_t>(clients), "client", "clients"),
            plural(static_cast<uint64_t>(fewer), "client", "clients"));
      }
      continue;
    }
    std::string line =
        fmt::format("{}: ", plural(static_cast<uint64_t>(clients), "client", "clients"));
    if (a.clean) {
      const SweepStep& c = *a.clean;
      line += fmt::format("{}: 0 dropouts in {}, fewer than {} at 95 % confidence",
                          period_text(c.period, spec.rate), runs_text(c, spec.duration_s),
                          rate_text(c.bound_per_min()));
      if (c.bound_per_min() > 1.0 / 60.0) {
        line += " (for fewer than 1 per hour, run 3 h without one)";
      }
      line += ".";
      if (a.dirty) {
        line += fmt::format(" {} frames: {} ({} in {}).", a.dirty->period,
                            rate_text(a.dirty->rate_per_min(), "dropouts"),
                            plural(a.dirty->dropouts, "dropout", "dropouts"),
                            runs_text(*a.dirty, spec.duration_s));
      } else if (a.smallest_listed_clean) {
        line += " It is the smallest period in the list: smaller ones were not tried.";
      }
    } else if (a.dirty) {
      line += fmt::format(
          "no listed period ran without dropouts; at {} frames, {} ({} in {}). Try larger "
          "periods, fewer clients or a lighter DSP load, and `xrunlab doctor`.",
          a.dirty->period, rate_text(a.dirty->rate_per_min(), "dropouts"),
          plural(a.dirty->dropouts, "dropout", "dropouts"), runs_text(*a.dirty, spec.duration_s));
    }
    out += line + "\n";
  }
  if (spec.search == "bisect" && spec.periods.size() > 2) {
    out +=
        "(bisection: it assumes a larger period is never worse than a smaller one; "
        "--search all measures every period)\n";
  }
  return out;
}

std::string check_verdict(const SweepSpec& spec, const SweepGrid& grid, double dsp_load_pct,
                          const std::string& fix_first) {
  const int clients = spec.clients.empty() ? 0 : spec.clients.front();
  const SweepAnswer a = sweep_answer(spec, grid, clients);
  const std::string who =
      fmt::format("{} at {:g} % DSP load",
                  plural(static_cast<uint64_t>(clients), "client", "clients"), dsp_load_pct);
  const double khz = spec.rate / 1000.0;
  auto ms = [&](uint32_t p) { return spec.rate > 0 ? p * 1000.0 / spec.rate : 0.0; };
  std::string v;
  if (a.clean) {
    v = fmt::format(
        "This machine can run {} with {}-frame periods ({:.1f} ms at {:g} kHz) without "
        "dropouts: 0 in {}, fewer than {} at 95 % confidence",
        who, a.clean->period, ms(a.clean->period), khz, runs_text(*a.clean, spec.duration_s),
        rate_text(a.clean->bound_per_min()));
    if (a.dirty) {
      v += fmt::format("; at {} frames it dropped out {:.1f} times a minute", a.dirty->period,
                       a.dirty->rate_per_min());
    } else if (a.smallest_listed_clean) {
      v += " (the smallest period tried)";
    }
    v += ".";
    if (a.clean->bound_per_min() > 1.0 / 60.0) {
      v += " For a tighter claim, run `xrunlab sweep` with a longer --duration.";
    }
  } else if (a.dirty) {
    v = fmt::format(
        "This machine dropped out with {} at every period tried, up to {} frames ({:.1f} ms): "
        "{:.1f} times a minute there.",
        who, a.dirty->period, ms(a.dirty->period), a.dirty->rate_per_min());
  } else {
    v = fmt::format("No period was measured for {}{}.", who,
                    grid.exit_code != 0
                        ? fmt::format(" (the check stopped, exit code {})", grid.exit_code)
                        : "");
  }
  if (!fix_first.empty()) v += " Fix first: " + fix_first;
  return v;
}

std::string sweep_table(const SweepSpec& spec, const SweepGrid& grid) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"clients", "period", "ms", "runs", "seconds", "xruns", "glitches", "dropouts/min",
                  "verdict"});
  std::vector<const SweepStep*> sorted;
  for (const SweepStep& s : grid.steps) sorted.push_back(&s);
  std::sort(sorted.begin(), sorted.end(), [](const SweepStep* a, const SweepStep* b) {
    return a->clients != b->clients ? a->clients < b->clients : a->period < b->period;
  });
  for (const SweepStep* s : sorted) {
    rows.push_back({std::to_string(s->clients), std::to_string(s->period),
                    fmt::format("{:.1f}", spec.rate > 0 ? s->period * 1000.0 / spec.rate : 0.0),
                    std::to_string(s->runs), fmt::format("{:.0f}", s->seconds),
                    std::to_string(s->xruns),
                    s->glitches ? std::to_string(*s->glitches) : std::string("-"),
                    s->clean() ? fmt::format("< {:.2f}", s->bound_per_min())
                               : fmt::format("{:.2f}", s->rate_per_min()),
                    s->clean() ? "clean" : "drops out"});
  }
  std::vector<size_t> width(rows.front().size(), 0);
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += fmt::format("  {:>{}}", r[i], width[i]);
    }
    out += line + "\n";
  }
  out +=
      "  (dropouts/min: per run the larger of its xrun events and glitches, per measured "
      "minute; '< x' for a clean step is the rule of three's bound at 95 %)\n";
  return out;
}

nlohmann::json sweep_json(const SweepSpec& spec, const SweepGrid& grid) {
  nlohmann::json steps = nlohmann::json::array();
  for (const SweepStep& s : grid.steps) {
    nlohmann::json j = {{"clients", s.clients},
                        {"period", s.period},
                        {"runs", s.runs},
                        {"seconds", s.seconds},
                        {"xrun_events", s.xruns},
                        {"glitches", s.glitches ? nlohmann::json(*s.glitches) : nlohmann::json()},
                        {"dropouts", s.dropouts},
                        {"clean", s.clean()},
                        {"dropouts_per_min", s.rate_per_min()}};
    j["bound_per_min_95"] = s.clean() ? nlohmann::json(s.bound_per_min()) : nlohmann::json();
    steps.push_back(std::move(j));
  }
  nlohmann::json answers = nlohmann::json::array();
  for (int c : spec.clients) {
    const SweepAnswer a = sweep_answer(spec, grid, c);
    answers.push_back(
        {{"clients", c},
         {"smallest_clean_period", a.clean ? nlohmann::json(a.clean->period) : nlohmann::json()},
         {"largest_dirty_period_below",
          a.dirty ? nlohmann::json(a.dirty->period) : nlohmann::json()}});
  }
  return {{"name", spec.name},
          {"periods", spec.periods},
          {"clients", spec.clients},
          {"rate", spec.rate},
          {"duration_s", spec.duration_s},
          {"repetitions", spec.repetitions},
          {"search", spec.search},
          {"run_args", spec.run_args},
          {"steps", std::move(steps)},
          {"answers", std::move(answers)},
          {"recommendation", sweep_recommendation(spec, grid)},
          {"exit_code", grid.exit_code}};
}

std::string sweep_heatmap_data(const SweepSpec& spec, const SweepGrid& grid) {
  std::string out = "# clients_index period_index dropouts_per_min label\n";
  for (const SweepStep& s : grid.steps) {
    const auto ci =
        std::find(spec.clients.begin(), spec.clients.end(), s.clients) - spec.clients.begin();
    const auto pi =
        std::find(spec.periods.begin(), spec.periods.end(), s.period) - spec.periods.begin();
    const std::string label = s.clean() ? fmt::format("0 in {}", runs_text(s, spec.duration_s))
                                        : fmt::format("{:.1f}/min", s.rate_per_min());
    out += fmt::format("{} {} {} \"{}\"\n", ci, pi, s.rate_per_min(), label);
  }
  return out;
}

nlohmann::json sweep_settings_json(const SweepSpec& s) {
  return {{"periods", s.periods},         {"clients", s.clients}, {"duration_s", s.duration_s},
          {"repetitions", s.repetitions}, {"search", s.search},   {"run_args", s.run_args}};
}

std::string default_sweep_name(const SweepSpec& spec) {
  return fmt::format("sweep-{:08x}", fnv1a_32(sweep_settings_json(spec).dump()));
}

std::vector<uint32_t> parse_positive_list(const std::string& flag, const std::string& text,
                                          uint32_t lo, uint32_t hi) {
  std::vector<uint32_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const bool digits =
        !item.empty() && item.size() <= 9 &&
        std::all_of(item.begin(), item.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    if (!digits) {
      throw Error(ExitCode::kUsage,
                  fmt::format("{} '{}': '{}' is not a whole number (give e.g. {},{})", flag, text,
                              item, lo, lo * 2 <= hi ? lo * 2 : hi));
    }
    const auto v = static_cast<uint32_t>(std::stoul(item));
    if (v < lo || v > hi) {
      throw Error(ExitCode::kUsage,
                  fmt::format("{} '{}': {} is outside {}..{}", flag, text, v, lo, hi));
    }
    out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) {
    throw Error(ExitCode::kUsage, fmt::format("{} '{}': a value is given twice", flag, text));
  }
  return out;
}

}  // namespace xrunlab
