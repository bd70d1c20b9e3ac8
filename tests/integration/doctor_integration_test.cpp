// SPDX-License-Identifier: GPL-2.0-or-later
// The real `xrunlab doctor` on this machine: every check present with a known status, the exit
// code the worst status calls for, the table and --json telling the same story. Nothing here
// depends on this machine's particular values. And the real binary on a fixture tree (--root),
// where every status is known.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;

const std::vector<std::string> kIds = {
    "audio-group",    "audio-limits",  "rtprio",      "memlock",     "policies",
    "cpu-governor",   "smt",           "preempt",     "threadirqs",  "high-res-timers",
    "no-hz",          "mitigations",   "swappiness",  "atime",       "cpu-dma-latency",
    "rt-throttling",  "cgroup-rt",     "rtkit",       "sound-cards", "card-irqs",
    "irq-priorities", "audio-servers", "card-holders"};

int expected_code(const std::string& worst) {
  if (worst == "fail") return 21;
  if (worst == "warn") return 20;
  return 0;
}

// Runs xrunlab doctor ARGS; returns its exit code and sets *out to what it printed.
int doctor(const std::vector<std::string>& args, std::string* out) {
  std::vector<std::string> all = {"doctor"};
  all.insert(all.end(), args.begin(), args.end());
  XrunlabRun r;
  const int code = run_to_end(all, &r);
  *out = r.log();
  return code;
}

void expect_structure(const json& j, int code) {
  ASSERT_TRUE(j.contains("checks")) << j.dump();
  ASSERT_EQ(j["checks"].size(), kIds.size());
  const std::set<std::string> statuses = {"ok", "warn", "fail", "needs-root", "skipped"};
  std::string worst = "ok";
  const std::vector<std::string> order = {"ok", "skipped", "needs-root", "warn", "fail"};
  auto rank = [&](const std::string& s) {
    return std::find(order.begin(), order.end(), s) - order.begin();
  };
  for (size_t i = 0; i < kIds.size(); ++i) {
    const json& c = j["checks"][i];
    EXPECT_EQ(c["id"], kIds[i]);
    for (const char* key : {"title", "status", "found", "why", "fix"}) {
      ASSERT_TRUE(c.contains(key) && c[key].is_string()) << kIds[i] << " " << key;
    }
    const std::string status = c["status"];
    EXPECT_TRUE(statuses.count(status)) << kIds[i] << ": " << status;
    EXPECT_FALSE(c["why"].get<std::string>().empty()) << kIds[i];
    if (status == "warn" || status == "fail") {
      EXPECT_FALSE(c["fix"].get<std::string>().empty()) << kIds[i];
    }
    if (rank(status) > rank(worst)) worst = status;
  }
  EXPECT_EQ(j["summary"]["worst"], worst);
  EXPECT_EQ(j["summary"]["exit_code"], expected_code(worst));
  EXPECT_EQ(code, expected_code(worst));
}

TEST(DoctorCommand, JsonOnThisMachineHasEveryCheckAndTheWorstStatusesExitCode) {
  std::string out;
  const int code = doctor({"--json"}, &out);
  const json j = json::parse(out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << out;
  expect_structure(j, code);
}

TEST(DoctorCommand, TheTableOnThisMachineShowsEveryCheckOnceAndTheSameStatusesAsJson) {
  std::string json_out, table;
  doctor({"--json"}, &json_out);
  const int code = doctor({}, &table);
  const json j = json::parse(json_out);
  EXPECT_EQ(code, j["summary"]["exit_code"].get<int>()) << table;
  const std::map<std::string, std::string> label = {{"ok", "OK"},
                                                    {"warn", "WARN"},
                                                    {"fail", "FAIL"},
                                                    {"needs-root", "ROOT"},
                                                    {"skipped", "SKIP"}};
  for (const json& c : j["checks"]) {
    // Piped: no wrapping, so each check is one line STATUS + title.
    const std::string row = label.at(c["status"]) +
                            std::string(8 - label.at(c["status"]).size(), ' ') +
                            c["title"].get<std::string>();
    EXPECT_NE(table.find(row), std::string::npos) << row << "\n" << table;
  }
  EXPECT_NE(table.find(std::to_string(kIds.size()) + " checks: "), std::string::npos) << table;
  EXPECT_NE(table.find("exit code " + std::to_string(code)), std::string::npos) << table;
}

TEST(DoctorCommand, AnUnprivilegedUserGetsEveryCheckToo) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to become another user";
  if (::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "no setpriv (util-linux)";
  SpawnSpec spec;
  spec.argv = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
               XRUNLAB_BIN,        "doctor",         "--json"};
  TempDir dir("doctor");
  spec.output_path = dir.file("out.json");
  Child c = Child::spawn(spec);
  ASSERT_TRUE(c.wait_for(60s));
  const int status = *c.wait_status();
  ASSERT_TRUE(WIFEXITED(status));
  const json j = json::parse(read_text_or_empty(spec.output_path), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << read_text_or_empty(spec.output_path);
  expect_structure(j, WEXITSTATUS(status));
  // nobody has no realtime priority: the default policy is refused, whatever the machine.
  EXPECT_EQ(j["checks"][4]["id"], "policies");
  EXPECT_EQ(j["checks"][4]["status"], "fail") << j["checks"][4].dump();
}

TEST(DoctorCommand, OnAFixtureTreeTheRealBinaryGivesItsKnownStatusesAndExitCode) {
  // The well-tuned RT machine: nothing WARN or FAIL, so exit code 0 (its cpu_dma_latency made
  // writable in a copy: git keeps no modes).
  TempDir dir("doctor-root");
  std::filesystem::copy(
      std::string(XRUNLAB_FIXTURES_DIR) + "/doctor/rt-tuned", dir.path(),
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  ASSERT_EQ(::chmod(dir.file("dev/cpu_dma_latency").c_str(), 0666), 0);
  std::string out;
  EXPECT_EQ(doctor({"--json", "--root", dir.str()}, &out), 0) << out;
  const json j = json::parse(out);
  EXPECT_EQ(j["summary"]["worst"], "skipped");
  EXPECT_EQ(j["summary"]["fail"], 0);
  EXPECT_EQ(j["summary"]["warn"], 0);
  // The VM tree: audio.conf disabled is a FAIL, so 21.
  EXPECT_EQ(doctor({"--root", std::string(XRUNLAB_FIXTURES_DIR) + "/doctor/vm"}, &out), 21) << out;
  EXPECT_NE(out.find("dpkg-reconfigure -p high jackd2"), std::string::npos) << out;
}

TEST(DoctorCommand, ABadPriorityIsAUsageError) {
  std::string out;
  EXPECT_EQ(doctor({"--priority", "0"}, &out), 2);
  EXPECT_NE(out.find("doctor --priority 0: give a SCHED_FIFO priority 1..99"), std::string::npos)
      << out;
}

}  // namespace
}  // namespace xrunlab
