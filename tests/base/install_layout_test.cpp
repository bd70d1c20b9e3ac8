// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/install_layout.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;
namespace fs = std::filesystem;

// The folders this build installs into, relative to the prefix (tests/base/CMakeLists.txt).
const std::string kLibexec = XRUNLAB_TEST_LIBEXECDIR;
const std::string kLibdir = XRUNLAB_TEST_LIBDIR;
const std::string kDatadir = XRUNLAB_TEST_DATADIR;
constexpr const char* kPlugin = "libasound_module_pcm_xrunlab.so";

std::string canonical(const std::string& p) {
  return fs::weakly_canonical(p).string();
}

TEST(InstallLayout, AHelperBesideTheBinaryIsTheBuildTreesOne) {
  TempDir root("layout");
  const std::string beside = root.write("build/bin/xrunlab-client", "x");
  EXPECT_EQ(helper_program_path(root.file("build/bin"), "xrunlab-client"), beside);
}

TEST(InstallLayout, AnInstalledHelperIsInLibexecXrunlab) {
  TempDir root("layout");
  root.write("prefix/bin/xrunlab", "x");
  const std::string installed = root.write("prefix/" + kLibexec + "/xrunlab/xrunlab-load", "x");
  EXPECT_EQ(canonical(helper_program_path(root.file("prefix/bin"), "xrunlab-load")), installed);
  // Missing everywhere: the installed path, for the error to name.
  EXPECT_EQ(canonical(helper_program_path(root.file("prefix/bin"), "xrunlab-janitor")),
            root.file("prefix/" + kLibexec + "/xrunlab/xrunlab-janitor"));
}

TEST(InstallLayout, ThePluginIsInLibdirXrunlabWhenInstalledElseInTheBuildTreesLib) {
  TempDir root("layout");
  fs::create_directories(root.file("prefix/bin"));
  EXPECT_EQ(vcard_plugin_path(root.file("prefix/bin")), "");
  const std::string places = vcard_plugin_places(root.file("prefix/bin"));
  EXPECT_NE(places.find("/" + kLibdir + "/xrunlab/" + kPlugin), std::string::npos) << places;
  EXPECT_NE(places.find("/lib/" + std::string(kPlugin)), std::string::npos) << places;

  const std::string built = root.write("prefix/lib/" + std::string(kPlugin), "x");
  EXPECT_EQ(canonical(vcard_plugin_path(root.file("prefix/bin"))), built);
  const std::string installed = root.write("prefix/" + kLibdir + "/xrunlab/" + kPlugin, "x");
  EXPECT_EQ(canonical(vcard_plugin_path(root.file("prefix/bin"))), installed)
      << "the installed plug-in comes first";
}

TEST(InstallLayout, TheDataFolderIsShareXrunlab) {
  TempDir root("layout");
  fs::create_directories(root.file("prefix/bin"));
  fs::create_directories(root.file("prefix/" + kDatadir + "/xrunlab"));
  EXPECT_EQ(canonical(installed_data_dir(root.file("prefix/bin"))),
            root.file("prefix/" + kDatadir + "/xrunlab"));
}

}  // namespace
}  // namespace xrunlab
