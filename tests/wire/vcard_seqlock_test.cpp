// SPDX-License-Identifier: GPL-2.0-or-later
// The vcard's wake record under concurrency: the card (one writer) overwrites slots while a
// reader reads them. Every record the reader accepts must be one the writer wrote whole.
// Built in the ThreadSanitizer build too (scripts/test.sh), which checks it is race-free.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "engine/wire/vcard_shared.hpp"

namespace xrunlab {
namespace {

TEST(VcardSeqlock, AReaderNeverAcceptsATornRecord) {
  constexpr uint64_t kSlots = 4;  // few slots: the writer laps the reader constantly
  constexpr uint64_t kWrites = 200000;
  auto slots = std::make_unique<vcard::WakeSlot[]>(kSlots);
  for (uint64_t i = 0; i < kSlots; ++i) slots[i].seq.store(0);
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (uint64_t m = 0; m < kWrites; ++m) {
      vcard::write_wake(slots[m % kSlots], m, static_cast<int64_t>(m * 10),
                        static_cast<int64_t>(m * 10 + 5));
    }
    done.store(true);
  });
  uint64_t accepted = 0, bad = 0;
  bool last_pass = false;
  do {  // ... and one whole pass after the writer finished
    last_pass = done.load();
    for (uint64_t i = 0; i < kSlots; ++i) {
      uint64_t m = 0;
      int64_t ideal = 0, wake = 0;
      if (!vcard::read_wake(slots[i], &m, &ideal, &wake)) continue;
      ++accepted;
      if (m % kSlots != i || ideal != static_cast<int64_t>(m * 10) || wake != ideal + 5) ++bad;
    }
  } while (!last_pass);
  writer.join();
  EXPECT_EQ(bad, 0u);
  EXPECT_GT(accepted, 0u);
  // After the writer stopped, the last records are all there.
  for (uint64_t i = 0; i < kSlots; ++i) {
    uint64_t m = 0;
    int64_t ideal = 0, wake = 0;
    ASSERT_TRUE(vcard::read_wake(slots[i], &m, &ideal, &wake));
    EXPECT_EQ(m, kWrites - 1 - (kWrites - 1 - i) % kSlots);  // the last m with m % kSlots == i
  }
}

}  // namespace
}  // namespace xrunlab
