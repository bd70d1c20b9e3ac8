// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/checkpoint_interval.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(CheckpointInterval, FiveSecondsForTheFirstFiveMinutes) {
  EXPECT_EQ(checkpoint_interval_us(0), 5'000'000u);
  EXPECT_EQ(checkpoint_interval_us(299'000'000), 5'000'000u);
}

TEST(CheckpointInterval, ASixtiethOfTheTimeMeasuredInBetween) {
  EXPECT_EQ(checkpoint_interval_us(600'000'000), 10'000'000u);
  EXPECT_EQ(checkpoint_interval_us(1'800'000'000), 30'000'000u);
}

TEST(CheckpointInterval, AtMostAMinuteHoweverLongTheRun) {
  EXPECT_EQ(checkpoint_interval_us(3'600'000'000), 60'000'000u);
  EXPECT_EQ(checkpoint_interval_us(uint64_t{36'000} * 1'000'000), 60'000'000u);
}

}  // namespace
}  // namespace xrunlab
