// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/rt/spsc_ring.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

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
  EXPECT_EQ(ring.drain([&](int v) { got.push_back(v); }), 0u);  // empty: nothing twice
}

// One thread: exactly the pushes beyond the free room are refused, whatever the indices'
// position (they run on past the capacity, through many wrap-arounds).
TEST(SpscRing, RefusesExactlyWhatDoesNotFit) {
  SpscRing<int, 8> ring;
  int next = 0;
  for (int round = 0; round < 100; ++round) {
    const int want = round % 13;  // 0..12 pushes into room for 8
    int accepted = 0, refused = 0;
    for (int i = 0; i < want; ++i) {
      if (ring.rt_push(next + i)) {
        ++accepted;
      } else {
        ++refused;
      }
    }
    EXPECT_EQ(accepted, std::min(want, 8)) << round;
    EXPECT_EQ(refused, std::max(want - 8, 0)) << round;
    std::vector<int> got;
    EXPECT_EQ(ring.drain([&](int v) { got.push_back(v); }), static_cast<size_t>(accepted));
    for (int i = 0; i < accepted; ++i) ASSERT_EQ(got[static_cast<size_t>(i)], next + i) << round;
    next += want;
  }
}

// Two threads, the producer as the process callback uses the ring: each value is pushed once
// and counted as refused when the ring is full, never retried. Every value is then either
// received, in order, or counted refused: received + refused == pushed, and the values
// received are exactly the ones not refused. (Run under ThreadSanitizer in scripts/test.sh.)
TEST(SpscRing, ProducerConsumerEveryItemReceivedInOrderOrCountedRefused) {
  SpscRing<uint64_t, 64> ring;
  constexpr uint64_t kN = 200000;
  std::vector<bool> was_refused(kN, false);  // the producer's, read after join
  uint64_t refused = 0;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (uint64_t i = 0; i < kN; ++i) {
      if (!ring.rt_push(i)) {
        was_refused[i] = true;
        ++refused;
      }
      if (i % 64 == 0) std::this_thread::yield();  // let the consumer in now and then
    }
    done.store(true, std::memory_order_release);
  });
  std::vector<uint64_t> received;
  received.reserve(kN);
  auto drain = [&] { ring.drain([&](uint64_t v) { received.push_back(v); }); };
  while (!done.load(std::memory_order_acquire)) drain();
  drain();  // everything pushed before `done` is visible now
  producer.join();

  EXPECT_EQ(received.size() + refused, kN);
  bool in_order = true;
  for (size_t k = 1; k < received.size(); ++k) in_order = in_order && received[k - 1] < received[k];
  EXPECT_TRUE(in_order);
  // Received and refused are complementary: walk both in order.
  size_t k = 0;
  uint64_t mismatches = 0;
  for (uint64_t i = 0; i < kN; ++i) {
    if (was_refused[i]) continue;
    if (k >= received.size() || received[k] != i) ++mismatches;
    ++k;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_EQ(k, received.size());
}

// Two threads, the producer retrying a refused push until it is taken: nothing is lost and
// nothing is duplicated, every value arrives once and in order.
TEST(SpscRing, ProducerConsumerWithRetriesLoseNothing) {
  SpscRing<uint64_t, 64> ring;
  constexpr uint64_t kN = 200000;
  std::atomic<bool> done{false};
  std::thread producer([&] {
    for (uint64_t i = 0; i < kN;) {
      if (ring.rt_push(i)) {
        ++i;
      } else {
        std::this_thread::yield();
      }
    }
    done.store(true, std::memory_order_release);
  });
  uint64_t received = 0, out_of_order = 0;
  auto drain = [&] {
    ring.drain([&](uint64_t v) {
      if (v != received) ++out_of_order;
      ++received;
    });
  };
  while (!done.load(std::memory_order_acquire)) drain();
  drain();
  producer.join();
  EXPECT_EQ(out_of_order, 0u);
  EXPECT_EQ(received, kN);
}

}  // namespace
}  // namespace xrunlab
