// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/rt/dsp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

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
