#include "engine/jack/jack_registry.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "tests/support/jack_registry_image.hpp"

namespace xrunlab {
namespace {

using testing_support::registry_image;

namespace fs = std::filesystem;

TEST(JackRegistry, ParsesTheServerTable) {
  const auto entries = parse_jack_registry(
      registry_image({{123, "jack-0:xrunlab-9-0:"}, {456, "jack-0:default:"}}), nullptr);
  ASSERT_TRUE(entries);
  ASSERT_EQ(entries->size(), 8u);
  EXPECT_EQ((*entries)[0].pid, 123);
  EXPECT_EQ((*entries)[0].name, "jack-0:xrunlab-9-0:");
  EXPECT_EQ((*entries)[1].name, "jack-0:default:");
  EXPECT_EQ((*entries)[2].pid, 0);
}

TEST(JackRegistry, RefusesAnUnknownLayout) {
  std::string why;
  std::string img = registry_image({});
  img[0] = 'X';
  EXPECT_FALSE(parse_jack_registry(img, &why));
  EXPECT_NE(why.find("magic"), std::string::npos);
  EXPECT_FALSE(parse_jack_registry("short", &why));
  img = registry_image({});
  const uint32_t other_len = 1234;
  std::memcpy(img.data() + 16, &other_len, 4);
  EXPECT_FALSE(parse_jack_registry(img, &why));
}

TEST(JackRegistry, FindsTheServerOfLeftoverFiles) {
  EXPECT_EQ(xrunlab_server_of_file("jack_sem.0_xrunlab-11058-0_xrunlab-c01", 0), "xrunlab-11058-0");
  EXPECT_EQ(xrunlab_server_of_file("jack_sem.0_xrunlab-11058-0_system", 0), "xrunlab-11058-0");
  EXPECT_EQ(xrunlab_server_of_file("jack_xrunlab-18777-0_0_0", 0), "xrunlab-18777-0");
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-vcard-xrunlab-18777-0", 0), "xrunlab-18777-0");
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-vcard-xrunlab-18777-0x", 0), std::nullopt);
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-vcard-other", 0), std::nullopt);
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-cycles-xrunlab-18777-0", 0), "xrunlab-18777-0");
  EXPECT_EQ(xrunlab_server_of_file("xrunlab-cycles-other", 0), std::nullopt);
  EXPECT_EQ(xrunlab_server_of_file("jack_xrunlab-18777-12_1000_3", 1000), "xrunlab-18777-12");
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-18777-0_0_0", 1000));  // another user's
  EXPECT_FALSE(xrunlab_server_of_file("jack_sem.0_default_system", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_default_0_0", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack-shm-registry", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_xrunlab-1-0_0_0x", 0));
  EXPECT_FALSE(xrunlab_server_of_file("jack_sem.0_xrunlab-1-0", 0));
}

TEST(JackRegistry, OnlyXrunlabServersOfThisUserQualify) {
  EXPECT_TRUE(is_xrunlab_entry("jack-1000:xrunlab-42-0:", 1000));
  EXPECT_FALSE(is_xrunlab_entry("jack-1000:xrunlab-42-0:", 0));
  EXPECT_FALSE(is_xrunlab_entry("jack-1000:default:", 1000));
  EXPECT_FALSE(is_xrunlab_entry("jack-1000:myxrunlab-1-0:", 1000));
}

// In a scratch folder standing in for /dev/shm (no JACK semaphore lock is needed to read a
// registry that is not there): dead entries are cleared, live and foreign ones kept, and only
// semaphore files of dead xrunlab runs are removed.
TEST(JackRegistry, ReclaimsDeadXrunlabEntriesAndFilesOnly) {
  const fs::path dir = fs::temp_directory_path() / ("xrunlab-registry-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string uid = std::to_string(getuid());
  const pid_t dead = 999999;  // above the default pid_max: never a live process
  const pid_t self = getpid();
  {
    std::ofstream(dir / "jack-shm-registry", std::ios::binary)
        << registry_image({{dead, "jack-" + uid + ":xrunlab-5-0:"},
                           {self, "jack-" + uid + ":xrunlab-7-0:"},
                           {dead, "jack-" + uid + ":default:"}});
  }
  const std::string dead_sem = "jack_sem." + uid + "_xrunlab-" + std::to_string(dead) + "-0_c01";
  const std::string live_sem = "jack_sem." + uid + "_xrunlab-" + std::to_string(self) + "-0_c01";
  const std::string finished = "jack_sem." + uid + "_xrunlab-" + std::to_string(self) + "-1_c01";
  const std::string foreign = "jack_sem." + uid + "_default_system";
  const std::string dead_socket = "jack_xrunlab-" + std::to_string(dead) + "-0_" + uid + "_0";
  for (const auto& f : {dead_sem, live_sem, finished, foreign, dead_socket}) {
    std::ofstream(dir / f) << "";
  }

  const ReclaimResult r =
      reclaim_stale_xrunlab_servers(dir.string(), "xrunlab-" + std::to_string(self) + "-1");
  EXPECT_EQ(r.reclaimed, std::vector<std::string>{"xrunlab-5-0"});
  EXPECT_FALSE(fs::exists(dir / dead_sem));
  EXPECT_FALSE(fs::exists(dir / dead_socket));
  EXPECT_FALSE(fs::exists(dir / finished));
  EXPECT_TRUE(fs::exists(dir / live_sem));
  EXPECT_TRUE(fs::exists(dir / foreign));

  std::ifstream in(dir / "jack-shm-registry", std::ios::binary);
  const std::string img((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto entries = parse_jack_registry(img, nullptr);
  ASSERT_TRUE(entries);
  EXPECT_EQ((*entries)[0].pid, 0);  // reclaimed
  EXPECT_EQ((*entries)[0].name, "");
  EXPECT_EQ((*entries)[1].pid, self);                          // alive: kept
  EXPECT_EQ((*entries)[2].name, "jack-" + uid + ":default:");  // not ours: kept although dead
  fs::remove_all(dir);
}

}  // namespace
}  // namespace xrunlab
