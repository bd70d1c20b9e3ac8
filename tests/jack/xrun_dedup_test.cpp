// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/xrun_dedup.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(XrunDedup, OneEventPerCycleWhateverTheNumberOfLateClients) {
  XrunDedup d(2666);
  EXPECT_TRUE(d.add(1000, 10000));
  EXPECT_FALSE(d.add(1000, 10050));  // second late client, same cycle
  EXPECT_FALSE(d.add(1000, 10090));
  EXPECT_TRUE(d.add(1256 * 100, 600000));  // 100 cycles later
  EXPECT_EQ(d.events(), 2u);
  EXPECT_EQ(d.callbacks(), 4u);
}

TEST(XrunDedup, ABurstDeliveredAfterTheCycleMovedOnIsStillOneEvent) {
  XrunDedup d(2666);
  EXPECT_TRUE(d.add(1000, 10000));
  EXPECT_FALSE(d.add(1256, 10100));  // same burst, frame already advanced
  EXPECT_TRUE(d.add(1512, 20000));   // a separate cycle, well apart
  EXPECT_EQ(d.events(), 2u);
}

}  // namespace
}  // namespace xrunlab
