// SPDX-License-Identifier: GPL-2.0-or-later
// Two `xrunlab run`s started at the same moment: both succeed, each on its
// own private server, each in its own folder (also with the same label and output, when both
// folders are made in the same second), each reporting only its own clients and its own
// injected overruns; neither frees anything of the other (registry slots, /dev/shm files).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

std::vector<std::string> vcard_run(const std::string& out, const std::string& label) {
  return {"run",  "--backend",  "vcard", "--clients", "2",   "--ports",    "1",        "--period",
          "1024", "--duration", "3",     "--label",   label, "--no-plots", "--output", out};
}

std::set<int64_t> client_pids(const json& j) {
  std::set<int64_t> out;
  for (const json& c : j["clients"]) out.insert(c["pid"].get<int64_t>());
  return out;
}

uint64_t injected(const json& j) {
  uint64_t n = 0;
  for (const json& c : j["clients"]) n += c["injected_overruns"].get<uint64_t>();
  return n;
}

// What a failed run's clients and jackd said (libjack's own error lines are in the client logs),
// for the failure message: the engine's output names only the client that failed.
std::string logs_of(const XrunlabRun& r) {
  std::string out, dir = r.run_dir();
  const std::string text = r.log();
  // A run that failed before its results names its folder in its error: "...; see DIR/clients/".
  if (const size_t at = text.find("; see "); dir.empty() && at != std::string::npos) {
    dir = text.substr(at + 6, text.find_first_of(" \n", at + 6) - at - 6);
    if (dir.size() > 9 && dir.compare(dir.size() - 9, 9, "/clients/") == 0)
      dir.resize(dir.size() - 9);
  }
  if (dir.empty() || !fs::is_directory(dir)) return out;
  for (const fs::directory_entry& f : fs::recursive_directory_iterator(dir)) {
    if (f.path().extension() != ".log") continue;
    std::ifstream in(f.path());
    out += "\n--- " + f.path().string() + "\n";
    out.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return out;
}

// Each run's own: its server (named after its own engine), its clients, its folder; and no
// warning of one names the other's server (nothing of a live run is freed as stale).
void expect_apart(const XrunlabRun& a, const XrunlabRun& b) {
  ASSERT_EQ(a.exit_code, 0) << a.log() << logs_of(a) << "\n--- the other run:\n" << b.log();
  ASSERT_EQ(b.exit_code, 0) << b.log() << logs_of(b) << "\n--- the other run:\n" << a.log();
  ASSERT_FALSE(a.run_dir().empty()) << a.log();
  ASSERT_FALSE(b.run_dir().empty()) << b.log();
  EXPECT_NE(a.run_dir(), b.run_dir());
  const json ja = a.run_json(), jb = b.run_json();
  EXPECT_EQ(ja["status"], "completed") << ja["status_detail"];
  EXPECT_EQ(jb["status"], "completed") << jb["status_detail"];
  EXPECT_EQ(ja["jack"]["server_name"], a.server_name());
  EXPECT_EQ(jb["jack"]["server_name"], b.server_name());
  EXPECT_NE(a.server_name(), b.server_name());
  const std::set<int64_t> pa = client_pids(ja), pb = client_pids(jb);
  EXPECT_EQ(pa.size(), 2u);
  EXPECT_EQ(pb.size(), 2u);
  for (const int64_t p : pa) EXPECT_EQ(pb.count(p), 0u) << "client pid " << p << " in both runs";
  for (const auto& [run, other] : {std::pair{&ja, &b}, std::pair{&jb, &a}}) {
    for (const json& w : (*run)["warnings"]) {
      EXPECT_EQ(w.get<std::string>().find(other->server_name()), std::string::npos)
          << "a run touched the other's server: " << w;
    }
    for (const char* log : {"/jackd.log", "/clients/c01.log", "/clients/c02.log"}) {
      EXPECT_TRUE(fs::exists((run == &ja ? a : b).run_dir() + log)) << log;
    }
  }
  expect_xrun_counts_consistent(ja);
  expect_xrun_counts_consistent(jb);
  expect_nothing_left(a);
  expect_nothing_left(b);
}

// Different labels in one output; only the first run's second client overruns on purpose (30 ms
// every 40th cycle at 1024 frames, 21.3 ms): the overruns are counted there and only there.
TEST(ConcurrentRuns, TwoLabelsTwoServersEachItsOwnFaults) {
  TempDir out("together");
  std::vector<std::string> args_a = vcard_run(out.str(), "together-a");
  args_a.insert(args_a.end(), {"--inject", "30000:40", "--inject-client", "2"});
  XrunlabRun a = start(args_a);
  XrunlabRun b = start(vcard_run(out.str(), "together-b"));
  finish(a);
  finish(b);
  expect_apart(a, b);
  EXPECT_EQ(fs::path(a.run_dir()).parent_path(), fs::path(out.str()) / "together-a");
  EXPECT_EQ(fs::path(b.run_dir()).parent_path(), fs::path(out.str()) / "together-b");
  EXPECT_GE(injected(a.run_json()), 1u) << "the injected overruns are the first run's";
  EXPECT_EQ(injected(b.run_json()), 0u) << "the second run reports the first run's overruns";
  EXPECT_EQ(b.run_json()["clients"][1]["injected_overruns"], 0u);
}

// The same label and output: two folders (the second with a -N suffix when both were made in
// the same second), each with its own complete results.
TEST(ConcurrentRuns, TheSameLabelAndOutputGetTwoFolders) {
  TempDir out("together");
  XrunlabRun a = start(vcard_run(out.str(), "together"));
  XrunlabRun b = start(vcard_run(out.str(), "together"));
  finish(a);
  finish(b);
  expect_apart(a, b);
  EXPECT_EQ(fs::path(a.run_dir()).parent_path(), fs::path(b.run_dir()).parent_path());
  size_t folders = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(out.file("together"))) ++folders;
  EXPECT_EQ(folders, 2u);
}

}  // namespace
}  // namespace xrunlab
