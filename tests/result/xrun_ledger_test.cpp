// SPDX-License-Identifier: GPL-2.0-or-later
// XrunLedger (engine/result/xrun_ledger.hpp): counting the xrun reports against the events as
// the run goes, forgetting what is settled, gives exactly the figures of counting everything at
// once at the end. Random runs (late cycles, stalls, JACK's frame counter moved on after an
// xrun and wrapping), random reports that obey JACK's timing, settled at random moments.
#include "engine/result/xrun_ledger.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "engine/result/cycle_join.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kPeriod = 256;
constexpr uint32_t kRate = 48000;

JoinConfig config() {
  JoinConfig jc;
  jc.rate = kRate;
  jc.frames = kPeriod;
  jc.client_names = {"c01", "c02"};
  return jc;
}

struct Report {
  enum Kind { kCallback, kLine, kGlitch };
  double arrival_s = 0;
  Kind kind = kCallback;
  XrunCallback callback;  // kCallback
  LogXrunEvent logged;    // kLine: the line's event (who was late)
  XrunLogLine line;       // kLine: the line as the ledger takes it
  GlitchResult glitch;    // kGlitch: heard by the tail
};

// A run of `cycles` rows: its rows, and its reports in arrival order.
struct Sim {
  std::vector<JoinRow> rows;
  std::vector<Report> reports;
  int64_t period_ns = 0;
  double period_s = 0;
  size_t events = 0;
};

// `quiet_from`: the tail hears nothing from that cycle on.
Sim simulate(uint32_t seed, uint64_t cycles, uint64_t quiet_from = UINT64_MAX) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Sim s;
  s.period_ns = CycleJoiner(config()).period_ns();
  s.period_s = static_cast<double>(s.period_ns) / 1e9;
  uint32_t frame = 0xFFFF0000u;  // JACK's counter wraps within the run
  std::vector<std::optional<uint32_t>> frame_of(cycles);
  struct Event {
    uint64_t first, last;
  };
  std::vector<Event> events;
  uint64_t xrun_left = 0;
  bool stall = false;
  for (uint64_t id = 0; id < cycles; ++id) {
    if (xrun_left == 0 && id > 5 && u(rng) < 0.04) {
      xrun_left = 1 + rng() % 4;
      stall = u(rng) < 0.4;
      if (!events.empty() && events.back().last + 1 == id) {
        events.back().last = id + xrun_left - 1;
      } else {
        events.push_back({id, id + xrun_left - 1});
      }
    }
    const bool xrun = xrun_left > 0;
    JoinRow row;
    row.id = id;
    const int64_t wake = static_cast<int64_t>(id) * s.period_ns;
    const bool ran = !(xrun && stall);
    if (ran) {
      frame += kPeriod;
      frame_of[id] = frame;
    }
    for (int k = 0; k < 2; ++k) {
      JoinCell c;
      c.ran = ran;
      c.wake_ns = wake;
      c.entry_ns = wake + 10000 + k * 100000;
      c.exit_ns = c.entry_ns + (xrun && k == 1 ? s.period_ns : 50000);
      c.frame = frame;
      row.cells.push_back(c);
    }
    s.rows.push_back(row);
    if (xrun && --xrun_left == 0 && u(rng) < 0.7)
      frame += kPeriod * static_cast<uint32_t>(1 + rng() % 3);  // moved on
  }
  s.events = events.size();
  const auto time_of = [&](uint64_t id) { return static_cast<double>(id) * s.period_s; };
  // A callback in cycle `a` (one JACK processed) arrives before the next cycle begins, so its
  // frame is JACK's frame time at arrival.
  const auto callback_at = [&](uint64_t a) {
    if (a >= cycles || !frame_of[a]) return;
    const double at = time_of(a) + u(rng) * s.period_s * 0.99;
    Report r;
    r.arrival_s = at;
    r.callback = {static_cast<uint64_t>(at * 1e6), *frame_of[a]};
    s.reports.push_back(r);
  };
  const auto line_at = [&](double at) {
    Report r;
    r.arrival_s = at;
    r.kind = Report::kLine;
    r.logged = {at, u(rng) < 0.3, {rng() % 2 == 0 ? "c01" : "c02"}};
    r.line = {at, r.logged.driver, r.logged.driver ? "" : r.logged.late_clients[0], u(rng) < 0.7};
    s.reports.push_back(r);
  };
  // A glitch the tail heard in cycle `x` (one it ran in), reported a moment later.
  const auto glitch_at = [&](uint64_t x) {
    if (x >= cycles || x >= quiet_from || !frame_of[x]) return;
    Report r;
    r.kind = Report::kGlitch;
    r.glitch.report.frame = *frame_of[x] + 3;
    r.glitch.t_s = time_of(x);
    r.arrival_s = time_of(x) + 0.01 + 0.3 * u(rng);
    s.reports.push_back(r);
  };
  for (const Event& e : events) {
    if (u(rng) < 0.9) {
      for (uint64_t n = 1 + rng() % 3; n > 0; --n) {
        callback_at(u(rng) < 0.5 && e.first > 0 ? e.first - 1 : e.last + 1 + rng() % 3);
      }
    }
    if (u(rng) < 0.9) {
      for (uint64_t n = 1 + rng() % 2; n > 0; --n) {
        line_at(time_of(e.first) + s.period_s * (1 + 3 * u(rng)));
      }
    }
    if (u(rng) < 0.8) glitch_at(e.first + rng() % (e.last - e.first + 3));
  }
  for (int n = 0; n < 40; ++n) {  // reports no event explains, some before every event
    callback_at(rng() % cycles);
    line_at(u(rng) * time_of(cycles));
    glitch_at(rng() % cycles);
  }
  std::stable_sort(s.reports.begin(), s.reports.end(),
                   [](const Report& a, const Report& b) { return a.arrival_s < b.arrival_s; });
  return s;
}

// `glitch_limit`: 0 for a run without the audio check, else how many glitches the result keeps.
RunResult result_for(const Sim& s, size_t glitch_limit) {
  RunResult r;
  r.period_us = static_cast<double>(s.period_ns) / 1e3;
  r.cycle_table.present = true;
  if (glitch_limit > 0) {
    r.audio.emplace();
    r.audio->period_frames = kPeriod;
    r.audio->glitches_limit = glitch_limit;
  }
  return r;
}

// What the end of the run knows: every line's event, and the tail's total of glitches.
void finish(RunResult& r, const Sim& s) {
  for (const Report& x : s.reports) {
    if (x.kind == Report::kLine) r.xruns.log_events.push_back(x.logged);
    if (x.kind == Report::kGlitch && r.audio) ++r.audio->totals.glitches;
  }
}

void keep_glitch(RunResult& r, const Report& x) {
  if (r.audio && r.audio->glitches.size() < r.audio->glitches_limit) {
    r.audio->glitches.push_back(x.glitch);
  }
}

size_t glitches_in(const Sim& s) {
  return static_cast<size_t>(std::count_if(s.reports.begin(), s.reports.end(), [](const Report& x) {
    return x.kind == Report::kGlitch;
  }));
}

void expect_same(const SourceTally& a, const SourceTally& b) {
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.reports, b.reports);
  EXPECT_EQ(a.reports_unmatched, b.reports_unmatched);
  EXPECT_EQ(a.events_judged, b.events_judged);
  EXPECT_EQ(a.events_reported, b.events_reported);
  EXPECT_EQ(a.events_missed, b.events_missed);
  ASSERT_EQ(a.missed.size(), b.missed.size());
  for (size_t i = 0; i < a.missed.size(); ++i) {
    EXPECT_EQ(a.missed[i].first, b.missed[i].first);
    EXPECT_EQ(a.missed[i].last, b.missed[i].last);
    EXPECT_EQ(a.missed[i].t_s, b.missed[i].t_s);
  }
  EXPECT_EQ(a.lag_max_cycles, b.lag_max_cycles);
  EXPECT_EQ(a.lag_max_ms, b.lag_max_ms);
  EXPECT_EQ(a.until_s, b.until_s);
}

// Everything at once, as the end of a run without settling counts it.
RunResult batch(const Sim& s, size_t glitch_limit) {
  CycleJoiner j(config());
  for (const JoinRow& row : s.rows) j.add(row);
  RunResult r = result_for(s, glitch_limit);
  XrunReports in;
  for (const Report& x : s.reports) {
    if (x.kind == Report::kLine) in.log.push_back(x.line);
    in.first_cycle = j.xrun_runs_builder().first_id();
    if (x.kind == Report::kCallback) {
      in.monitor.cycles.push_back(j.frames().cycle(x.callback.frame));
      in.monitor.t_s.push_back(static_cast<double>(x.callback.t_us) / 1e6);
    }
    if (x.kind == Report::kGlitch) keep_glitch(r, x);
  }
  finish(r, s);
  count_against_cycles(r, j.xrun_runs(), j.frames(), in);
  return r;
}

struct Chunked {
  RunResult result;
  size_t settled_events = 0;
  size_t most_events_held = 0, most_reports_held = 0, most_anchors_held = 0;
};

// The same run read and settled piece by piece: at each moment T the rows begun by T - 0.2 s are
// read (the reader reads a row once a cycle 200 ms newer is written),
// the reports that arrived by T handed over, and the ledger settles up to T - margin.
Chunked chunked(const Sim& s, uint32_t seed, size_t glitch_limit) {
  std::mt19937 rng(seed * 7919u + 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  CycleJoiner j(config());
  XrunLedger ledger;
  ledger.set_audio(glitch_limit > 0);
  Chunked out;
  out.result = result_for(s, glitch_limit);
  RunResult& r = out.result;
  std::vector<LogXrunEvent> logged;
  size_t row = 0, report = 0;
  const double end_s = static_cast<double>(s.rows.size()) * s.period_s;
  for (double t = 0; row < s.rows.size() || report < s.reports.size(); t += 0.02 + 0.4 * u(rng)) {
    const bool last = t >= end_s + 1;
    while (row < s.rows.size() &&
           (last || static_cast<double>(s.rows[row].id) * s.period_s <= t - 0.2)) {
      j.add(s.rows[row++]);
    }
    std::vector<XrunCallback> callbacks;
    std::vector<XrunLogLine> lines;
    while (report < s.reports.size() && (last || s.reports[report].arrival_s <= t)) {
      const Report& x = s.reports[report++];
      if (x.kind == Report::kLine) {
        lines.push_back(x.line);
        logged.push_back(x.logged);
      }
      if (x.kind == Report::kCallback) callbacks.push_back(x.callback);
      if (x.kind == Report::kGlitch) keep_glitch(r, x);
    }
    ledger.add_callbacks(std::move(callbacks), false);
    ledger.add_log_lines(lines, false);
    const double before = t - 0.05 * u(rng);
    if (r.audio && !ledger.audio_frozen()) {
      ledger.freeze_audio(j, *r.audio, logged, before, glitch_limit, s.period_s * 1e3);
    }
    out.settled_events += ledger.settle(j, before, s.period_s * 1e3);
    out.most_events_held = std::max(out.most_events_held, j.xrun_runs().size());
    out.most_reports_held =
        std::max(out.most_reports_held, ledger.pending_callbacks() + ledger.pending_log_lines());
    out.most_anchors_held = std::max(out.most_anchors_held, j.frames().anchors());
  }
  finish(r, s);
  count_against_cycles(r, j.xrun_runs(), j.frames(), ledger.pending(j, false), &ledger.settled(),
                       &ledger.settled_causes());
  EXPECT_EQ(out.settled_events, ledger.settled().events);
  EXPECT_EQ(ledger.audio_frozen(), glitch_limit > 0);
  return out;
}

void expect_same_audio(const AudioResult& a, const AudioResult& b) {
  EXPECT_EQ(a.matched_by, b.matched_by);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.glitches_without_xrun, b.glitches_without_xrun);
  EXPECT_EQ(a.xruns_without_glitch, b.xruns_without_glitch);
  ASSERT_EQ(a.glitches.size(), b.glitches.size());
  for (size_t i = 0; i < a.glitches.size(); ++i) {
    const GlitchResult &g = a.glitches[i], &h = b.glitches[i];
    EXPECT_EQ(g.cycle, h.cycle) << i;
    EXPECT_EQ(g.xrun_cycle, h.xrun_cycle) << i;
    EXPECT_EQ(g.xrun_t_s, h.xrun_t_s) << i;
    EXPECT_EQ(g.matched, h.matched) << i;
    EXPECT_EQ(g.late_clients, h.late_clients) << i;
    EXPECT_EQ(g.driver_xrun, h.driver_xrun) << i;
  }
}

void expect_same_causes(const XrunAttribution& a, const XrunAttribution& b) {
  EXPECT_EQ(a.outside_events, b.outside_events);
  ASSERT_EQ(a.outside.size(), b.outside.size());
  for (size_t i = 0; i < a.outside.size(); ++i) {
    EXPECT_EQ(a.outside[i].cycle, b.outside[i].cycle) << i;
    EXPECT_EQ(a.outside[i].callbacks, b.outside[i].callbacks) << i;
    EXPECT_EQ(a.outside[i].lines, b.outside[i].lines) << i;
    EXPECT_TRUE(a.outside[i].cause == b.outside[i].cause) << i;
  }
  // Every cause with the same counts (the order they were first met may differ).
  ASSERT_EQ(a.causes.size(), b.causes.size());
  for (const CauseCount& c : a.causes) {
    const auto it = std::find_if(b.causes.begin(), b.causes.end(),
                                 [&](const CauseCount& d) { return d.cause == c.cause; });
    ASSERT_NE(it, b.causes.end()) << c.cause.kind << " " << c.cause.client;
    EXPECT_EQ(it->chain, c.chain) << c.cause.kind << " " << c.cause.client;
    EXPECT_EQ(it->outside, c.outside) << c.cause.kind << " " << c.cause.client;
  }
}

// One run, counted both ways; `limit`: the glitch list's bound (0: no audio check), as a
// function of how many glitches the run had.
void check(uint32_t seed, size_t (*limit)(size_t glitches), double settled_at_least,
           uint64_t quiet_from = UINT64_MAX) {
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  const Sim s = simulate(seed, 6000, quiet_from);  // 32 s at 256 frames
  const size_t glitch_limit = limit(glitches_in(s));
  const RunResult want = batch(s, glitch_limit);
  const Chunked got = chunked(s, seed, glitch_limit);
  ASSERT_GT(s.events, 100u);
  const XrunCycles &w = want.xrun_cycles, &g = got.result.xrun_cycles;
  EXPECT_EQ(g.cycles, w.cycles);
  EXPECT_EQ(g.events, w.events);
  EXPECT_EQ(w.events, s.events);
  ASSERT_EQ(g.sources.size(), w.sources.size());
  ASSERT_EQ(w.sources.size(), glitch_limit > 0 ? 3u : 2u);
  for (size_t i = 0; i < w.sources.size(); ++i) expect_same(g.sources[i], w.sources[i]);
  if (glitch_limit > 0) expect_same_audio(*got.result.audio, *want.audio);
  // The same events outside the chain, and the same causes.
  EXPECT_EQ(g.outside_events, w.outside_events);
  EXPECT_GT(w.outside_events, 0u) << "the reports no event explains";
  ASSERT_TRUE(want.xrun_causes && got.result.xrun_causes);
  expect_same_causes(*got.result.xrun_causes, *want.xrun_causes);
  // It did forget: most events were settled along the way, and what it held at any moment
  // was a few seconds' worth (an event every ~25 cycles: about 8 a second).
  EXPECT_GT(static_cast<double>(got.settled_events),
            settled_at_least * static_cast<double>(s.events));
  if (glitch_limit == 0) {
    EXPECT_LT(got.most_events_held, s.events / 4);
    EXPECT_LT(got.most_reports_held, s.reports.size() / 4);
    EXPECT_LT(got.most_anchors_held, s.events / 4);
  }
}

TEST(XrunLedger, SettlingPieceByPieceCountsExactlyWhatOneCountAtTheEndCounts) {
  for (uint32_t seed = 1; seed <= 25; ++seed)
    check(
        seed, [](size_t) -> size_t { return 0; }, 0.75);
}

// With the audio check: nothing is settled until the glitch list is full; then the glitches are
// tied to their events once, and the rest is settled as without it.
TEST(XrunLedger, WithTheAudioCheckItSettlesOnceTheGlitchListIsFullAndCountsTheSame) {
  for (uint32_t seed = 1; seed <= 25; ++seed) {
    check(
        seed, [](size_t n) { return n / 4; }, 0.5);  // cut: most glitches not kept
  }
}

// The tail stops hearing anything half-way: the list is full then (no glitch was left out), so
// the events after the last glitch's are judged too, all of them missed by the audio.
TEST(XrunLedger, AGlitchListExactlyFullIsNotCutAndJudgesEveryEvent) {
  for (uint32_t seed = 1; seed <= 10; ++seed) {
    check(
        seed, [](size_t n) { return n; }, 0.3, 3000);
  }
}

TEST(XrunLedger, ACutListIsNeverSettled) {
  const Sim s = simulate(3, 2000);
  CycleJoiner j(config());
  for (const JoinRow& row : s.rows) j.add(row);
  XrunLedger ledger;
  ledger.add_callbacks({}, /*cut=*/true);
  EXPECT_EQ(ledger.settle(j, 1e9, s.period_s * 1e3), 0u);
  EXPECT_EQ(j.xrun_runs().size(), s.events);
  XrunLedger other;
  other.add_log_lines({}, /*cut=*/true);
  EXPECT_EQ(other.settle(j, 1e9, s.period_s * 1e3), 0u);
  XrunLedger free;
  EXPECT_EQ(free.settle(j, 1e9, s.period_s * 1e3), s.events - 1) << "all but the latest event";
}

TEST(XrunLedger, AMergedTallyKeepsTheFirstMissedEventsAndTheLargerLags) {
  SourceTally a, b;
  a.reports = 3;
  a.events_judged = 2;
  a.events_missed = 1;
  a.missed = {{10, 10, 1.0, 1.005}};
  a.lag_max_cycles = 4;
  a.lag_max_ms = 21.3;
  b.key = "monitor";
  b.reports = 2;
  b.reports_unmatched = 1;
  b.events_judged = 1;
  b.events_reported = 1;
  b.missed = {{20, 21, 2.0, 2.005}};
  b.lag_max_cycles = 1;
  b.lag_max_ms = 5.3;
  b.until_s = 0.0;  // cut, and none of its reports fell to an event
  b.events_judged = 0;
  const SourceTally m = merge_tallies(a, 1.0, b);
  EXPECT_EQ(m.key, "monitor");
  EXPECT_EQ(m.reports, 5u);
  EXPECT_EQ(m.reports_unmatched, 1u);
  EXPECT_EQ(m.events_judged, 2u);
  EXPECT_EQ(m.events_reported, 1u);
  EXPECT_EQ(m.events_missed, 1u);
  ASSERT_EQ(m.missed.size(), 2u);
  EXPECT_EQ(m.missed[0].first, 10u);
  EXPECT_EQ(m.missed[1].first, 20u);
  EXPECT_EQ(m.lag_max_cycles, 4u);
  EXPECT_EQ(m.lag_max_ms, 21.3);
  EXPECT_EQ(m.until_s, 1.0) << "a cut list judged at least the settled events";
}

// The final count: a report of a cycle after the window's last row that no event of the window
// explains is an xrun after the window, not an event outside the chain.
TEST(XrunLedger, AReportOfACycleAfterTheWindowIsLeftOut) {
  const Sim s = simulate(7, 600);
  CycleJoiner j(config());
  for (const JoinRow& row : s.rows) j.add(row);
  const uint64_t last_id = s.rows.back().id;
  const uint32_t last_frame = s.rows.back().cells[0].frame;
  ASSERT_EQ(j.frames().cycle(last_frame + kPeriod), last_id + 1);
  ASSERT_EQ(j.frames().cycle(last_frame + 60 * kPeriod), last_id + 60);
  XrunLedger ledger;
  ledger.add_callbacks({{0, last_frame + kPeriod}, {0, last_frame + 60 * kPeriod}}, false);
  const double after_s = static_cast<double>(last_id + 60) * s.period_s;
  ledger.add_log_lines({{after_s, false, "intruder", true}}, false);
  const XrunReports all = ledger.pending(j, /*horizon=*/false);
  EXPECT_EQ(all.monitor.cycles, (std::vector<std::optional<uint64_t>>{last_id + 1}))
      << "the cycle after the last row may report the last one; 60 cycles later is not the "
         "window's";
  EXPECT_TRUE(all.log.empty());
}

TEST(FrameCycleMap, DroppingOldStretchesKeepsTheMappingOfNewerCycles) {
  FrameCycleMap m(kPeriod);
  uint32_t f = 1000;
  for (uint64_t id = 0; id < 100; ++id) {
    if (id % 10 == 0) f += 3 * kPeriod;  // the counter moved on: a new stretch every 10 rows
    m.add(id, f);
    f += kPeriod;
  }
  ASSERT_EQ(m.anchors(), 10u);
  std::vector<std::optional<uint64_t>> before;
  f = 1000;
  std::vector<uint32_t> frames;
  for (uint64_t id = 0; id < 100; ++id) {
    if (id % 10 == 0) f += 3 * kPeriod;
    frames.push_back(f);
    before.push_back(m.cycle(f));
    f += kPeriod;
  }
  m.drop_before(55);
  EXPECT_EQ(m.anchors(), 5u) << "the stretch of 50..59 maps 55 and stays";
  for (uint64_t id = 50; id < 100; ++id) EXPECT_EQ(m.cycle(frames[id]), before[id]) << id;
  EXPECT_EQ(m.cycle(frames[20]), std::nullopt) << "forgotten";
}

}  // namespace
}  // namespace xrunlab
