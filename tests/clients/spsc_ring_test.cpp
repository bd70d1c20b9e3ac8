#include "clients/rt/spsc_ring.hpp"

#include <gtest/gtest.h>

#include <thread>

namespace xrunlab {
namespace {

TEST(SpscRing, RefusesWhenFullAndKeepsOrder) {
  SpscRing<int, 4> ring;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(ring.rt_push(i));
  EXPECT_FALSE(ring.rt_push(99));
  std::vector<int> got;
  EXPECT_EQ(ring.drain([&](int v) { got.push_back(v); }), 4u);
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(ring.rt_push(4));
  EXPECT_EQ(ring.drain([&](int v) { got.push_back(v); }), 1u);
  EXPECT_EQ(got.back(), 4);
}

// Two threads: every pushed value arrives once and in order (run under TSan in scripts/test.sh).
TEST(SpscRing, ProducerConsumerThreadsLoseNothing) {
  SpscRing<uint64_t, 64> ring;
  constexpr uint64_t kN = 200000;
  uint64_t refused = 0;
  std::thread producer([&] {
    for (uint64_t i = 0; i < kN;) {
      if (ring.rt_push(i)) {
        ++i;
      } else {
        ++refused;
        std::this_thread::yield();
      }
    }
  });
  uint64_t expected = 0;
  bool in_order = true;
  while (expected < kN) {
    ring.drain([&](uint64_t v) {
      in_order = in_order && v == expected;
      ++expected;
    });
  }
  producer.join();
  EXPECT_TRUE(in_order);
  EXPECT_EQ(expected, kN);
}

}  // namespace
}  // namespace xrunlab
