// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/host_context.hpp"

#include <gtest/gtest.h>

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

void expect_string(const nlohmann::json& obj, const char* key) {
  ASSERT_TRUE(obj.contains(key)) << key;
  EXPECT_TRUE(obj.at(key).is_string()) << key;
  EXPECT_FALSE(obj.at(key).get<std::string>().empty()) << key;
}

TEST(CollectHostContext, HasEveryKeyWithTheRightType) {
  const nlohmann::json ctx = collect_host_context();
  ASSERT_TRUE(ctx.is_object());
  expect_string(ctx, "hostname");

  ASSERT_TRUE(ctx.contains("kernel"));
  const nlohmann::json& kernel = ctx.at("kernel");
  ASSERT_TRUE(kernel.is_object());
  for (const char* key : {"sysname", "release", "version", "machine", "preempt"}) {
    expect_string(kernel, key);
  }
  ASSERT_TRUE(kernel.contains("cmdline"));
  EXPECT_TRUE(kernel.at("cmdline").is_string());
  const std::string preempt = kernel.at("preempt").get<std::string>();
  EXPECT_TRUE(preempt == "PREEMPT_RT" || preempt == "PREEMPT_DYNAMIC" || preempt == "PREEMPT" ||
              preempt == "none")
      << preempt;

  ASSERT_TRUE(ctx.contains("cpu"));
  const nlohmann::json& cpu = ctx.at("cpu");
  ASSERT_TRUE(cpu.is_object());
  expect_string(cpu, "model");
  ASSERT_TRUE(cpu.contains("count"));
  EXPECT_TRUE(cpu.at("count").is_number_integer());
  EXPECT_GE(cpu.at("count").get<int64_t>(), 1);
  ASSERT_TRUE(cpu.contains("governors"));
  ASSERT_TRUE(cpu.at("governors").is_array());
  for (const auto& g : cpu.at("governors")) EXPECT_TRUE(g.is_string());

  ASSERT_TRUE(ctx.contains("memory_total_kib"));
  EXPECT_TRUE(ctx.at("memory_total_kib").is_number_unsigned());
  EXPECT_GT(ctx.at("memory_total_kib").get<uint64_t>(), 0u);

  ASSERT_TRUE(ctx.contains("jack"));
  ASSERT_TRUE(ctx.at("jack").is_object());
  expect_string(ctx.at("jack"), "jackd_version");

  EXPECT_NO_THROW((void)ctx.dump());  // every string is valid UTF-8
}

}  // namespace
}  // namespace xrunlab
