// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/base/install_layout.hpp"

#include <sys/stat.h>

#include <filesystem>

namespace xrunlab {
namespace {

// From the configured GNUInstallDirs (engine/base/CMakeLists.txt): each relative to bin.
constexpr const char* kBinToLibexec = XRUNLAB_BIN_TO_LIBEXEC;
constexpr const char* kBinToPluginDir = XRUNLAB_BIN_TO_PLUGIN_DIR;
constexpr const char* kBinToData = XRUNLAB_BIN_TO_DATA;
constexpr const char* kPluginFile = "libasound_module_pcm_xrunlab.so";

// "<prefix>/bin/../libexec/x" as "<prefix>/libexec/x": what a configuration file or an error
// names should read as the place it is.
std::string normal(const std::string& path) {
  return std::filesystem::path(path).lexically_normal().string();
}

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string installed_plugin(const std::string& exe_dir) {
  return normal(exe_dir + "/" + kBinToPluginDir + "/" + kPluginFile);
}
std::string build_tree_plugin(const std::string& exe_dir) {
  return normal(exe_dir + "/../lib/" + kPluginFile);
}

}  // namespace

std::string helper_program_path(const std::string& exe_dir, const std::string& name) {
  std::string beside = exe_dir + "/" + name;
  if (is_file(beside)) return beside;
  return normal(exe_dir + "/" + kBinToLibexec + "/" + name);
}

std::string vcard_plugin_path(const std::string& exe_dir) {
  if (std::string p = installed_plugin(exe_dir); is_file(p)) return p;
  if (std::string p = build_tree_plugin(exe_dir); is_file(p)) return p;
  return "";
}

std::string vcard_plugin_places(const std::string& exe_dir) {
  return installed_plugin(exe_dir) + " or " + build_tree_plugin(exe_dir);
}

std::string installed_data_dir(const std::string& exe_dir) {
  return normal(exe_dir + "/" + kBinToData);
}

}  // namespace xrunlab
