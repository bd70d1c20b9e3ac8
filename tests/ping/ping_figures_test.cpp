// SPDX-License-Identifier: GPL-2.0-or-later
// --ping's figures on hand-made requests: what counts as sent, answered and lost, the injected
// loss known in advance, and the round trip's nearest-rank percentiles.
#include "engine/ping/ping_figures.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace xrunlab {
namespace {

PingPacket answered(int64_t rtt_us, int64_t late_us = 0, uint32_t answers = 1) {
  PingPacket p;
  p.rtt_ns = rtt_us * 1000;
  p.late_ns = late_us * 1000;
  p.answers = answers;
  return p;
}

PingPacket unanswered() {
  return PingPacket{};
}

TEST(NearestRank, TakesTheValueAtTheRankRoundedUp) {
  EXPECT_FALSE(nearest_rank({}, 50).has_value());
  EXPECT_EQ(nearest_rank({5}, 99), 5);
  const std::vector<double> v = {4, 1, 3, 2, 5, 6, 7, 8, 9, 10};  // unsorted on purpose
  EXPECT_EQ(nearest_rank(v, 50), 5) << "rank ceil(0.5 * 10) = 5";
  EXPECT_EQ(nearest_rank(v, 99), 10) << "rank ceil(9.9) = 10";
  EXPECT_EQ(nearest_rank(v, 100), 10);
  EXPECT_EQ(nearest_rank(v, 1), 1);
}

TEST(PingFigures, CountsSentAnsweredAndLost) {
  std::vector<PingPacket> packets;
  for (int i = 0; i < 10; ++i) packets.push_back(i % 5 == 0 ? unanswered() : answered(10 + i));
  PingRecord r;
  fill_ping_figures(packets, 0, r);
  EXPECT_EQ(r.sent, 10u);
  EXPECT_EQ(r.received, 8u);
  EXPECT_EQ(r.lost, 2u);
  EXPECT_DOUBLE_EQ(r.lost_pct, 20.0);
  EXPECT_EQ(r.late_answers, 0u);
  EXPECT_EQ(r.duplicates, 0u);
  EXPECT_FALSE(r.expected_lost.has_value()) << "no rule, nothing known in advance";
  // The answered round trips: 11 12 13 14 16 17 18 19 us.
  EXPECT_EQ(r.rtt_p50_us, 14.0);
  EXPECT_EQ(r.rtt_p99_us, 19.0);
  EXPECT_EQ(r.rtt_max_us, 19.0);
}

TEST(PingFigures, AnAnswerAfterTheWaitIsLostAndDuplicatesAreNotAnswers) {
  PingPacket late;  // answered, but after the wait: the pinger left its round trip unset
  late.answers = 1;
  const std::vector<PingPacket> packets = {answered(20, 0, 3), late, answered(30)};
  PingRecord r;
  fill_ping_figures(packets, 4, r);
  EXPECT_EQ(r.sent, 3u);
  EXPECT_EQ(r.received, 2u);
  EXPECT_EQ(r.lost, 1u);
  EXPECT_EQ(r.late_answers, 1u);
  EXPECT_EQ(r.duplicates, 2u) << "three answers to one request: two duplicates";
  EXPECT_EQ(r.unmatched, 4u);
  EXPECT_DOUBLE_EQ(r.lost_pct, 33.3);
}

TEST(PingFigures, TheInjectedLossIsTheCeilingOfSentOverN) {
  for (const auto& [sent, every, expected] : std::vector<std::tuple<int, int, uint64_t>>{
           {10, 5, 2}, {11, 5, 3}, {1, 5, 1}, {0, 5, 0}, {400, 5, 80}, {7, 2, 4}}) {
    PingRecord r;
    r.drop_every = every;
    fill_ping_figures(std::vector<PingPacket>(static_cast<size_t>(sent), answered(1)), 0, r);
    ASSERT_TRUE(r.expected_lost.has_value());
    EXPECT_EQ(*r.expected_lost, expected) << sent << " sent, every " << every;
  }
}

TEST(PingFigures, SendLatenessAndNoAnswerAtAll) {
  const std::vector<PingPacket> packets = {unanswered(), unanswered()};
  PingRecord r;
  fill_ping_figures(packets, 0, r);
  EXPECT_EQ(r.lost, 2u);
  EXPECT_DOUBLE_EQ(r.lost_pct, 100.0);
  EXPECT_FALSE(r.rtt_p50_us.has_value()) << "no answer, no round trip";
  EXPECT_EQ(r.send_late_max_us, 0.0);
  PingRecord none;
  fill_ping_figures({}, 0, none);
  EXPECT_EQ(none.sent, 0u);
  EXPECT_DOUBLE_EQ(none.lost_pct, 0.0);
  PingRecord late;
  fill_ping_figures({answered(5, 100), answered(5, 2500)}, 0, late);
  EXPECT_EQ(late.send_late_max_us, 2500.0);
}

TEST(PingCsv, OneRowPerRequestWithTheLostOnesEmpty) {
  PingPacket first = answered(42, 3);
  PingPacket second = unanswered();
  second.due_ns = 10000000;
  EXPECT_EQ(ping_csv({first, second}),
            "request,due_s,late_us,rtt_us,answers\n"
            "0,0.000000,3.0,42.0,1\n"
            "1,0.010000,0.0,,0\n");
}

}  // namespace
}  // namespace xrunlab
