// SPDX-License-Identifier: GPL-2.0-or-later
// One xrun count with each event's cause: reports no chain event explains become events outside
// the chain, and jackd's lines name who made each event (engine/result/xrun_causes.hpp).
#include "engine/result/xrun_causes.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

constexpr double kPeriodMs = 5.0;  // the bound: 10 cycles (50 ms)

XrunRun event(uint64_t first, uint64_t last) {
  const auto f = static_cast<double>(first);
  return XrunRun{first, last, f * 0.005, (f + 1) * 0.005, false};
}

XrunLogLine running(double t, const std::string& client) {
  return {t, false, client, true};
}
XrunLogLine triggered(double t, const std::string& client) {
  return {t, false, client, false};
}

const CauseCount* count_of(const XrunAttribution& a, const std::string& kind,
                           const std::string& client = "") {
  for (const CauseCount& c : a.causes) {
    if (c.cause.kind == kind && c.cause.client == client) return &c;
  }
  return nullptr;
}

TEST(XrunCauses, AForeignStallTheChainNeverSawIsAnEventOutsideItNamedByJackd) {
  // No chain event. Stall in cycle 100: the monitor hears it in 101 and 102, jackd names the
  // intruder running and, a cycle later, c01 that had not started.
  CallbackArrivals cb{{101, 102}, {0.506, 0.511}};
  const XrunAttribution a = attribute_xruns(
      {}, cb, {running(0.505, "intruder"), triggered(0.510, "xrunlab-1-0-c01")}, kPeriodMs);
  EXPECT_EQ(a.outside_events, 1u);
  ASSERT_EQ(a.outside.size(), 1u);
  EXPECT_EQ(a.outside[0].callbacks, 2u);
  EXPECT_EQ(a.outside[0].lines, 2u);
  EXPECT_EQ(a.outside[0].cycle, 101u);
  EXPECT_EQ(a.outside[0].cause.kind, "client");
  EXPECT_EQ(a.outside[0].cause.client, "intruder");
  const CauseCount* c = count_of(a, "client", "intruder");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->outside, 1u);
  EXPECT_EQ(c->chain, 0u);
}

TEST(XrunCauses, EachStallIsOneEventAndCallbacksFewCyclesApartAreOne) {
  // Five stalls 100 cycles apart (500 ms), each heard in two consecutive cycles.
  CallbackArrivals cb;
  std::vector<XrunLogLine> lines;
  for (uint64_t k = 0; k < 5; ++k) {
    const uint64_t c = 100 + 100 * k;
    const double t = static_cast<double>(c) * 0.005;
    cb.cycles.insert(cb.cycles.end(), {c + 1, c + 2});
    cb.t_s.insert(cb.t_s.end(), {t + 0.006, t + 0.011});
    lines.push_back(running(t + 0.005, "intruder"));
  }
  const XrunAttribution a = attribute_xruns({}, cb, lines, kPeriodMs);
  EXPECT_EQ(a.outside_events, 5u);
  const CauseCount* c = count_of(a, "client", "intruder");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->outside, 5u);
}

TEST(XrunCauses, AChainEventIsNamedByTheClientJackdFoundRunning) {
  // Event at cycle 10: jackd names c02 triggered first, then c03 running: c03 made it.
  CallbackArrivals cb{{11}, {0.056}};
  const XrunAttribution a = attribute_xruns(
      {event(10, 10)}, cb, {triggered(0.0551, "c02"), running(0.0552, "c03")}, kPeriodMs);
  EXPECT_EQ(a.outside_events, 0u);
  const CauseCount* c = count_of(a, "client", "c03");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->chain, 1u);
  EXPECT_EQ(a.causes.size(), 1u);
}

TEST(XrunCauses, ADriverLineMakesItTheDriversAndOnlyNotStartedClientsSaySo) {
  const XrunAttribution a =
      attribute_xruns({event(10, 10), event(40, 40)}, {},
                      {triggered(0.0552, "c02"), {0.2052, true, "", false}}, kPeriodMs);
  ASSERT_NE(count_of(a, "not_started"), nullptr);
  EXPECT_EQ(count_of(a, "not_started")->chain, 1u);
  ASSERT_NE(count_of(a, "driver"), nullptr);
  EXPECT_EQ(count_of(a, "driver")->chain, 1u);
}

TEST(XrunCauses, WithoutJackdsLogEveryEventIsUnnamed) {
  // --backend attach: callbacks only, one for the chain's event and one far from it.
  CallbackArrivals cb{{11, 300}, {0.056, 1.5}};
  const XrunAttribution a = attribute_xruns({event(10, 10)}, cb, {}, kPeriodMs);
  EXPECT_EQ(a.outside_events, 1u);
  const CauseCount* c = count_of(a, "unnamed");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->chain, 1u);
  EXPECT_EQ(c->outside, 1u);
}

TEST(XrunCauses, AReportWithinTheBoundAfterAChainEventIsThatEvents) {
  // 10 cycles after event 10's last cycle: the event's. 11: outside.
  CallbackArrivals cb{{20}, {0.1}};
  EXPECT_EQ(attribute_xruns({event(10, 10)}, cb, {}, kPeriodMs).outside_events, 0u);
  cb = {{21}, {0.105}};
  EXPECT_EQ(attribute_xruns({event(10, 10)}, cb, {}, kPeriodMs).outside_events, 1u);
}

TEST(XrunCauses, LinesNearNoCallbackAreEventsOfTheirOwn) {
  // The monitor missed them: two lines one period apart are one event, one 1 s later another.
  const XrunAttribution a = attribute_xruns(
      {}, {}, {running(1.0, "x"), triggered(1.005, "y"), running(2.0, "z")}, kPeriodMs);
  EXPECT_EQ(a.outside_events, 2u);
  ASSERT_EQ(a.outside.size(), 2u);
  EXPECT_FALSE(a.outside[0].cycle);
  EXPECT_EQ(a.outside[0].lines, 2u);
  EXPECT_EQ(a.outside[0].cause.client, "x");
  EXPECT_EQ(a.outside[1].cause.client, "z");
}

TEST(XrunCauses, AnXrunOfACycleBeforeTheWindowIsNotTheWindows) {
  // The window starts at cycle 100. A stall of cycle 99 is heard in 100 and 101: left out. A
  // stall of 100, heard in 101: the window's. Lines in the first two periods with no callback:
  // left out; a line later: an event.
  CallbackArrivals before{{100, 101}, {0.0, 0.005}};
  EXPECT_EQ(attribute_xruns({}, before, {}, kPeriodMs, 100).outside_events, 0u);
  EXPECT_EQ(attribute_xruns({}, before, {}, kPeriodMs).outside_events, 1u) << "no window known";
  CallbackArrivals first{{101}, {0.005}};
  EXPECT_EQ(attribute_xruns({}, first, {}, kPeriodMs, 100).outside_events, 1u);
  EXPECT_EQ(attribute_xruns({}, {}, {running(0.009, "x")}, kPeriodMs, 100).outside_events, 0u);
  EXPECT_EQ(attribute_xruns({}, {}, {running(0.011, "x")}, kPeriodMs, 100).outside_events, 1u);
}

TEST(XrunCauses, MergingAddsCountsPerCauseAndKeepsTheFirstOutsideEvents) {
  XrunAttribution a, b;
  a.count({"client", "x"}, true);
  a.outside_events = 1;
  a.outside.push_back({1.0, 200, 1, 1, {"client", "x"}});
  a.count({"client", "x"}, false);
  b.count({"client", "x"}, false);
  b.count({"unnamed", ""}, true);
  b.outside_events = 1;
  b.outside.push_back({2.0, 400, 1, 0, {"client", "x"}});
  merge_attribution(a, b);
  EXPECT_EQ(a.outside_events, 2u);
  EXPECT_EQ(a.outside.size(), 2u);
  ASSERT_EQ(a.causes.size(), 2u);
  EXPECT_EQ(count_of(a, "client", "x")->chain, 1u);
  EXPECT_EQ(count_of(a, "client", "x")->outside, 2u);
  EXPECT_EQ(count_of(a, "unnamed")->chain, 1u);
}

}  // namespace
}  // namespace xrunlab
