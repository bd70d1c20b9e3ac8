// SPDX-License-Identifier: GPL-2.0-or-later
// The cycle joiner on rows made by hand: the hop decomposition (every hop exact, their sum the
// cycle time), clients that did not run, the worst and missed rows, and jack_test's fields by
// JACK1's rules.
#include "engine/result/cycle_join.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kRate = 48000;
constexpr uint32_t kFrames = 256;  // 5333.333 usecs

JoinConfig card_config(int clients) {
  JoinConfig c;
  c.rate = kRate;
  c.frames = kFrames;
  c.card = true;
  c.time_source = "test";
  c.resolution_us = 0.001;
  for (int k = 1; k <= clients; ++k) c.client_names.push_back("c0" + std::to_string(k));
  return c;
}

int64_t boundary(uint64_t m) {
  return static_cast<int64_t>(vcard::boundary_ns(m, kRate, kFrames));
}

// A card row: jackd wakes `wake_us` after the interrupt; each client starts `gap_us` after its
// upstream and works `dsp_us`.
JoinRow row(uint64_t m, int64_t wake_us, int clients, int64_t gap_us, int64_t dsp_us,
            int skip = 0) {
  JoinRow r;
  r.id = m;
  r.interrupt_ns = boundary(m);
  r.jackd_wake_ns = boundary(m) + wake_us * 1000;
  int64_t t = *r.jackd_wake_ns;
  for (int k = 1; k <= clients; ++k) {
    JoinCell c;
    c.ran = k != skip;
    c.entry_ns = t + gap_us * 1000 + 7;  // odd ns: the hops are exact in ns, not only in usecs
    c.exit_ns = c.entry_ns + dsp_us * 1000 + 3;
    c.wake_ns = *r.jackd_wake_ns;
    if (c.ran) t = c.exit_ns;
    r.cells.push_back(c);
  }
  return r;
}

const HopSeries& hop(const CycleTableResult& t, const std::string& key) {
  for (const HopSeries& h : t.hops) {
    if (h.key == key) return h;
  }
  ADD_FAILURE() << "no hop " << key;
  static const HopSeries none;
  return none;
}

TEST(CycleJoin, EveryHopOfACompleteCycleAndTheirSumIsTheCycleTime) {
  CycleJoiner j(card_config(3));
  j.set_origin(boundary(100));
  j.add(row(100, 50, 3, 20, 400));
  const CycleTableResult t = j.table();
  ASSERT_TRUE(t.present);
  EXPECT_EQ(t.cycles, 1u);
  EXPECT_EQ(t.complete, 1u);
  EXPECT_EQ(t.missed, 0u);
  ASSERT_EQ(t.hops.size(), 1u + 2 * 3 + 2);  // jackd, (wake-up, DSP) x 3, cycle, slack
  EXPECT_EQ(hop(t, "jackd_wakeup").us.max(), 50);
  EXPECT_EQ(hop(t, "wakeup.c01").us.max(), 20);  // 20 usecs + 7 ns
  EXPECT_EQ(hop(t, "dsp.c02").us.max(), 400);
  EXPECT_EQ(hop(t, "wakeup.c03").us.max(), 20);  // 20 usecs + 7 - 0 ns after c02's exit + 3
  ASSERT_EQ(t.worst.size(), 1u);
  const CycleRow& w = t.worst[0];
  ASSERT_TRUE(w.end_ns && w.slack_ns && w.jackd_wake_ns);
  // The hops in ns add up exactly to the cycle time, and cycle + slack to the deadline.
  int64_t sum = *w.jackd_wake_ns, prev = *w.jackd_wake_ns;
  for (const CycleClient& c : w.clients) {
    ASSERT_TRUE(c.ran);
    sum += (c.entry_ns - prev) + (c.exit_ns - c.entry_ns);
    prev = c.exit_ns;
  }
  EXPECT_EQ(sum, *w.end_ns);
  EXPECT_EQ(*w.end_ns, 50000 + 3 * (20000 + 7 + 400000 + 3));
  EXPECT_EQ(*w.end_ns + *w.slack_ns, w.deadline_ns);
  EXPECT_EQ(w.deadline_ns, boundary(101) - boundary(100));
  EXPECT_EQ(hop(t, "cycle").us.max(), *w.end_ns / 1000);
  EXPECT_DOUBLE_EQ(w.t_s, 0.0);
}

TEST(CycleJoin, AClientThatDidNotRunIsShownWithTheClientsAfterIt) {
  CycleJoiner j(card_config(4));
  j.add(row(10, 30, 4, 10, 100));
  j.add(row(11, 30, 4, 10, 100, /*skip=*/3));  // c03 did not run; c04 then has no upstream
  j.add(row(12, 30, 4, 10, 100));
  const CycleTableResult t = j.table();
  EXPECT_EQ(t.cycles, 3u);
  EXPECT_EQ(t.complete, 2u);
  EXPECT_EQ(t.missed, 1u);
  EXPECT_EQ(t.not_run, (std::vector<uint64_t>{0, 0, 1, 0}));
  EXPECT_EQ(t.not_run_first, (std::vector<uint64_t>{0, 0, 1, 0}));
  ASSERT_EQ(t.missed_rows.size(), 1u);
  EXPECT_EQ(t.missed_rows_total, 1u);
  const CycleRow& m = t.missed_rows[0];
  EXPECT_EQ(m.id, 11u);
  EXPECT_TRUE(m.missed);
  EXPECT_FALSE(m.clients[2].ran);
  EXPECT_TRUE(m.clients[3].ran);
  EXPECT_FALSE(m.end_ns.has_value());
  // Counts per hop: c03 ran twice; c04's DSP three times, its wake-up only twice.
  EXPECT_EQ(hop(t, "dsp.c03").us.count(), 2u);
  EXPECT_EQ(hop(t, "dsp.c04").us.count(), 3u);
  EXPECT_EQ(hop(t, "wakeup.c04").us.count(), 2u);
  EXPECT_EQ(hop(t, "cycle").us.count(), 2u);
  EXPECT_EQ(hop(t, "slack").us.count(), 2u);
}

// The shape of a row seen on the real jackd after a client was stopped (CI, 2026-12-01): c04
// entered at 4.39 ms, while c03 ran from 5.09 to 5.37 ms. JACK2 had started c04 from c03's late
// signal for the previous cycle. The row is an xrun cycle, out of chain order; c04's wake-up
// hop is not counted (no exit of c03 in this cycle came before it), its DSP hop is, and the
// cycle ends at the last exit (c03's), not at the tail's.
TEST(CycleJoin, AClientStartedBeforeItsUpstreamExitedIsOutOfChainOrder) {
  CycleJoiner j(card_config(4));
  j.add(row(10, 30, 4, 10, 100));
  JoinRow r = row(11, 30, 4, 10, 100);
  const int64_t irq = *r.interrupt_ns;
  r.cells[0].entry_ns = irq + 4248797;
  r.cells[0].exit_ns = irq + 4641741;
  r.cells[1].entry_ns = irq + 4695383;
  r.cells[1].exit_ns = irq + 4999118;
  r.cells[2].entry_ns = irq + 5086453;
  r.cells[2].exit_ns = irq + 5369739;
  r.cells[3].entry_ns = irq + 4393211;
  r.cells[3].exit_ns = irq + 4739707;
  r.jackd_wake_ns = irq + 4180377;
  j.add(r);
  const CycleTableResult t = j.table();
  EXPECT_EQ(t.cycles, 2u);
  EXPECT_EQ(t.complete, 2u);
  EXPECT_EQ(t.missed, 1u);
  // 5.37 ms is past the 5.33 ms deadline: counted there (the counts partition the xrun cycles)
  EXPECT_EQ(t.deadline_missed, 1u);
  EXPECT_EQ(t.out_of_order, 0u);
  ASSERT_EQ(t.missed_rows.size(), 1u);
  const CycleRow& m = t.missed_rows[0];
  EXPECT_TRUE(m.out_of_order);
  EXPECT_TRUE(m.missed);
  ASSERT_TRUE(m.end_ns.has_value());
  EXPECT_EQ(*m.end_ns, 5369739);
  EXPECT_EQ(hop(t, "wakeup.c04").us.count(), 1u);  // row 10's only
  EXPECT_EQ(hop(t, "dsp.c04").us.count(), 2u);
  EXPECT_EQ(hop(t, "wakeup.c03").us.count(), 2u);  // c03 came after c02's exit, in order
  EXPECT_EQ(hop(t, "wakeup.c04").us.underflow_count(), 0u);
  EXPECT_EQ(hop(t, "cycle").us.max(), 5369);
}

// Out of chain order within the deadline: an xrun cycle, counted as out_of_order, not as past
// the deadline.
TEST(CycleJoin, OutOfChainOrderWithinTheDeadlineIsCountedAsSuch) {
  CycleJoiner j(card_config(3));
  JoinRow r = row(5, 30, 3, 10, 100);
  r.cells[2].entry_ns = r.cells[1].entry_ns + 1000;  // c03 started while c02 still ran
  r.cells[2].exit_ns = r.cells[2].entry_ns + 50000;
  j.add(r);
  const CycleTableResult t = j.table();
  EXPECT_EQ(t.missed, 1u);
  EXPECT_EQ(t.out_of_order, 1u);
  EXPECT_EQ(t.deadline_missed, 0u);
  EXPECT_EQ(hop(t, "wakeup.c03").us.count(), 0u);
  ASSERT_EQ(t.worst.size(), 1u);
  EXPECT_GT(*t.worst[0].slack_ns, 0);
  EXPECT_EQ(*t.worst[0].end_ns, r.cells[1].exit_ns - *r.interrupt_ns);  // c02's exit is the last
}

TEST(CycleJoin, AMissedDeadlineIsAMissedCycleWithNegativeSlack) {
  CycleJoiner j(card_config(2));
  j.add(row(1, 30, 2, 10, 100));
  j.add(row(2, 30, 2, 10, 3000));  // 2 x 3 ms > one period
  const CycleTableResult t = j.table();
  EXPECT_EQ(t.deadline_missed, 1u);
  EXPECT_EQ(t.missed, 1u);
  EXPECT_EQ(hop(t, "slack").us.underflow_count(), 1u);
  ASSERT_EQ(t.worst.size(), 2u);
  EXPECT_EQ(t.worst[0].id, 2u);  // worst first
  EXPECT_LT(*t.worst[0].slack_ns, 0);
}

TEST(CycleJoin, WorstRowsAreBoundedAndSortedBySlack) {
  JoinConfig c = card_config(1);
  c.worst_keep = 3;
  CycleJoiner j(c);
  const int64_t dsp[] = {100, 900, 300, 1200, 50, 700};
  for (uint64_t m = 0; m < 6; ++m) j.add(row(m, 10, 1, 10, dsp[m]));
  const CycleTableResult t = j.table();
  ASSERT_EQ(t.worst.size(), 3u);
  EXPECT_EQ(t.worst[0].id, 3u);
  EXPECT_EQ(t.worst[1].id, 1u);
  EXPECT_EQ(t.worst[2].id, 5u);
}

TEST(CycleJoin, MissedRowsAreBoundedButCountedInFull) {
  JoinConfig c = card_config(2);
  c.missed_keep = 2;
  CycleJoiner j(c);
  for (uint64_t m = 0; m < 5; ++m) j.add(row(m, 10, 2, 10, 10, /*skip=*/2));
  const CycleTableResult t = j.table();
  EXPECT_EQ(t.missed_rows.size(), 2u);
  EXPECT_EQ(t.missed_rows_total, 5u);
  EXPECT_EQ(t.missed, 5u);
}

TEST(CycleJoin, DspAgainstItsNominalTime) {
  JoinConfig c = card_config(1);
  c.dsp_nominal_us = {400};
  CycleJoiner j(c);
  for (uint64_t m = 0; m < 10; ++m) j.add(row(m, 10, 1, 10, m < 9 ? 420 : 600));
  const CycleTableResult t = j.table();
  ASSERT_EQ(t.dsp_nominal.size(), 1u);
  EXPECT_DOUBLE_EQ(t.dsp_nominal[0].nominal_us, 400);
  EXPECT_DOUBLE_EQ(t.dsp_nominal[0].overhead_p50_pct, 5.0);   // 420 vs 400
  EXPECT_DOUBLE_EQ(t.dsp_nominal[0].overhead_max_pct, 50.0);  // 600 vs 400
  EXPECT_DOUBLE_EQ(t.dsp_nominal[0].within_100us_pct, 90.0);
}

TEST(CycleJoin, WithoutACardTheFirstClientsViewOfJackdsWakeUpIsTheReference) {
  JoinConfig c = card_config(2);
  c.card = false;
  CycleJoiner j(c);
  JoinRow r = row(7, 0, 2, 15, 100);
  r.interrupt_ns.reset();
  const int64_t wake = *r.jackd_wake_ns;
  r.jackd_wake_ns.reset();
  j.add(r);
  const CycleTableResult t = j.table();
  ASSERT_EQ(t.hops.size(), 2u * 2 + 2);  // no interrupt -> jackd hop without the card
  EXPECT_EQ(hop(t, "wakeup.c01").us.max(), 15);
  ASSERT_EQ(t.worst.size(), 1u);
  EXPECT_FALSE(t.worst[0].jackd_wake_ns.has_value());
  EXPECT_EQ(*t.worst[0].end_ns, t.worst[0].clients[1].exit_ns);
  EXPECT_EQ(t.worst[0].clients[0].entry_ns, r.cells[0].entry_ns - wake);
  // No interrupt to name: the cycle starts at the server's wake-up, its deadline a period on.
  EXPECT_EQ(hop(t, "cycle").label, "jackd wake-up -> last client's exit (cycle time)");
  EXPECT_EQ(hop(t, "slack").label, "last client's exit -> jackd wake-up + one period (slack)");
}

// ---- the running figures (missed(), slack_min_ns()) ---------------------------------------

// The exact slack of row(m, wake_us, clients, gap_us, dsp_us) when every client ran.
int64_t slack_of(uint64_t m, int64_t wake_us, int clients, int64_t gap_us, int64_t dsp_us) {
  const int64_t end = wake_us * 1000 + clients * (gap_us * 1000 + 7 + dsp_us * 1000 + 3);
  return (boundary(m + 1) - boundary(m)) - end;
}

TEST(CycleJoinSoFar, NoSlackBeforeTheFirstCompleteRow) {
  CycleJoiner j(card_config(2));
  EXPECT_EQ(j.missed(), 0u);
  EXPECT_FALSE(j.slack_min_ns().has_value());
  j.add(row(1, 30, 2, 10, 100, /*skip=*/2));  // c02 did not run: an xrun cycle, no slack
  EXPECT_EQ(j.missed(), 1u);
  EXPECT_FALSE(j.slack_min_ns().has_value());
  j.add(row(2, 30, 2, 10, 100));
  EXPECT_EQ(j.missed(), 1u);
  ASSERT_TRUE(j.slack_min_ns().has_value());
  EXPECT_EQ(*j.slack_min_ns(), slack_of(2, 30, 2, 10, 100));
}

TEST(CycleJoinSoFar, TheSmallestSlackSoFarAndTheXrunCyclesSoFar) {
  CycleJoiner j(card_config(2));
  j.add(row(1, 30, 2, 10, 100));
  j.add(row(2, 30, 2, 10, 900));
  j.add(row(3, 30, 2, 10, 300));  // more slack than row 2: the minimum stays
  EXPECT_EQ(j.missed(), 0u);
  EXPECT_EQ(*j.slack_min_ns(), slack_of(2, 30, 2, 10, 900));
  j.add(row(4, 30, 2, 10, 3000));  // 2 x 3 ms > one period: a missed deadline
  j.add(row(5, 30, 2, 10, 100, /*skip=*/1));
  j.add(row(6, 30, 2, 10, 2800));  // also missed, by less than row 4
  EXPECT_EQ(j.missed(), 3u);
  const int64_t worst = slack_of(4, 30, 2, 10, 3000);
  ASSERT_LT(worst, 0);
  EXPECT_EQ(*j.slack_min_ns(), worst);
  // The same figures as the whole table's.
  const CycleTableResult t = j.table();
  EXPECT_EQ(t.missed, j.missed());
  ASSERT_FALSE(t.worst.empty());
  EXPECT_EQ(*t.worst[0].slack_ns, *j.slack_min_ns());
}

TEST(CycleJoinSoFar, ARowWithoutAnyClientIsAnXrunCycleWithoutSlack) {
  JoinConfig c = card_config(2);
  c.card = false;
  CycleJoiner j(c);
  JoinRow r;
  r.id = 9;
  r.cells.resize(2);  // nobody ran: no reference at all
  j.add(r);
  EXPECT_EQ(j.missed(), 1u);
  EXPECT_FALSE(j.slack_min_ns().has_value());
}

// ---- jack_test's fields by JACK1's rules ------------------------------------------------

// n on-time rows from m0, cycle `dsp_us` long (one client, no gap).
void on_time(CycleJoiner& j, uint64_t m0, uint64_t n, int64_t dsp_us) {
  for (uint64_t m = m0; m < m0 + n; ++m) j.add(row(m, 0, 1, 0, dsp_us));
}

TEST(CycleJoinJack1, DelayIsTheWakeUpAgainstThePreviousOnePlusAPeriod) {
  CycleJoiner j(card_config(1));
  j.add(row(0, 100, 1, 0, 10));
  j.add(row(1, 100, 1, 0, 10));   // exactly one period after the previous wake-up: no delay
  j.add(row(2, 2600, 1, 0, 10));  // 2500 usecs later than due
  j.add(row(3, 100, 1, 0, 10));   // earlier than due: no delay
  const JackTestFields f = j.jack_test();
  EXPECT_EQ(f.definitions, "jack1-rules");
  EXPECT_EQ(f.wakes, 4u);
  ASSERT_TRUE(f.delay_max_us.has_value());
  // The grid's periods alternate 5333/5334 usecs in ns: the delay is exact to the grid.
  const double expected =
      static_cast<double>((boundary(2) + 2600000) - (boundary(1) + 100000 + j.period_ns())) /
      1000.0;
  EXPECT_DOUBLE_EQ(*f.delay_max_us, expected);
  EXPECT_NEAR(*f.delay_max_us, 2500.0, 1.0);
  EXPECT_EQ(f.delay_over_spare, 0u);  // no spare estimate before the first checkpoint
  EXPECT_FALSE(f.cycle_max_us.has_value());
}

TEST(CycleJoinJack1, SpareTimeCheckpointsAndDelayCounts) {
  CycleJoiner j(card_config(1));
  const uint64_t interval = 1024000 / 5333;  // 192 cycles per checkpoint at 256 frames
  on_time(j, 0, interval, 1000);             // one checkpoint: max 1000 usecs, spare 4333
  JackTestFields f = j.jack_test();
  ASSERT_TRUE(f.cycle_max_us.has_value());
  EXPECT_NEAR(*f.cycle_max_us, 1000.0, 0.01);
  ASSERT_TRUE(f.spare_last_us.has_value());
  EXPECT_NEAR(*f.spare_last_us, 5333.333 - 1000.0, 0.01);
  ASSERT_TRUE(f.dsp_load_pct.has_value());
  EXPECT_NEAR(*f.dsp_load_pct, (1.0 - 4333.333 / 5333.333) * 50.0, 0.01);
  // A wake-up 4400 usecs late: over the spare time of 4333, and over 1000.
  j.add(row(interval, 4400, 1, 0, 10));
  j.add(row(interval + 1, 0, 1, 0, 10));     // not accounted: the previous cycle overran
  j.add(row(interval + 2, 2000, 1, 0, 10));  // late, but under the spare time
  f = j.jack_test();
  EXPECT_EQ(f.delay_over_spare, 1u);
  EXPECT_EQ(f.delay_over_1000, 1u);
  EXPECT_NEAR(*f.delay_max_us, 4400.0, 1.0);
}

TEST(CycleJoinJack1, CycleMaximumIsSampledAtCheckpointsOnly) {
  CycleJoiner j(card_config(1));
  const uint64_t interval = 1024000 / 5333;
  on_time(j, 0, 10, 3000);  // early long cycles, out of the last 32 at checkpoint 1
  on_time(j, 10, interval - 10, 500);
  const JackTestFields f = j.jack_test();
  EXPECT_NEAR(*f.cycle_max_us, 500.0, 0.01);       // jack_test's Cycle Maximum
  EXPECT_NEAR(*f.cycle_max_all_us, 3000.0, 0.02);  // every cycle's (+10 ns)
}

TEST(CycleJoinJack1, AWakeUpServingSeveralBoundariesIsOnePoll) {
  CycleJoiner j(card_config(1));
  j.add(row(0, 0, 1, 0, 10));
  // jackd stalled 20 ms: boundaries 1..4 all record the same wake-up.
  const int64_t stall_end = boundary(0) + 20000000;
  for (uint64_t m = 1; m <= 4; ++m) {
    JoinRow r = row(m, 0, 1, 0, 10);
    r.jackd_wake_ns = stall_end;
    j.add(r);
  }
  const JackTestFields f = j.jack_test();
  EXPECT_EQ(f.wakes, 2u);
  EXPECT_NEAR(*f.delay_max_us, 20000.0 - 5333.333, 0.01);
  const CycleTableResult t = j.table();
  EXPECT_EQ(hop(t, "jackd_wakeup").us.count(), 5u);
  EXPECT_EQ(*hop(t, "jackd_wakeup").us.max(), (stall_end - boundary(1)) / 1000);
}

TEST(CycleJoinJack1, NoDelayIsAccountedAfterADriverXrunWhoseDurationCountsInstead) {
  CycleJoiner j(card_config(1));
  j.add(row(0, 0, 1, 0, 10));
  j.add_driver_xrun(boundary(2), boundary(0) + 30000000);  // in xrun from boundary 2, seen 30 ms in
  JoinRow r = row(6, 0, 1, 0, 10);
  r.jackd_wake_ns = boundary(0) + 31000000;
  j.add(r);
  const JackTestFields f = j.jack_test();
  const double xrun_us = static_cast<double>(boundary(0) + 30000000 - boundary(2)) / 1000.0;
  EXPECT_DOUBLE_EQ(*f.delay_max_us, xrun_us);  // not the 31 ms - period of the wake-up
}

}  // namespace
}  // namespace xrunlab
