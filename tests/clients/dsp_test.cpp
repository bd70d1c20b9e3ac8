// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/rt/dsp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "engine/wire/dsp_ramp.hpp"

namespace xrunlab {
namespace {

TEST(Dsp, AllPassKeepsTheLevelOfASine) {
  BiquadBank bank(1, 8, 48000);
  std::vector<float> buf(256);
  double in_energy = 0, out_energy = 0;
  for (int block = 0; block < 400; ++block) {
    for (size_t i = 0; i < buf.size(); ++i) {
      const double t = static_cast<double>(block * 256 + static_cast<int>(i)) / 48000.0;
      buf[i] = static_cast<float>(std::sin(2 * M_PI * 440 * t));
      if (block >= 100) in_energy += buf[i] * buf[i];
    }
    float* p = buf.data();
    bank.process_rt(&p, &p, 256);
    if (block >= 100) {
      for (float v : buf) out_energy += v * v;
    }
  }
  EXPECT_NEAR(out_energy / in_energy, 1.0, 0.01);
}

// A ramp runs `active` of a larger bank's stages: exactly the work of a bank that has that many,
// spread over the ports the same way, so its output is bit for bit the same.
TEST(Dsp, ActiveStagesOfALargerBankAreTheWorkOfABankThatSize) {
  for (int active : {0, 1, 2, 5, 7, 11}) {
    BiquadBank big(3, 12, 48000), exact(3, active, 48000);
    std::vector<std::vector<float>> a(3, std::vector<float>(128)), b = a;
    for (size_t p = 0; p < 3; ++p) {
      for (size_t i = 0; i < 128; ++i) {
        a[p][i] = b[p][i] = std::sin(0.05f * static_cast<float>((p + 1) * (i + 1)));
      }
    }
    float* pa[] = {a[0].data(), a[1].data(), a[2].data()};
    float* pb[] = {b[0].data(), b[1].data(), b[2].data()};
    for (int block = 0; block < 3; ++block) {  // the filters' state carries over too
      big.process_rt(pa, pa, 128, active);
      exact.process_rt(pb, pb, 128);
    }
    for (size_t p = 0; p < 3; ++p) {
      EXPECT_EQ(std::memcmp(a[p].data(), b[p].data(), 128 * sizeof(float)), 0)
          << "active " << active << ", port " << p;
    }
  }
  // More than the bank holds runs all of it, never past its state.
  BiquadBank small(2, 3, 48000), same(2, 3, 48000);
  std::vector<float> x(64, 0.5f), y(64, 0.5f);
  float* px = x.data();
  float* py = y.data();
  std::vector<float> x2(64, 0.25f), y2(64, 0.25f);
  float* ix[] = {px, x2.data()};
  float* iy[] = {py, y2.data()};
  small.process_rt(ix, ix, 64, 1000);
  same.process_rt(iy, iy, 64);
  EXPECT_EQ(x, y);
  EXPECT_EQ(x2, y2);
}

// The ramp's arithmetic (engine/wire/dsp_ramp.hpp): step n runs base + floor(n x step) stages,
// at most max, with the step kept in 1/65536 stages.
TEST(DspRamp, StepsFromTheNamedCycleEveryNCyclesUpToItsTop) {
  DspRampStages r;
  r.base = 2;
  r.step_q16 = (7u << 16) + (1u << 15);  // 7.5 stages a step
  r.every = 3;
  r.max = 40;
  EXPECT_EQ(r.step_at(99, 100), 0u) << "before its first cycle";
  EXPECT_EQ(r.step_at(100, 100), 1u);
  EXPECT_EQ(r.step_at(102, 100), 1u);
  EXPECT_EQ(r.step_at(103, 100), 2u);
  EXPECT_EQ(r.stages_of_step(0), 2u);
  EXPECT_EQ(r.stages_of_step(1), 9u);   // 2 + 7.5, floored
  EXPECT_EQ(r.stages_of_step(2), 17u);  // 2 + 15: the halves add up
  EXPECT_EQ(r.stages_of_step(5), 39u);  // 2 + 37.5
  EXPECT_EQ(r.stages_of_step(6), 40u) << "capped at its top";
  EXPECT_EQ(r.stages_of_step(UINT64_MAX), 40u) << "no overflow however far";
}

TEST(DspRamp, PercentsOfThePeriodBecomeStagesOfTheCalibratedCost) {
  // 1 % of a 1 ms period is 10 us = 100 stages of 100 ns; 30 % = 3000 stages.
  const DspRampStages r = dsp_ramp_stages(50, 1.0, 4, 30.0, 100.0, 1e6);
  EXPECT_EQ(r.base, 50u);
  EXPECT_EQ(r.step_q16, 100u << 16);
  EXPECT_EQ(r.every, 4u);
  EXPECT_EQ(r.max, 3000u);
  EXPECT_EQ(r.stages_of_step(3), 350u);
  // No calibration: nothing to grow.
  EXPECT_EQ(dsp_ramp_stages(5, 1.0, 4, 30.0, 0.0, 1e6).stages_of_step(10), 5u);
}

TEST(Dsp, ZeroStagesIsAPlainCopy) {
  BiquadBank bank(2, 0, 48000);
  std::vector<float> a(64, 0.5f), b(64, -0.25f), oa(64), ob(64);
  const float* in[] = {a.data(), b.data()};
  float* out[] = {oa.data(), ob.data()};
  bank.process_rt(in, out, 64);
  EXPECT_EQ(oa, a);
  EXPECT_EQ(ob, b);
}

TEST(Dsp, CalibrationScalesWithTheTarget) {
  const Calibration none = calibrate(2, 48000, 64, 0);
  EXPECT_EQ(none.stages, 0);
  const Calibration c = calibrate(2, 48000, 64, 200);
  EXPECT_GT(c.ns_per_stage, 0);
  EXPECT_GT(c.stages, 0);
  // Structure, not speed: stages x cost reproduces the target.
  EXPECT_NEAR(c.stages * c.ns_per_stage / 1000.0, 200.0, c.ns_per_stage / 1000.0);
}

}  // namespace
}  // namespace xrunlab
