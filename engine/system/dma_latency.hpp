// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// --dma-latency: hold the kernel's CPU latency QoS request (/dev/cpu_dma_latency) at a value
// for as long as this object lives, as cyclictest does by default (it holds 0), so the CPUs
// stay out of idle states whose exit latency would add to every wake-up. The kernel keeps the
// request while the descriptor is open and drops it when it is closed, so every exit path,
// a crash and kill -9 included, restores the machine: nothing to journal. Non-realtime.
#include <cstdint>
#include <optional>
#include <string>

namespace xrunlab {

inline constexpr const char* kDmaLatencyDevice = "/dev/cpu_dma_latency";

class DmaLatencyHold {
 public:
  // Opens `device`, writes `usecs` (a binary s32, as the kernel reads it) and reads the
  // aggregate target back. Throws Error: kUnsupported when the device is missing, kPermission
  // when it cannot be opened for writing, naming the device and what to do.
  DmaLatencyHold(const std::string& device, int32_t usecs);
  ~DmaLatencyHold();
  DmaLatencyHold(const DmaLatencyHold&) = delete;
  DmaLatencyHold& operator=(const DmaLatencyHold&) = delete;

  const std::string& device() const { return device_; }
  int32_t requested_us() const { return requested_; }
  // The machine's target (the least of every holder's request) read right after the write:
  // what held during the run; nullopt when the device gave no value.
  std::optional<int32_t> read_back_us() const { return read_back_; }

 private:
  std::string device_;
  int32_t requested_ = 0;
  std::optional<int32_t> read_back_;
  int fd_ = -1;
};

// The target the device reads now (nullopt: it cannot be read).
std::optional<int32_t> read_dma_latency(const std::string& device);

}  // namespace xrunlab
