// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Bounded single-producer/single-consumer ring of trivially copyable records.
// Producer side (rt_push) is called from the JACK process callback: wait-free, no allocation,
// no system calls. Consumer side (drain) runs on an ordinary thread.
#include <array>
#include <atomic>
#include <cstddef>
#include <type_traits>

namespace xrunlab {

template <typename T, size_t Capacity>
class SpscRing {
  static_assert(std::is_trivially_copyable_v<T>, "records are copied by value in the RT thread");
  static_assert((Capacity & (Capacity - 1)) == 0, "capacity must be a power of two");
  static_assert(std::atomic<size_t>::is_always_lock_free, "indices must be lock-free atomics");

 public:
  // Realtime: wait-free. Returns false (and counts nothing itself) when the ring is full.
  bool rt_push(const T& item) noexcept {
    const size_t head = head_.load(std::memory_order_relaxed);
    const size_t tail = tail_.load(std::memory_order_acquire);
    if (head - tail == Capacity) return false;
    slots_[head & (Capacity - 1)] = item;
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  // Consumer thread only. Calls fn(const T&) for every available item; returns how many.
  template <typename Fn>
  size_t drain(Fn&& fn) {
    const size_t tail = tail_.load(std::memory_order_relaxed);
    const size_t head = head_.load(std::memory_order_acquire);
    for (size_t i = tail; i != head; ++i) fn(slots_[i & (Capacity - 1)]);
    tail_.store(head, std::memory_order_release);
    return head - tail;
  }

  static constexpr size_t capacity() { return Capacity; }

 private:
  alignas(64) std::atomic<size_t> head_{0};  // written by the producer
  alignas(64) std::atomic<size_t> tail_{0};  // written by the consumer
  alignas(64) std::array<T, Capacity> slots_{};
};

}  // namespace xrunlab
