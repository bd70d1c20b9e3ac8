// SPDX-License-Identifier: GPL-2.0-or-later
// DmaLatencyHold on stand-ins for the device (a regular file takes the same write and read):
// what it writes, what it reads back, and the refusals. The real /dev/cpu_dma_latency is in
// tests/integration/baseline_integration_test.cpp (the kernel's aggregate during and after).
#include "engine/system/dma_latency.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "engine/base/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

TEST(DmaLatencyHold, WritesTheRequestAsABinaryS32AndReadsItBack) {
  testing_support::TempDir dir("dma");
  const std::string dev = dir.write("cpu_dma_latency", std::string(4, '\x7f'));
  {
    const DmaLatencyHold hold(dev, 0);
    EXPECT_EQ(hold.requested_us(), 0);
    ASSERT_TRUE(hold.read_back_us().has_value());
    EXPECT_EQ(*hold.read_back_us(), 0);
    EXPECT_EQ(read_dma_latency(dev), 0);
  }
  const DmaLatencyHold other(dev, 25);
  EXPECT_EQ(other.read_back_us(), 25);
}

TEST(DmaLatencyHold, AMissingDeviceIsUnsupportedNamingIt) {
  testing_support::TempDir dir("dma-missing");
  const std::string dev = dir.file("no_such_device");
  try {
    const DmaLatencyHold hold(dev, 0);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find(dev), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("leave --dma-latency out"), std::string::npos);
  }
  EXPECT_FALSE(read_dma_latency(dev).has_value());
}

TEST(DmaLatencyHold, AFolderInPlaceOfTheDeviceIsRefusedAsNotWritable) {
  testing_support::TempDir dir("dma-dir");
  try {
    const DmaLatencyHold hold(dir.path().string(), 0);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kPermission);
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace xrunlab
