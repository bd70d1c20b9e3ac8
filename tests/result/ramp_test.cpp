// SPDX-License-Identifier: GPL-2.0-or-later
// A DSP ramp's record (engine/result/ramp.hpp) from hand-made cycles, joined by the real
// CycleJoiner: the first xrun cycle, its load from the stages the clients wrote, the step
// before it, and the hop that broke. Every expectation is exact by construction.
#include "engine/result/ramp.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "engine/result/cycle_join.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kRate = 48000, kFrames = 480;  // a 10 ms period: 10,000,000 ns
constexpr double kNsPerStage = 1000;              // 1 % of the period is 100 stages

// Two clients without a card: each cycle's reference is jackd's wake-up as c01 saw it.
struct Chain {
  CycleJoiner joiner;
  explicit Chain(uint32_t every) : joiner(config(every)) { joiner.set_origin(0); }
  static JoinConfig config(uint32_t every) {
    JoinConfig c;
    c.rate = kRate;
    c.frames = kFrames;
    c.client_names = {"c01", "c02"};
    c.ramp = JoinConfig::Ramp{kNsPerStage, every, {}};
    return c;
  }
  // Cycle `id`: jackd wakes at id x period, c01 enters `wake1` ns later and runs `dsp1`, c02
  // enters `wake2` after c01's exit and runs `dsp2`; each ran `stages`.
  void add(uint64_t id, uint32_t stages, int64_t wake1, int64_t dsp1, int64_t wake2, int64_t dsp2,
           bool c02_ran = true) {
    const int64_t t = static_cast<int64_t>(id) * 10000000;
    JoinRow row;
    row.id = id;
    JoinCell a{true, t + wake1, t + wake1 + dsp1, t, static_cast<uint32_t>(id * kFrames), stages};
    JoinCell b{c02_ran,
               t + wake1 + dsp1 + wake2,
               t + wake1 + dsp1 + wake2 + dsp2,
               t,
               static_cast<uint32_t>(id * kFrames),
               stages};
    row.cells = {a, b};
    joiner.add(row);
  }
};

TEST(RampEvery, FortyMillisecondsOfCyclesAtLeastFour) {
  EXPECT_EQ(ramp_every_cycles(64, 48000), 30u);  // 750 cycles a second
  EXPECT_EQ(ramp_every_cycles(256, 48000), 8u);  // 7.5, rounded
  EXPECT_EQ(ramp_every_cycles(1024, 48000), 4u) << "1.9 rounds to 2: at least 4";
  // 0 -> 100 % in 1 % steps of 4 cycles of 1024 frames: 100 x 4 x 21.33 ms.
  EXPECT_NEAR(ramp_seconds(0, 100, 1, 4, 1024, 48000), 8.5333, 1e-3);
  EXPECT_NEAR(ramp_seconds(30, 100, 7, 1, 480, 48000), 0.1, 1e-9) << "ceil(70 / 7) = 10 steps";
  EXPECT_EQ(ramp_seconds(0, 100, 0, 4, 1024, 48000), 0);
}

TEST(RampTracker, TheFirstXrunsLoadIsTheStagesTheClientsRanInThatCycle) {
  Chain c(2);
  c.joiner.set_ramp_from(10);
  // Steps of 100 stages a client (2 % of the period together) every 2 cycles; each DSP hop
  // takes 1.1 x nominal; the wake-ups 50 us and 20 us.
  uint64_t id = 10;
  for (uint32_t step = 1; step <= 20; ++step) {
    for (int k = 0; k < 2; ++k, ++id) {
      const int64_t dsp = static_cast<int64_t>(step * 100 * kNsPerStage * 1.1);
      c.add(id, step * 100, 50000, dsp, 20000, dsp);
    }
  }
  // Step 21 (2100 stages each, 42 %): its first cycle is fine, its second misses its deadline:
  // c02's wake-up takes 6 ms instead of 20 us.
  c.add(id++, 2100, 50000, 2310000, 20000, 2310000);
  c.add(id++, 2100, 50000, 2310000, 6000000, 2310000);
  ASSERT_TRUE(c.joiner.ramp()->has_first_xrun());
  const std::optional<RampFirstXrun> f = c.joiner.ramp_first_xrun();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cycle, 51u);
  EXPECT_EQ(f->step, 21u);  // 1 + (51 - 10) / 2
  EXPECT_DOUBLE_EQ(f->load_pct, 42.0) << "2 x 2100 stages x 1000 ns of 10 ms";
  ASSERT_TRUE(f->nominal_pct);
  EXPECT_DOUBLE_EQ(*f->nominal_pct, 40.0) << "the step before: 2 x 2000 stages";
  ASSERT_TRUE(f->measured_pct);
  EXPECT_NEAR(*f->measured_pct, 44.0, 1e-9) << "its DSP hops, 1.1 x nominal";
  ASSERT_TRUE(f->broke);
  EXPECT_EQ(f->broke->key, "wakeup.c02");
  EXPECT_EQ(f->broke->kind, "client_wakeup");
  EXPECT_EQ(f->broke->client, 2);
  EXPECT_EQ(f->broke->label, "c02 wake-up");
  EXPECT_NEAR(f->broke->late_us, 5980.0, 1e-9) << "6 ms against its usual 20 us";
  EXPECT_DOUBLE_EQ(c.joiner.ramp()->reached_pct(), 42.0);
  // Nothing after the first xrun changes it.
  c.add(id++, 2200, 50000, 2420000, 20000, 9000000);
  EXPECT_EQ(c.joiner.ramp_first_xrun()->cycle, 51u);
  EXPECT_DOUBLE_EQ(c.joiner.ramp()->reached_pct(), 42.0);
}

TEST(RampTracker, ADspHopLongerThanItsStagesShouldTakeIsTheOneThatBroke) {
  Chain c(1);
  c.joiner.set_ramp_from(0);
  for (uint64_t id = 0; id < 30; ++id) {
    const uint32_t stages = static_cast<uint32_t>((id + 1) * 100);
    const auto dsp = static_cast<int64_t>(stages * kNsPerStage);
    c.add(id, stages, 10000, dsp, 10000, dsp);
  }
  // Step 31: c01's DSP takes 5 ms longer than its 3.1 ms.
  c.add(30, 3100, 10000, 3100000 + 5000000, 10000, 3100000);
  const std::optional<RampFirstXrun> f = c.joiner.ramp_first_xrun();
  ASSERT_TRUE(f && f->broke);
  EXPECT_EQ(f->broke->key, "dsp.c01");
  EXPECT_EQ(f->broke->label, "c01 DSP");
  // Its usual time at 3100 stages: the step before's 3000 stages took 3 ms, scaled.
  EXPECT_NEAR(f->broke->late_us, 5000.0, 1e-9);
  EXPECT_DOUBLE_EQ(f->load_pct, 62.0);
}

TEST(RampTracker, AClientThatDidNotRunCountsWithItsRampsStagesForThatCycle) {
  JoinConfig config = Chain::config(1);
  // c02's ramp: 100 stages a step from cycle 0 (what its hello said).
  config.ramp->clients = {std::nullopt, DspRampStages{0, 100u << 16, 1, 10000}};
  CycleJoiner joiner(config);
  joiner.set_ramp_from(0);
  auto add = [&](uint64_t id, uint32_t stages, bool c02_ran) {
    JoinRow row;
    row.id = id;
    const int64_t t = static_cast<int64_t>(id) * 10000000;
    row.cells = {
        JoinCell{true, t + 10000, t + 10000 + stages * 1000, t, 0, stages},
        JoinCell{c02_ran, t + 20000 + stages * 1000, t + 20000 + stages * 2000, t, 0, stages}};
    joiner.add(row);
  };
  add(0, 100, true);
  add(1, 200, true);
  add(2, 300, false);
  const std::optional<RampFirstXrun> f = joiner.ramp_first_xrun();
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->load_pct, 6.0) << "c01's 300 stages and c02's step 3: 300";
}

TEST(RampTracker, AClientThatDidNotRunCountsWithItsLastStages) {
  Chain c(1);
  c.joiner.set_ramp_from(0);
  c.add(0, 100, 10000, 100000, 10000, 100000);
  c.add(1, 200, 10000, 200000, 10000, 200000);
  c.add(2, 300, 10000, 300000, 10000, 300000, /*c02_ran=*/false);
  const std::optional<RampFirstXrun> f = c.joiner.ramp_first_xrun();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->cycle, 2u);
  EXPECT_DOUBLE_EQ(f->load_pct, 5.0) << "c01's 300 stages and c02's last 200";
  ASSERT_TRUE(f->broke);
  EXPECT_EQ(f->broke->key, "not_run.c02") << "no hop that ran was late";
  EXPECT_EQ(f->broke->label, "c02 did not run");
}

TEST(RampTracker, WithoutAnXrunThereIsNoFirstAndTheReachedLoadIsTheLargest) {
  Chain c(1);
  c.joiner.set_ramp_from(0);
  for (uint64_t id = 0; id < 5; ++id) {
    const auto stages = static_cast<uint32_t>((id + 1) * 100);
    c.add(id, stages, 10000, stages * 1000, 10000, stages * 1000);
  }
  EXPECT_FALSE(c.joiner.ramp()->has_first_xrun());
  EXPECT_FALSE(c.joiner.ramp_first_xrun());
  EXPECT_DOUBLE_EQ(c.joiner.ramp()->reached_pct(), 10.0);
}

TEST(RampTracker, ExplainedCauseIsTheHopsLineOrTheCyclesOrNothing) {
  ExplainRecord e;
  ExplainedCycle cycle;
  cycle.cycle = 7;
  cycle.line = "slack -300 us: c02's wake-up ...";
  HopExplanation h;
  h.hop.hop_key = "wakeup.c02";
  h.line = "c02's wake-up 6000 us late: kworker/0:1 ran 5900 us";
  cycle.hops.push_back(h);
  e.cycles.push_back(cycle);
  EXPECT_EQ(explained_cause(e, 7, "wakeup.c02"), h.line);
  EXPECT_EQ(explained_cause(e, 7, "dsp.c01"), cycle.line);
  EXPECT_EQ(explained_cause(e, 8, "wakeup.c02"), "");
}

}  // namespace
}  // namespace xrunlab
