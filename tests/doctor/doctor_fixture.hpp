// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A fixture tree of tests/fixtures/doctor/NAME copied into a temporary folder (symbolic links
// kept as links), so a test can set the modes git does not keep (dev/cpu_dma_latency's), and
// the DoctorRoots that point into it.
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "engine/doctor/snapshot.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab::testing_support {

class DoctorFixture {
 public:
  explicit DoctorFixture(const std::string& name) : dir_("doctor-" + name) {
    namespace fs = std::filesystem;
    const fs::path src = fs::path(XRUNLAB_FIXTURES_DIR) / "doctor" / name;
    if (!fs::is_directory(src)) throw std::runtime_error("no fixture tree " + src.string());
    fs::copy(src, dir_.path(), fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  }
  // chmod of a file in the copy ("dev/cpu_dma_latency", 0666).
  void chmod(const std::string& rel, mode_t mode) const {
    if (::chmod(dir_.file(rel).c_str(), mode) != 0) throw std::runtime_error("chmod " + rel);
  }
  DoctorRoots roots() const {
    DoctorRoots r;
    r.proc = dir_.file("proc");
    r.sys = dir_.file("sys");
    r.etc = dir_.file("etc");
    r.dev = dir_.file("dev");
    r.boot = dir_.file("boot");
    return r;
  }
  std::string root() const { return dir_.str(); }

 private:
  TempDir dir_;
};

}  // namespace xrunlab::testing_support
