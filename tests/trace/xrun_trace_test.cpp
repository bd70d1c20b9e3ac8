// SPDX-License-Identifier: GPL-2.0-or-later
// --trace-on-xrun's span: from when every CPU's events are in the frozen ring.
#include "engine/trace/xrun_trace.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

// The layout of this kernel's per_cpu/cpuN/stats (6.18), values changed.
std::string stats(const std::string& oldest) {
  return "entries: 812\noverrun: 0\ncommit overrun: 0\nbytes: 45056\noldest event ts: " + oldest +
         "\nnow ts: 24470.118265\ndropped events: 0\nread events: 0\n";
}

TEST(XrunTraceSpan, TheLatestOfTheCpusOldestEventsIsWhereEveryCpuIsCovered) {
  EXPECT_EQ(covered_from_ns({stats("24458.312082"), stats("24458.400001")}),
            int64_t{24458400001000});
  EXPECT_EQ(covered_from_ns({stats("24458.500000"), stats("24458.312082")}),
            int64_t{24458500000000});
}

TEST(XrunTraceSpan, NoOldestEventLineIsNoSpan) {
  EXPECT_EQ(covered_from_ns({}), std::nullopt);
  EXPECT_EQ(covered_from_ns({"entries: 0\noverrun: 0\n"}), std::nullopt);
}

}  // namespace
}  // namespace xrunlab
