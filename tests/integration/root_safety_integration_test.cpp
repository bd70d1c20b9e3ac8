// SPDX-License-Identifier: GPL-2.0-or-later
// The attacks of another local user (uid 65534 here) on a root run, performed for real: a
// results folder they can write with a link planted in it, a scripts folder of theirs named by
// XRUNLAB_SCRIPTS, an import into their folder. Each is refused before anything is written or
// started, with one line naming the folder; the places the links point to stay untouched. The
// invoking user's own folder is fine. Root only (chown).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "engine/base/errors.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

constexpr uid_t kOther = 65534;

#define NEED_ROOT() \
  if (::geteuid() != 0) GTEST_SKIP() << "the attacks are on root's runs"

void make_folder(const std::string& path, mode_t mode, uid_t owner) {
  fs::create_directories(path);
  ASSERT_EQ(::chmod(path.c_str(), mode), 0);
  ASSERT_EQ(::chown(path.c_str(), owner, owner), 0);
}

std::vector<std::string> vcard_run(const std::string& out, const std::string& label) {
  return {"run",  "--backend",  "vcard", "--clients", "2",   "--ports",  "1", "--period",
          "1024", "--duration", "1",     "--label",   label, "--output", out};
}

size_t entries_in(const std::string& dir) {
  size_t n = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) {
    ++n;
  }
  return n;
}

void expect_one_output_error_naming(const XrunlabRun& r, const std::string& folder) {
  EXPECT_EQ(r.exit_code, static_cast<int>(ExitCode::kOutput)) << r.log();
  const std::string log = r.log();
  EXPECT_NE(log.find("xrunlab: error: refusing to write"), std::string::npos) << log;
  EXPECT_NE(log.find("'" + folder + "'"), std::string::npos) << log;
}

// /tmp/shared (anyone may write, like a lab's shared results folder) with the run's label
// planted as a link to a folder of root's: root would create its run folder, logs and plots
// there. Refused: no run starts, nothing appears behind the link.
TEST(RootSafety, ALinkPlantedInAFolderAnotherUserCanWriteIsRefused) {
  NEED_ROOT();
  TempDir dir("root-safety");
  make_folder(dir.file("shared"), 0777, kOther);
  make_folder(dir.file("victim"), 0755, 0);
  ASSERT_EQ(::symlink(dir.file("victim").c_str(), dir.file("shared/attack").c_str()), 0);
  XrunlabRun r = start(vcard_run(dir.file("shared"), "attack"));
  finish(r);
  expect_one_output_error_naming(r, dir.file("shared"));
  EXPECT_EQ(entries_in(dir.file("victim")), 0u) << "the run wrote behind the planted link";
  EXPECT_EQ(r.run_dir(), "") << r.log();
}

// A folder that is theirs (not writable by others) is refused too: they can rename in it.
TEST(RootSafety, AFolderOwnedByAnotherUserIsRefused) {
  NEED_ROOT();
  TempDir dir("root-safety");
  make_folder(dir.file("theirs"), 0755, kOther);
  XrunlabRun r = start(vcard_run(dir.file("theirs/results"), "owned"));
  finish(r);
  expect_one_output_error_naming(r, dir.file("theirs"));
  EXPECT_EQ(entries_in(dir.file("theirs")), 0u);
}

// The same folder is fine when its owner is the user who ran sudo: they are trusted.
TEST(RootSafety, TheInvokingUsersOwnFolderIsFine) {
  NEED_ROOT();
  TempDir dir("root-safety");
  make_folder(dir.file("mine"), 0755, kOther);
  XrunlabRun r =
      start(vcard_run(dir.file("mine/results"), "sudo-own"), {{"SUDO_UID", std::to_string(kOther)},
                                                              {"SUDO_GID", std::to_string(kOther)},
                                                              {"SUDO_USER", "nobody"}});
  finish(r);
  EXPECT_EQ(r.exit_code, 0) << r.log();
  EXPECT_FALSE(r.run_dir().empty()) << r.log();
}

// A scripts folder of another user's, with a preset whose cmd: load would run as root: refused
// before the campaign file is even read.
TEST(RootSafety, AnotherUsersScriptsFolderIsNotReadAsRoot) {
  NEED_ROOT();
  TempDir dir("root-safety");
  make_folder(dir.file("theirs"), 0777, kOther);
  dir.write("theirs/scripts/timeline.gp", "# theirs\n");
  dir.write("theirs/scripts/campaigns/evil.toml",
            "name = \"evil\"\nrepetitions = 1\n[run]\nduration = 1\n"
            "[axes]\nload = [\"cmd:touch " +
                dir.file("pwned") + "\"]\n");
  XrunlabRun r;
  r.out_dir = dir.str();
  r.log_path = dir.file("campaign.out");
  SpawnSpec spec;
  spec.argv = {XRUNLAB_BIN, "campaign", "--preset", "evil", "--dry-run"};
  spec.output_path = r.log_path;
  spec.env = {{"XRUNLAB_SCRIPTS", dir.file("theirs/scripts")}};
  r.child = Child::spawn(spec);
  finish(r);
  EXPECT_EQ(r.exit_code, static_cast<int>(ExitCode::kUsage)) << r.log();
  EXPECT_NE(r.log().find("XRUNLAB_SCRIPTS"), std::string::npos) << r.log();
  EXPECT_FALSE(fs::exists(dir.file("pwned")));
}

// `xrunlab import --write DIR` into a folder anyone may write: refused before a file is written.
TEST(RootSafety, AnImportIntoAFolderAnotherUserCanWriteIsRefused) {
  NEED_ROOT();
  TempDir dir("root-safety");
  make_folder(dir.file("shared"), 0777, kOther);
  const std::string summary =
      std::string(XRUNLAB_FIXTURES_DIR) + "/jack_test/sched-fifo-2.6.11-rc1-mm2-jack_test4.1.txt";
  const auto [code, out] =
      run_command({"import", summary, "--write", dir.file("shared/imported")}, dir.str());
  EXPECT_EQ(code, static_cast<int>(ExitCode::kOutput)) << out;
  EXPECT_NE(out.find("'" + dir.file("shared") + "'"), std::string::npos) << out;
  EXPECT_EQ(entries_in(dir.file("shared")), 0u);
}

}  // namespace
}  // namespace xrunlab
