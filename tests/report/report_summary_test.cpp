// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/report_summary.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/system/atomic_file.hpp"
#include "tests/support/files.hpp"
#include "tests/support/sample_result.hpp"

namespace xrunlab {
namespace {

using testing_support::sample_result;
using testing_support::second_of;

using testing_support::expect_golden;
using testing_support::fixture_path;
using testing_support::fixture_text;
using testing_support::read_text;

const std::string k14Clients = "jack_test/rt-2.6.12-V0.7.51-jack_test4.1-14clients.txt";

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(FormatSummary, MatchesGoldenFile) {
  expect_golden("summary_basic.txt", format_summary(sample_result()));
}

// Every line of the jack_test block has the fixture's label, leader, colon column and value
// end column, so column-based scripts of 2005 read it unchanged.
TEST(FormatSummary, JackTestBlockAlignsWithFixture) {
  const std::vector<std::string> fixture = split_lines(fixture_text(k14Clients));
  const std::vector<std::string> ours = split_lines(format_summary(sample_result()));
  size_t compared = 0;
  for (const std::string& f : fixture) {
    if (f.find(':') == std::string::npos) continue;
    if (f.rfind(" Delta Maximum", 0) == 0) continue;  // jack_test4's signal check: not measured
    const std::string prefix = f.substr(0, f.find(':') + 1);
    const auto it = std::find_if(ours.begin(), ours.end(),
                                 [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
    ASSERT_NE(it, ours.end()) << "missing line: " << prefix;
    EXPECT_EQ(it->find(':'), kSummaryColonIndex) << *it;
    EXPECT_EQ(it->size(), f.size()) << "value end column differs:\n" << *it << "\n" << f;
    ++compared;
  }
  EXPECT_EQ(compared, 20u);
  // The block itself (after the policy and thread lines at the top) is framed exactly like the
  // fixture's, line for line.
  const auto start = std::find(ours.begin(), ours.end(), fixture[0]);
  ASSERT_NE(start, ours.end());
  const std::vector<std::string> block(start, ours.end());
  ASSERT_GE(block.size(), 23u);
  EXPECT_EQ(block[6], fixture[6]);
  EXPECT_EQ(block[22], fixture[22]);
  for (size_t i = 0; i < 22; ++i) {
    if (i == 0 || i == 6) continue;
    EXPECT_EQ(block[i].substr(0, kSummaryColonIndex + 1),
              fixture[i].substr(0, kSummaryColonIndex + 1))
        << "line " << i;
  }
}

// The generic leader rule reproduces jack_test's hand-written leaders (except its one oddity,
// "Average DSP Load. . .") and keeps long labels readable.
TEST(SummaryFieldLine, ReproducesJackTestLeaders) {
  for (const std::string& f : split_lines(fixture_text(k14Clients))) {
    const size_t colon = f.find(':');
    if (colon == std::string::npos || f.rfind(" Average DSP Load", 0) == 0) continue;
    const auto parsed = parse_summary_lines(f);
    ASSERT_EQ(parsed.size(), 1u) << f;
    EXPECT_EQ(summary_field_line(parsed[0].label, f.substr(colon + 1)), f + "\n");
  }
  EXPECT_EQ(summary_field_line("A label longer than the colon column", " x"),
            " A label longer than the colon column : x\n");
  EXPECT_EQ(summary_field_line("Twenty-seven chars of label", "1"),
            " Twenty-seven chars of label . :1\n");
}

// Every field label xrunlab writes is short enough to keep a dot leader (parse_summary needs one).
TEST(FormatSummary, EveryFieldLineParsesBack) {
  const std::string text = format_summary(sample_result());
  size_t fields = 0;
  for (const std::string& line : split_lines(text)) {
    if (line.find(" . ") == std::string::npos && line.find(". :") == std::string::npos) continue;
    ++fields;
    EXPECT_EQ(line.find(':'), kSummaryColonIndex) << line;
    EXPECT_EQ(parse_summary_lines(line).size(), 1u) << line;
  }
  size_t titles = 0;
  for (const SummaryLine& l : parse_summary_lines(text)) titles += l.label == "***";
  EXPECT_EQ(titles, 2u);  // SUMMARY RESULT, XRUNLAB RESULT
  EXPECT_EQ(fields + titles, parse_summary_lines(text).size());
  EXPECT_EQ(fields, parse_summary(text).size());
}

TEST(FormatSummary, RoundTripGivesTheNumbers) {
  const RunResult r = sample_result();
  const auto f = parse_summary(format_summary(r));
  auto num = [](auto v) { return std::to_string(v); };
  auto one = [](double v) { return fmt::format("{:.1f}", v); };
  EXPECT_EQ(f.at("Total seconds ran"), "3");
  EXPECT_EQ(f.at("Number of clients"), "2");
  EXPECT_EQ(f.at("Ports per client"), "4");
  EXPECT_EQ(f.at("Frames per buffer"), "256");
  EXPECT_EQ(f.at("Number of runs"), "1");
  EXPECT_EQ(f.at("Timeout Count"), num(r.timeout_count));
  EXPECT_EQ(f.at("XRUN Count"), num(r.xrun_count));
  EXPECT_EQ(f.at("Delay Count (>spare time)"), num(r.delay_over_spare));
  EXPECT_EQ(f.at("Delay Count (>1000 usecs)"), num(r.delay_over_1000));
  // jack_test's definitions (JACK1's rules on jackd's wake-ups), in whole usecs as "%5d".
  ASSERT_EQ(r.jack_test.definitions, "jack1-rules");
  EXPECT_EQ(f.at("Delay Maximum"), num(static_cast<int64_t>(*r.jack_test.delay_max_us)));
  EXPECT_EQ(f.at("Cycle Maximum"), "n/a   usecs") << "4 cycles: JACK1 took no 32-cycle checkpoint";
  EXPECT_EQ(f.at("Average DSP Load"), one(*r.avg_dsp_load)) << "JACK2's, for want of JACK1's";
  EXPECT_EQ(f.at("Average CPU System Load"), one(r.avg_system));
  EXPECT_EQ(f.at("Average CPU User Load"), one(r.avg_user));
  EXPECT_EQ(f.at("Average CPU Nice Load"), one(r.avg_nice));
  EXPECT_EQ(f.at("Average CPU I/O Wait Load"), one(r.avg_iowait));
  EXPECT_EQ(f.at("Average CPU IRQ Load"), one(r.avg_irq));
  EXPECT_EQ(f.at("Average CPU Soft-IRQ Load"), one(r.avg_softirq));
  EXPECT_EQ(f.at("Average Interrupt Rate"), one(r.avg_intr));
  EXPECT_EQ(f.at("Average Context-Switch Rate"), one(r.avg_ctxt));
  // The derived numbers themselves, by construction of sample_result().
  EXPECT_EQ(f.at("Timeout Count"), "0");  // no jackd line said "timed out"
  EXPECT_EQ(f.at("XRUN Count"), "1");     // the card's one xrun; not the 2 client-late ones
  EXPECT_EQ(f.at("Delay Count (>spare time)"), "0");
  EXPECT_EQ(f.at("Delay Count (>1000 usecs)"), "0");
  EXPECT_EQ(f.at("Delay Maximum"), "1");  // wake-ups 1 usec later each cycle than the last
  EXPECT_EQ(f.at("Average DSP Load"), "35.3");

  EXPECT_EQ(f.at("Status"), "failed (client 2 exited with status 1)");
  EXPECT_EQ(f.at("Sample rate"), "48000");
  EXPECT_EQ(f.at("Period"), "5333.3");
  EXPECT_EQ(f.count("Spare time"), 0u) << "one period is not a spare time";
  EXPECT_EQ(f.at("Delay reference"), "jack_frames_since_cycle_start (resolution 20.8 usecs)");
  EXPECT_EQ(f.at("Callback delay p50"), num(r.delay.p50->value_us));
  EXPECT_EQ(f.at("Callback delay p99"), num(r.delay.p99->value_us));
  EXPECT_EQ(f.at("Callback delay p99.9"), num(r.delay.p999->value_us));
  EXPECT_EQ(f.at("Callback delay mean"), one(*r.delay.mean_us));
  EXPECT_EQ(f.at("Callback end p50"), num(r.cycle.p50->value_us));
  EXPECT_EQ(f.at("Callback end p99"), num(r.cycle.p99->value_us));
  EXPECT_EQ(f.at("Callback end p99.9"), num(r.cycle.p999->value_us));
  EXPECT_EQ(f.at("Callback duration max"), num(*r.duration.max_us));
  EXPECT_EQ(f.at("JACK2 xrun events (monitor)"), "2");
  EXPECT_EQ(f.at("Client-late xruns (jackd)"), "2");
  EXPECT_EQ(f.at("Driver XRUNs (jackd log)"), "0");
  EXPECT_EQ(f.at("Late clients (jackd log)"), "xrunlab-c2");
  EXPECT_EQ(f.at("Injected overruns"), "0");
}

TEST(FormatSummary, MissingValuesAndEmptyRun) {
  RunResult r;
  r.status = RunStatus::kInterrupted;
  finalize(r);
  const std::string text = format_summary(r);
  const auto f = parse_summary(text);
  EXPECT_EQ(f.at("Delay Maximum"), "0");
  EXPECT_EQ(f.at("Cycle Maximum"), "0");
  EXPECT_EQ(f.at("Average DSP Load"), "n/a");
  EXPECT_NE(text.find(" Average DSP Load. . . . . . . :     n/a\n"), std::string::npos);
  EXPECT_EQ(f.at("Callback delay p99"), "n/a");
  EXPECT_EQ(f.at("Callback delay mean"), "n/a");
  EXPECT_EQ(f.at("Status"), "interrupted");
  EXPECT_EQ(f.at("Delay reference"), "unknown");
  EXPECT_NE(text.find("   (no clients)\n"), std::string::npos);
  EXPECT_EQ(text.find("warning:"), std::string::npos);
  EXPECT_EQ(f.count("Late clients (jackd log)"), 0u);
}

// jackd's "xrun of at least N msecs" is a duration on a real card, and the time since the
// stream started on the virtual card (9087358 usecs was printed as a maximum there).
TEST(FormatSummary, DriverXrunDurationOnlyWhereItMeansOne) {
  RunResult r;
  r.status = RunStatus::kCompleted;
  r.xruns.log_driver_xruns = 3;
  r.xruns.log_driver_max_delay_us = 9087358.0;
  finalize(r);
  const std::string line = " Driver XRUNs (jackd log)  . . :     3";
  EXPECT_NE(format_summary(r).find(line + "   (max 9087358.0 usecs)\n"), std::string::npos)
      << format_summary(r);
  r.xruns.card_xruns = 3;
  const std::string on_vcard = format_summary(r);
  EXPECT_NE(on_vcard.find(line + "   (jackd's durations are not meaningful on vcard)\n"),
            std::string::npos)
      << on_vcard;
  EXPECT_EQ(on_vcard.find("9087358"), std::string::npos);
  EXPECT_EQ(parse_summary(on_vcard).at("Driver XRUNs (jackd log)"), "3");
}

TEST(FormatSummary, LogLinesDroppedSaysWhenRepeatedXrunLinesWereCut) {
  RunResult r = sample_result();
  finalize(r);
  const std::string debug_only = format_summary(r);
  EXPECT_NE(debug_only.find("(JACK debug lines after 20 of each kind; counts"), std::string::npos)
      << debug_only;
  EXPECT_EQ(debug_only.find("xrun lines and messages"), std::string::npos);
  r.logs->jackd.dropped["xrun: client not finished"] = 5000;
  r.logs->jackd.repeats_kept_per_kind = 10000;
  const std::string cut = format_summary(r);
  EXPECT_NE(cut.find("(JACK debug lines after 20 of each kind, xrun lines and messages after "
                     "10000 of each kind; counts"),
            std::string::npos)
      << cut;
}

TEST(FormatSummary, UnderPipewireNoLineIsNamedAfterJack2OrJackd) {
  RunResult r;
  r.status = RunStatus::kCompleted;
  r.backend.name = "pipewire";
  r.jack_test.definitions = "jack1-rules";
  r.xruns.monitor_events = 2;
  r.xruns.monitor_callbacks = 2;
  finalize(r);
  const std::string text = format_summary(r);
  EXPECT_NE(text.find(" PipeWire xruns (monitor)  . . :     2   (2 callbacks; at most one a "
                      "cycle)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(" Server xrun log"), std::string::npos) << text;
  EXPECT_NE(text.find("XRUN Count = PipeWire's xrun callbacks (its driver's count)"),
            std::string::npos)
      << text;
  for (const char* jack2 : {"JACK2 xrun events", "Client-late xruns (jackd)", "Driver XRUNs"}) {
    EXPECT_EQ(text.find(jack2), std::string::npos) << jack2 << "\n" << text;
  }
  // PipeWire's xrun callback is its driver's count: that is XRUN Count here (jackd's log is 0).
  EXPECT_EQ(r.xrun_count, 2u);
  EXPECT_EQ(parse_summary(text).at("XRUN Count"), "2");
}

std::string without_newline(std::string s) {
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// x11 and top count what their programs report: the count, its unit and its rate in the load's
// line; a count that covers no time (glxgears had not finished one 5-s report) has no rate, and
// says how long the load ran.
// bench: its jobs and their times in the load's line instead of a rate; a load that finished no
// job says so and how long it ran.
TEST(ReportSummary, LoadLineShowsTheBenchJobsAndTheirTimes) {
  RunResult r = sample_result();
  LoadRecord bench = r.loads->at(0);
  bench.spec = "bench";
  bench.kind = "bench";
  bench.report->iterations = 0;
  bench.report->units = 412;
  bench.report->units_s = 20.0;
  bench.report->unit_name = "benchmark jobs";
  bench.report->bench = BenchFigures{412, 10'000'000, 48.6, 45.1, 47.9};
  LoadRecord idle = bench;
  idle.spec = "bench:2";
  idle.report->units = 0;
  idle.report->units_s = 0;
  idle.report->bench = BenchFigures{0, 10'000'000, std::nullopt, std::nullopt, std::nullopt};
  r.loads = std::vector<LoadRecord>{bench, idle};
  const std::string text = format_summary(r);
  EXPECT_NE(text.find("   bench                    nice +0  cpu 35.5 s, 412 jobs, 48.6 ms mean "
                      "wall (min 45.1, CPU 47.9 ms)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("   bench:2                  nice +0  cpu 35.5 s, 0 jobs (none finished "
                      "in its 4.8 s)\n"),
            std::string::npos)
      << text;
}

TEST(ReportSummary, LoadLineShowsCountedUnitsAndTheirRate) {
  RunResult r = sample_result();
  LoadRecord x11 = r.loads->at(0);
  x11.spec = "x11";
  x11.kind = "x11";
  x11.report->iterations = 0;
  x11.report->units = 16427;
  x11.report->units_s = 10.0;
  x11.report->unit_name = "frames drawn";
  LoadRecord top = x11;
  top.spec = "top";
  top.report->units = 0;
  top.report->units_s = 0;
  top.report->unit_name = "refreshes";
  r.loads = std::vector<LoadRecord>{x11, top};
  const std::string text = format_summary(r);
  EXPECT_NE(
      text.find("   x11                      nice +0  cpu 35.5 s, 16427 frames drawn in 10.0 s "
                "(1643/s)\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("   top                      nice +0  cpu 35.5 s, 0 refreshes (none reported "
                      "in its 4.8 s)\n"),
            std::string::npos)
      << text;
}

// --cpus / --load-cpus: one line with the sets and whether the read-backs matched, in the three
// states run.json's affinity.verified can have.
TEST(FormatSummary, CpuAffinityLineSaysTheSetsAndWhatWasVerified) {
  RunResult r;
  r.status = RunStatus::kCompleted;
  finalize(r);
  EXPECT_EQ(format_summary(r).find("CPU affinity"), std::string::npos) << "null: no line";
  auto line = [&](const AffinityRecord& affinity) {
    r.affinity = affinity;
    const std::string text = format_summary(r);
    const auto at = text.find(" CPU affinity");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  EXPECT_EQ(line({{0}, {1}, 30, 1, true}),
            without_newline(
                summary_field_line("CPU affinity",
                                   " audio threads on CPUs 0; loads on CPUs 1 (verified: 30 thread "
                                   "and 1 load read-backs matched)")));
  EXPECT_NE(line({{0, 1, 3}, {}, 4, 0, false})
                .find(": audio threads on CPUs 0-1,3 (NOT as requested: see run.json scheduling)"),
            std::string::npos);
  EXPECT_NE(line({{}, {1}, 0, 0, std::nullopt})
                .find(": loads on CPUs 1 (not verified: the run ended before it was read back "
                      "(0 thread and 0 load read-backs))"),
            std::string::npos);
}

// Lists that hold only the first events: the counts taken from them say so, with the totals.
TEST(FormatSummary, CountsFromCutListsSayWhatTheyCover) {
  RunResult r;
  r.status = RunStatus::kCompleted;
  for (int i = 0; i < 4; ++i) r.xruns.events.push_back({1.0 + i, 0, 1});
  r.xruns.monitor_events = 38037;
  AudioResult a;
  a.period_frames = 256;
  for (int i = 0; i < 3; ++i) {
    GlitchResult g;
    g.t_s = 1.01 + 3 * i;  // 1.01, 4.01 (after 2, 3 and 4 s: unheard), 7.01 (beyond the xruns)
    g.report.at_frame = 48000u * (1 + 3 * i);
    a.glitches.push_back(g);
  }
  a.totals.glitches = 3;
  a.final_received = true;
  r.audio = a;
  finalize(r);
  std::string text = format_summary(r);
  auto f = parse_summary(text);
  EXPECT_EQ(f.at("JACK2 xrun events (monitor)"), "38037");
  EXPECT_EQ(f.at("Glitches without xrun"), "0");  // 7.01 s is not judged
  EXPECT_EQ(f.at("XRUNs without glitch"), "2");   // 2.0 and 3.0 s
  EXPECT_NE(text.find(" Glitches and XRUNs judged . . : the first 2 of 3 glitches, the first 4 "
                      "of 38037 xrun events (run.json lists only the first ones)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(3 events, 0 frames checked)"), std::string::npos) << text;

  // The glitch list cut too: the audible events are of its first glitches.
  r.audio->totals.glitches = 23000;
  finalize(r);
  text = format_summary(r);
  EXPECT_NE(text.find("(3 events in the first 3 glitches, 0 frames checked)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("the first 2 of 23000 glitches, the first 4 of 38037 xrun events"),
            std::string::npos)
      << text;

  // Whole lists: no such line.
  r.xruns.monitor_events = 4;
  r.audio->totals.glitches = 3;
  finalize(r);
  EXPECT_EQ(format_summary(r).find("judged"), std::string::npos);

  // The tail's totals never came (an interrupted run): the glitches listed, not 0.
  r.audio->totals.glitches = 0;
  r.audio->final_received = false;
  finalize(r);
  text = format_summary(r);
  EXPECT_EQ(parse_summary(text).at("Audible glitches"), "3");
  EXPECT_NE(text.find("(3 events, 0 frames checked, incomplete)"), std::string::npos) << text;
  EXPECT_EQ(parse_summary(text).at("XRUNs without glitch"), "2");
}

TEST(FormatSummary, InexactPercentilePrintsLowerBound) {
  RunResult r = sample_result();
  // 200000 values above the histogram bound: the largest 1024 are kept, the others only
  // counted, so the median and p99 fall among values known only to exceed the bound.
  ClientResult c;
  c.index = 3;
  c.name = "slow";
  add_second(
      c, second_of(3, 0, 201000, {{100, 1000}, {25000, 200000}}, {{50, 201000}}, {{150, 201000}}));
  ASSERT_FALSE(c.delay.percentile(50)->exact);
  ASSERT_FALSE(c.delay.percentile(99)->exact);
  ASSERT_TRUE(c.delay.percentile(99.9)->exact);
  r.client_results = {std::move(c)};
  finalize(r);
  const std::string text = format_summary(r);
  EXPECT_NE(text.find(summary_field_line("Callback delay p50", ">=20001   usecs")),
            std::string::npos)
      << text;
  EXPECT_EQ(parse_summary(text).at("Callback delay p50"), ">=20001");
  EXPECT_EQ(parse_summary(text).at("Callback delay p99.9"), "25000");
  EXPECT_NE(text.find(" >=20001 "), std::string::npos) << "per-client delay_p99 column";
}

TEST(FormatSummary, TextFieldsStayOnOneLine) {
  RunResult r = sample_result();
  r.status_detail = "line one\nline two";
  r.client_results[1].error = "first\r\nsecond";
  r.warnings = {"a\nb"};
  const std::string text = format_summary(r);
  EXPECT_NE(text.find("failed (line one line two)\n"), std::string::npos);
  EXPECT_NE(text.find("first  second\n"), std::string::npos);
  EXPECT_NE(text.find("\nwarning: a b\n"), std::string::npos);
}

TEST(ParseSummary, EveryFixtureFile) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixture_path("jack_test"))) {
    if (entry.path().extension() != ".txt") continue;
    ++files;
    const std::string text = read_text(entry.path().string());
    const auto fields = parse_summary(text);
    EXPECT_FALSE(fields.empty()) << entry.path();
    for (const auto& [label, value] : fields) {
      EXPECT_FALSE(label.empty()) << entry.path();
      EXPECT_EQ(label.find_first_of(".:"), std::string::npos) << label;
      EXPECT_FALSE(value.empty()) << entry.path() << ": " << label;
      EXPECT_EQ(value.find_first_of(" ()%"), std::string::npos) << label << " = " << value;
    }
  }
  EXPECT_EQ(files, 6u);  // five historical files and the constructed consolidated block
}

TEST(ParseSummary, FourteenClients) {
  const auto f = parse_summary(fixture_text(k14Clients));
  EXPECT_EQ(f.size(), 21u);
  EXPECT_EQ(f.at("Total seconds ran"), "300");
  EXPECT_EQ(f.at("Number of clients"), "14");
  EXPECT_EQ(f.at("Ports per client"), "4");
  EXPECT_EQ(f.at("Frames per buffer"), "64");
  EXPECT_EQ(f.at("Number of runs"), "1");
  EXPECT_EQ(f.at("Timeout Count"), "0");
  EXPECT_EQ(f.at("Delay Maximum"), "18");
  EXPECT_EQ(f.at("Cycle Maximum"), "637");
  EXPECT_EQ(f.at("Average DSP Load"), "36.3");
  EXPECT_EQ(f.at("Average CPU I/O Wait Load"), "0.0");
  EXPECT_EQ(f.at("Average Context-Switch Rate"), "14361.3");
  EXPECT_EQ(f.at("Delta Maximum"), "0.00000");
}

TEST(ParseSummary, SchedFifoWithHeadHeaderAndNoLeadingSpace) {
  const std::string text = fixture_text("jack_test/sched-fifo-2.6.11-rc1-mm2-jack_test4.1.txt");
  const auto f = parse_summary(text);
  EXPECT_EQ(f.at("XRUN Count"), "41");
  EXPECT_EQ(f.at("Cycle Maximum"), "10968");
  EXPECT_EQ(f.at("Delay Maximum"), "0");
  EXPECT_EQ(f.at("Average Interrupt Rate"), "1689.9");
  const auto lines = parse_summary_lines(text);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front().label, "==>");
  EXPECT_EQ(lines.front().value, "jack_test4-2.6.11-rc1-mm2-fifo.log");
  EXPECT_EQ(lines.front().line, 1u);
}

TEST(ParseSummary, IdleAndThreeRuns) {
  const auto idle = parse_summary(fixture_text("jack_test/idle-2.6.10-rt-jack_test3.txt"));
  EXPECT_EQ(idle.size(), 15u);
  EXPECT_EQ(idle.at("Cycle Maximum"), "582");
  EXPECT_EQ(idle.at("Average Interrupt Rate"), "1676.5");
  const auto iso = parse_summary(fixture_text("jack_test/sched-iso-2.6.11-rc2-mm1-3runs.txt"));
  EXPECT_EQ(iso.at("Number of runs"), "3");
  EXPECT_EQ(iso.at("Number of clients"), "10");
  EXPECT_EQ(iso.at("Delay Maximum"), "150");
  EXPECT_EQ(iso.at("Average CPU IRQ Load"), "0.1");
}

TEST(ParseSummary, DotSummaryKeepsOrderAndCases) {
  const std::string text = fixture_text("jack_test/dot-SUMMARY-2005.txt");
  const auto lines = parse_summary_lines(text);
  ASSERT_GE(lines.size(), 4u);
  using P = std::pair<std::string, std::string>;
  auto pair = [](const SummaryLine& l) { return P(l.label, l.value); };
  EXPECT_EQ(pair(lines[0]), P("#", "sched-iso-fix"));
  EXPECT_EQ(pair(lines[1]), P("Delay Maximum", "33894"));
  EXPECT_EQ(pair(lines[2]), P("Delay Maximum", "745"));
  EXPECT_EQ(pair(lines[3]), P("Delay Maximum", "341"));
  EXPECT_EQ(lines[3].line, 4u);
  size_t cases = 0, delay = 0, xrun = 0;
  for (const SummaryLine& l : lines) {
    cases += l.label == "#";
    delay += l.label == "Delay Maximum";
    xrun += l.label == "XRUN Count";
  }
  EXPECT_EQ(cases, 12u);
  EXPECT_EQ(delay, 28u);
  EXPECT_EQ(xrun, 28u);
  EXPECT_EQ(pair(lines.back()), P("XRUN Count", "0"));
  // The map keeps the first value of a repeated label.
  EXPECT_EQ(parse_summary(text).at("Delay Maximum"), "33894");
  EXPECT_EQ(parse_summary(text).count("#"), 0u);
}

TEST(ParseSummary, ToleratesCrlfTabsAndOtherText) {
  const auto f = parse_summary(
      "Some mail text: not a field\r\n"
      "\t XRUN Count  . . . . . . . . . :    7\r\n"
      "warning: also not a field\n"
      "Average DSP Load. . . . . . . :    n/a\n"
      "Delay p99 . . . :>=20001   usecs\n"
      "Exp . . . : 1e3 x\n"
      "Odd . . . : 12abc\n"
      "Empty . . . :\n"
      ". . . : no label\n");
  EXPECT_EQ(f.size(), 6u);
  EXPECT_EQ(f.at("XRUN Count"), "7");
  EXPECT_EQ(f.at("Average DSP Load"), "n/a");
  EXPECT_EQ(f.at("Delay p99"), ">=20001");
  EXPECT_EQ(f.at("Exp"), "1e3");
  EXPECT_EQ(f.at("Odd"), "12abc");
  EXPECT_EQ(f.at("Empty"), "");
}

// Each line knows its number and keeps its whole value text (every column of a multi-run
// block, the units); titles between stars are reported, lines of stars are not.
TEST(ParseSummaryLines, LineNumbersWholeTextAndTitles) {
  const auto lines = parse_summary_lines(
      " ************* SUMMARY RESULT ****************\r\n"
      " *********************************************\r\n"
      "\r\n"
      " XRUN Count  . . . . . . . . . :    12    30     7\r\n"
      " Timeout Count . . . . . . . . :(    0)(    1)\n"
      "mail text\n"
      " Delay Maximum . . . . . . . . :   150   usecs\n");
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].label, "***");
  EXPECT_EQ(lines[0].value, "SUMMARY RESULT");
  EXPECT_EQ(lines[0].line, 1u);
  EXPECT_EQ(lines[1].label, "XRUN Count");
  EXPECT_EQ(lines[1].value, "12");
  EXPECT_EQ(lines[1].text, "12    30     7");
  EXPECT_EQ(lines[1].line, 4u);
  EXPECT_EQ(lines[2].text, "(    0)(    1)");
  EXPECT_EQ(lines[2].line, 5u);
  EXPECT_EQ(lines[3].text, "150   usecs");
  EXPECT_EQ(lines[3].line, 7u);
}

// The thread table's second column starts at one place for every row, however long the
// clients' names (they carry the run's server name: xrunlab-29601-0-c01).
TEST(FormatSummary, ThreadRowsLineUpWithLongClientNames) {
  RunResult r = sample_result();
  r.threads_start.clear();
  for (const std::string role : {"server", "xrunlab-29601-0-c01", "xrunlab-29601-0-c10"}) {
    AudioThread a;
    a.role = role;
    a.sched.pid = 1;
    r.threads_start.push_back(a);
  }
  r.threads_end = r.threads_start;  // one row each: "end: same"
  std::istringstream in(format_summary(r));
  std::string line;
  std::vector<size_t> starts;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line == " Audio threads (start; end when it differs):") {
      inside = true;
    } else if (inside && line.rfind("   ", 0) == 0) {
      starts.push_back(line.find_first_not_of(' ', line.find(' ', 3)));  // after the name
    } else if (inside) {
      break;
    }
  }
  ASSERT_EQ(starts.size(), 3u) << format_summary(r);
  EXPECT_EQ(starts[0], starts[1]) << format_summary(r);
  EXPECT_EQ(starts[1], starts[2]) << format_summary(r);
  EXPECT_EQ(starts[0], 3u + 19u + 1u);  // "   " + the longest name + one space
}

TEST(Summary, PageFaultsOfTheAudioThreadsAreCountedBetweenTheTwoReadings) {
  RunResult r = sample_result();
  const auto thread = [](const char* role, pid_t tid, int64_t minor, int64_t major) {
    AudioThread a;
    a.role = role;
    a.sched.pid = 100;
    a.sched.tid = tid;
    a.sched.minor_faults = minor;
    a.sched.major_faults = major;
    return a;
  };
  r.threads_start = {thread("server", 1, 500, 2), thread("c01", 2, 40, 0), thread("c02", 3, 7, 0)};
  r.threads_end = {thread("server", 1, 500, 2), thread("c01", 2, 43, 1), thread("c02", 3, 7, 0)};
  const std::string s = format_summary(r);
  EXPECT_NE(
      s.find(" Page faults of the 3 audio threads from start to end: 3 minor, 1 major (c01 4)\n"),
      std::string::npos)
      << s;
  // Counts not read (a run.json from before they were kept): no line, not a zero.
  r.threads_end = {thread("server", 1, -1, -1)};
  EXPECT_EQ(format_summary(r).find("Page faults"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
