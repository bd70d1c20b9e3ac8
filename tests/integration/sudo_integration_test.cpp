// SPDX-License-Identifier: GPL-2.0-or-later
// `sudo xrunlab ...`: run as root with SUDO_UID/SUDO_GID of another user
// (65534, nobody/nogroup), every folder and file the run created under --output belongs to that
// user (checked on every entry, nftw), on success and on failure, for a run and for a campaign;
// what existed before keeps its owner. Root only.
#include <ftw.h>

#include <filesystem>

#include "engine/base/errors.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

constexpr uid_t kUser = 65534;
constexpr gid_t kGroup = 65534;
const std::vector<std::pair<std::string, std::string>> kSudoEnv = {
    {"SUDO_UID", std::to_string(kUser)},
    {"SUDO_GID", std::to_string(kGroup)},
    {"SUDO_USER", "nobody"}};

struct Entry {
  std::string path;
  uid_t uid;
  gid_t gid;
};
std::vector<Entry> g_entries;
int collect(const char* path, const struct stat* st, int, FTW*) {
  g_entries.push_back({path, st->st_uid, st->st_gid});
  return 0;
}
// Every entry under `dir` (itself included), not following symbolic links.
std::vector<Entry> entries_under(const std::string& dir) {
  g_entries.clear();
  ::nftw(dir.c_str(), collect, 16, FTW_PHYS);
  return g_entries;
}

void expect_all_owned_by_user(const std::string& dir, size_t at_least) {
  const std::vector<Entry> entries = entries_under(dir);
  EXPECT_GE(entries.size(), at_least) << dir;
  for (const Entry& e : entries) {
    EXPECT_EQ(e.uid, kUser) << e.path;
    EXPECT_EQ(e.gid, kGroup) << e.path;
  }
}

void expect_root_owned(const std::string& path) {
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0) << path;
  EXPECT_EQ(st.st_uid, 0u) << path << " existed before the run";
  EXPECT_EQ(st.st_gid, 0u) << path << " existed before the run";
}

std::vector<std::string> vcard_run(const std::string& out, const std::string& label) {
  return {"run",  "--backend",  "vcard", "--clients", "2",   "--ports",  "1", "--period",
          "1024", "--duration", "1",     "--label",   label, "--output", out};
}

#define NEED_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "handing files to another user needs root"

// The output's parents made by the run (new/results), the label and run folders, every file in
// them (plots, logs, clients/): all the user's. The folder that was there stays root's.
TEST(Sudo, ACompletedRunBelongsToTheInvokingUser) {
  NEED_ROOT();
  TempDir pre("sudo");
  pre.write("keep.txt", "was here");
  XrunlabRun r = start(vcard_run(pre.file("new/results"), "sudo-ok"), kSudoEnv);
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  ASSERT_FALSE(r.run_dir().empty()) << r.log();
  EXPECT_TRUE(fs::exists(r.run_dir() + "/plots")) << "plots too";
  // new, results, sudo-ok, the run folder, clients/ and the files.
  expect_all_owned_by_user(pre.file("new"), 10);
  expect_root_owned(pre.str());
  expect_root_owned(pre.file("keep.txt"));
  expect_nothing_left(r);
}

// A label folder that was there stays root's; the run folder in it is the user's.
TEST(Sudo, AnExistingLabelFolderKeepsItsOwner) {
  NEED_ROOT();
  TempDir pre("sudo");
  fs::create_directories(pre.file("out/sudo-old"));
  XrunlabRun r = start(vcard_run(pre.file("out"), "sudo-old"), kSudoEnv);
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  expect_root_owned(pre.file("out"));
  expect_root_owned(pre.file("out/sudo-old"));
  expect_all_owned_by_user(r.run_dir(), 5);
}

// A run that fails after its folder was made (its jackd exits at once): the folder and what it
// holds (run.json marked failed, jackd.log) are the user's too.
TEST(Sudo, AFailedRunBelongsToTheInvokingUserToo) {
  NEED_ROOT();
  TempDir pre("sudo");
  XrunlabRun r = start({"run", "--backend", "dummy", "--jackd", "/bin/false", "--clients", "1",
                        "--duration", "1", "--label", "sudo-fail", "--output", pre.file("out")},
                       kSudoEnv);
  finish(r);
  EXPECT_EQ(r.exit_code, static_cast<int>(ExitCode::kServerFailed)) << r.log();
  std::string run_json;
  for (const Entry& e : entries_under(pre.file("out"))) {
    if (fs::path(e.path).filename() == "run.json") run_json = e.path;
  }
  ASSERT_FALSE(run_json.empty()) << r.log();
  EXPECT_EQ(json::parse(read_text_or_empty(run_json))["status"], "failed");
  expect_all_owned_by_user(pre.file("out"), 4);
  expect_root_owned(pre.str());
}

// `xrunlab run --repeat 2`: the campaign folder, campaign.json, the summaries, each run's log
// and each run's folders (made by the `xrunlab run` children) are the user's.
TEST(Sudo, ACampaignBelongsToTheInvokingUser) {
  NEED_ROOT();
  TempDir pre("sudo");
  std::vector<std::string> args = vcard_run(pre.file("out"), "sudo-rep");
  args.insert(args.end(), {"--repeat", "2", "--no-plots"});
  XrunlabRun r = start(args, kSudoEnv);
  finish(r, 120s);
  ASSERT_EQ(r.exit_code, 0) << r.log();
  const std::string campaign = pre.file("out/campaigns/sudo-rep");
  for (const char* f : {"campaign.json", "campaign-summary.txt", "campaign-summary.json"}) {
    EXPECT_TRUE(fs::exists(campaign + "/" + f)) << f;
  }
  expect_all_owned_by_user(pre.file("out"), 12);
  expect_root_owned(pre.str());
}

}  // namespace
}  // namespace xrunlab
