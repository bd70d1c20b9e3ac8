// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab doctor`'s table (fitted to a width, or plain), its JSON and its exit code.
#include <gtest/gtest.h>

#include <sstream>

#include "engine/doctor/report.hpp"

namespace xrunlab {
namespace {

using S = CheckStatus;

std::vector<CheckResult> sample() {
  return {
      {"rtprio", "Realtime priority limit", S::kOk, "RLIMIT_RTPRIO 95", "Why rtprio.", ""},
      {"swappiness", "Swappiness", S::kWarn, "vm.swappiness = 60 (more than 10)",
       "A high swappiness lets the kernel swap out memory early; a process that touches a "
       "swapped page waits for the disk.",
       "sysctl -w vm.swappiness=10, and put 'vm.swappiness = 10' in "
       "/etc/sysctl.d/99-audio.conf to keep it"},
      {"smt", "Simultaneous multithreading (SMT)", S::kSkipped, "SMT notsupported", "Why smt.", ""},
      {"preempt", "Kernel preemption model", S::kNeedsRoot, "mode not known", "Why preempt.",
       "add preempt=full"}};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

TEST(DoctorTable, PlainOutputHasOneLinePerCheckAndWhyAndFixOnlyUnderProblems) {
  const std::string t = format_doctor_table(sample(), 0);
  const auto ls = lines_of(t);
  EXPECT_EQ(ls[0].rfind("STATUS  CHECK", 0), 0u) << ls[0];
  EXPECT_NE(t.find("OK      Realtime priority limit"), std::string::npos) << t;
  EXPECT_EQ(t.find("Why rtprio."), std::string::npos);  // OK: no why
  EXPECT_EQ(t.find("Why smt."), std::string::npos);     // not applicable: no why
  EXPECT_NE(t.find("        why: A high swappiness"), std::string::npos) << t;
  EXPECT_NE(t.find("        fix: sysctl -w vm.swappiness=10"), std::string::npos) << t;
  EXPECT_NE(t.find("ROOT    Kernel preemption model"), std::string::npos) << t;
  EXPECT_NE(t.find("        fix: add preempt=full"), std::string::npos) << t;
  EXPECT_NE(t.find("4 checks: 1 OK, 1 WARN, 0 FAIL, 1 need root, 1 skipped (not applicable); "
                   "exit code 20"),
            std::string::npos)
      << t;
  // Not wrapped: the why is one line.
  for (const std::string& l : ls) {
    if (l.find("why: A high") != std::string::npos) {
      EXPECT_NE(l.find("waits for the disk."), std::string::npos);
    }
  }
}

TEST(DoctorTable, OnATerminalEveryLineFitsTheWidth) {
  for (const int width : {100, 80, 60, 40}) {
    const std::string t = format_doctor_table(sample(), width);
    for (const std::string& l : lines_of(t)) {
      // Only a word longer than the room may stick out; these have none.
      EXPECT_LE(static_cast<int>(l.size()), width) << width << ": '" << l << "'";
    }
    EXPECT_NE(t.find("disk."), std::string::npos) << t;
  }
  // Too narrow for a FOUND column: FOUND goes under the title.
  const std::string narrow = format_doctor_table(sample(), 50);
  EXPECT_NE(narrow.find("STATUS  CHECK / FOUND"), std::string::npos) << narrow;
}

TEST(DoctorTable, ColourWrapsOnlyTheStatusWordAndKeepsTheColumns) {
  const std::string plain = format_doctor_table(sample(), 100, false);
  const std::string color = format_doctor_table(sample(), 100, true);
  EXPECT_EQ(plain.find('\033'), std::string::npos);
  EXPECT_NE(color.find("\033[33mWARN\033[0m    Swappiness"), std::string::npos) << color;
  EXPECT_NE(color.find("\033[32mOK\033[0m      Realtime priority limit"), std::string::npos)
      << color;
  // Without the escape codes it is the plain table.
  std::string stripped = color;
  for (size_t at; (at = stripped.find('\033')) != std::string::npos;) {
    stripped.erase(at, stripped.find('m', at) - at + 1);
  }
  EXPECT_EQ(stripped, plain);
}

TEST(DoctorJson, HasTheStableKeysAndASummary) {
  const auto j = doctor_json(sample());
  EXPECT_EQ(j["schema_version"], 1);
  ASSERT_EQ(j["checks"].size(), 4u);
  for (const auto& c : j["checks"]) {
    for (const char* key : {"id", "title", "status", "found", "why", "fix"}) {
      EXPECT_TRUE(c.contains(key)) << key;
    }
  }
  EXPECT_EQ(j["checks"][1]["status"], "warn");
  EXPECT_EQ(j["checks"][2]["status"], "skipped");
  EXPECT_EQ(j["checks"][3]["status"], "needs-root");
  EXPECT_EQ(j["summary"]["worst"], "warn");
  EXPECT_EQ(j["summary"]["exit_code"], 20);
  EXPECT_EQ(j["summary"]["needs_root"], 1);
}

TEST(DoctorExitCode, IsZeroWithoutWarnOrFailThenTwentyThenTwentyOne) {
  auto with = [](S s) {
    return std::vector<CheckResult>{{"a", "A", S::kOk, "x", "y", ""}, {"b", "B", s, "x", "y", "z"}};
  };
  EXPECT_EQ(doctor_exit_code({}), ExitCode::kOk);
  EXPECT_EQ(doctor_exit_code(with(S::kOk)), ExitCode::kOk);
  EXPECT_EQ(doctor_exit_code(with(S::kSkipped)), ExitCode::kOk);
  EXPECT_EQ(doctor_exit_code(with(S::kNeedsRoot)), ExitCode::kOk);
  EXPECT_EQ(doctor_exit_code(with(S::kWarn)), ExitCode::kDoctorWarn);
  EXPECT_EQ(doctor_exit_code(with(S::kFail)), ExitCode::kDoctorFail);
  EXPECT_EQ(static_cast<int>(ExitCode::kDoctorWarn), 20);
  EXPECT_EQ(static_cast<int>(ExitCode::kDoctorFail), 21);
}

}  // namespace
}  // namespace xrunlab
