// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/host_context.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "engine/result/run_json.hpp"

namespace xrunlab {
namespace {

TEST(DetectPreemptModel, RecognisesEachModel) {
  EXPECT_EQ(detect_preempt_model("#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)"),
            "PREEMPT_DYNAMIC");
  EXPECT_EQ(detect_preempt_model("#1 SMP PREEMPT_RT Debian 6.1.55-1 (2023-09-29)"), "PREEMPT_RT");
  EXPECT_EQ(detect_preempt_model("#1 SMP PREEMPT_RT PREEMPT_DYNAMIC Thu Jan 1 00:00:00 2024"),
            "PREEMPT_RT");
  EXPECT_EQ(detect_preempt_model("#2 SMP PREEMPT Tue Oct 31 12:00:00 UTC 2006"), "PREEMPT");
  EXPECT_EQ(detect_preempt_model("#1 SMP PREEMPT RT Mon Mar 5 10:00:00 CET 2007"), "PREEMPT_RT");
  EXPECT_EQ(detect_preempt_model("#1 SMP Debian 5.10.197-1 (2023-09-29)"), "none");
  EXPECT_EQ(detect_preempt_model("#1 SMP PREEMPT_DYNAMIC @0"), "PREEMPT_DYNAMIC");
}

TEST(DetectPreemptModel, MatchesWholeWordsOnly) {
  EXPECT_EQ(detect_preempt_model(""), "none");
  EXPECT_EQ(detect_preempt_model("#1 SMP PREEMPTIBLE NOPREEMPT"), "none");
  EXPECT_EQ(detect_preempt_model("#1 SMP RT"), "none");
  EXPECT_EQ(detect_preempt_model("\t#1\tSMP\tPREEMPT\n"), "PREEMPT");
}

TEST(ParseCpuModel, X86ModelName) {
  constexpr char kCpuinfo[] =
      "processor\t: 0\n"
      "vendor_id\t: GenuineIntel\n"
      "cpu family\t: 6\n"
      "model\t\t: 85\n"
      "model name\t: Intel(R) Xeon(R) Processor\n"
      "cpu MHz\t\t: 2999.998\n"
      "\n"
      "processor\t: 1\n"
      "model name\t: Some Other Model\n";
  EXPECT_EQ(parse_cpu_model(kCpuinfo), "Intel(R) Xeon(R) Processor");
}

TEST(ParseCpuModel, FallbackKeys) {
  EXPECT_EQ(parse_cpu_model("Processor\t: ARMv7 Processor rev 4 (v7l)\nprocessor\t: 0\n"),
            "ARMv7 Processor rev 4 (v7l)");
  EXPECT_EQ(parse_cpu_model("processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n"),
            "POWER9 (raw), altivec supported");
  EXPECT_EQ(parse_cpu_model("system type\t: X\ncpu model\t: MIPS 24Kc V7.4\n"), "MIPS 24Kc V7.4");
  // "model name" wins even when a fallback key comes first.
  EXPECT_EQ(parse_cpu_model("cpu\t: fallback\nmodel name\t: preferred\n"), "preferred");
}

TEST(ParseCpuModel, MissingOrEmpty) {
  EXPECT_EQ(parse_cpu_model(""), "");
  EXPECT_EQ(parse_cpu_model("processor\t: 0\ncpu MHz\t\t: 2999.998\ncpu cores\t: 2\n"), "");
  EXPECT_EQ(parse_cpu_model("model name\t:\n"), "");
  EXPECT_EQ(parse_cpu_model("model name\t: trimmed \r\n"), "trimmed");
}

TEST(CollectHostContext, FillsEveryField) {
  const HostRecord h = collect_host_context();
  // Every text is known or "unknown", never empty (the command line may be).
  for (const std::string* text :
       {&h.hostname, &h.kernel.sysname, &h.kernel.release, &h.kernel.version, &h.kernel.machine,
        &h.kernel.preempt, &h.cpu.model, &h.jackd_version}) {
    EXPECT_FALSE(text->empty());
  }
  const std::string& preempt = h.kernel.preempt;
  EXPECT_TRUE(preempt == "PREEMPT_RT" || preempt == "PREEMPT_DYNAMIC" || preempt == "PREEMPT" ||
              preempt == "none")
      << preempt;
  EXPECT_GE(h.cpu.count, 1);
  EXPECT_TRUE(std::is_sorted(h.cpu.governors.begin(), h.cpu.governors.end()));
  EXPECT_EQ(std::adjacent_find(h.cpu.governors.begin(), h.cpu.governors.end()),
            h.cpu.governors.end());
  EXPECT_GT(h.memory_total_kib, 0u);
  EXPECT_NO_THROW((void)to_json(h).dump());  // every text is valid UTF-8
}

}  // namespace
}  // namespace xrunlab
