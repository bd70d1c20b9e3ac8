// SPDX-License-Identifier: GPL-2.0-or-later
// A full disk under --output: a small private tmpfs whose space the test
// takes away at a chosen stage (before the run, in the measurement window, before the final
// write, at the plots). The run stops cleanly (exit 6, one line naming the file and "the disk is
// full", nothing left running) or degrades where README says it does (the plots), and every
// run.json left parses and is either final or marked incomplete: never a torn file, never a
// temporary one left. Root only (mount); every mount is undone on every path (RAII).
#include <fcntl.h>
#include <ftw.h>
#include <sys/mount.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/report_html.hpp"
#include "engine/report/run_folder.hpp"
#include "tests/support/run_harness.hpp"
#include "tests/support/sample_result.hpp"

#ifndef XRUNLAB_SOURCE_SCRIPTS_DIR
#error "XRUNLAB_SOURCE_SCRIPTS_DIR is set by CMake"
#endif

namespace xrunlab {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

// A private tmpfs of `bytes`, unmounted (lazily, so an open file cannot keep it) when it goes.
class SmallDisk {
 public:
  explicit SmallDisk(uint64_t bytes) {
    const std::string options = "size=" + std::to_string(bytes) + ",mode=0755";
    if (::mount("xrunlab-test", dir_.str().c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                options.c_str()) != 0) {
      why_ = "mount -t tmpfs: " + errno_text(errno);
    }
  }
  SmallDisk(const SmallDisk&) = delete;
  SmallDisk& operator=(const SmallDisk&) = delete;
  ~SmallDisk() {
    if (why_.empty()) ::umount2(dir_.str().c_str(), MNT_DETACH);
  }
  const std::string& why_not() const { return why_; }
  std::string str() const { return dir_.str(); }
  std::string file(const std::string& rel) const { return dir_.file(rel); }

  // Takes every byte left (a file written until ENOSPC); returns the bytes it took.
  uint64_t fill() const {
    const int fd = ::open(file("filler").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return 0;
    static const std::string block(4096, 'f');
    uint64_t taken = 0;
    for (;;) {
      const ssize_t n = ::write(fd, block.data(), block.size());
      if (n <= 0) break;
      taken += static_cast<uint64_t>(n);
    }
    // A last partial page.
    for (ssize_t n; (n = ::write(fd, block.data(), 1)) == 1;) ++taken;
    ::close(fd);
    return taken;
  }
  uint64_t free_bytes() const {
    struct statvfs st {};
    return ::statvfs(str().c_str(), &st) == 0 ? uint64_t{st.f_bavail} * st.f_frsize : 0;
  }

 private:
  TempDir dir_{"disk"};
  std::string why_;
};

#define NEED_SMALL_DISK(disk)                                          \
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root"; \
  if (!(disk).why_not().empty()) GTEST_SKIP() << (disk).why_not()

std::vector<std::string> files_under(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file()) out.push_back(it->path().string());
  }
  return out;
}

// No temporary file of write_file_atomic is left, and every run.json parses and is final or
// marked incomplete. Returns the statuses seen, by run.json path.
std::map<std::string, std::string> expect_no_torn_file(const std::string& dir) {
  std::map<std::string, std::string> statuses;
  for (const std::string& f : files_under(dir)) {
    EXPECT_EQ(f.find(".tmp."), std::string::npos) << "a temporary file is left: " << f;
    if (fs::path(f).filename() != "run.json") continue;
    const json j = json::parse(read_text_or_empty(f), nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(j.is_object()) << f << " is not JSON:\n" << read_text_or_empty(f);
    if (!j.is_object()) continue;
    const std::string status = j.value("status", "");
    const std::set<std::string> known = {"completed", "failed", "interrupted", "incomplete"};
    EXPECT_TRUE(known.count(status)) << f << ": status '" << status << "'";
    statuses[f] = status;
  }
  return statuses;
}

// The last line the engine printed on stderr (its output file has stdout too: the error is the
// last line of it).
std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

std::vector<std::string> vcard_run(const SmallDisk& disk, const std::string& label,
                                   const std::string& duration) {
  return {"run", "--backend",  "vcard",    "--clients",     "2",      "--ports",
          "1",   "--period",   "1024",     "--duration",    duration, "--label",
          label, "--no-plots", "--output", disk.file("out")};
}

void expect_disk_full_exit(const XrunlabRun& r, const std::string& out) {
  EXPECT_EQ(r.exit_code, static_cast<int>(ExitCode::kOutput)) << r.log();
  const std::string line = last_line(r.log());
  EXPECT_TRUE(line.rfind("xrunlab: error: cannot ", 0) == 0 ||
              line.rfind("xrunlab: failed: cannot ", 0) == 0)
      << line;
  EXPECT_NE(line.find("'" + out + "/"), std::string::npos) << "names the file: " << line;
  EXPECT_NE(line.find("the disk is full"), std::string::npos) << line;
  EXPECT_NE(line.find("--output"), std::string::npos) << "says what to do: " << line;
  expect_nothing_left(r);
}

// No room at all from the start: refused before the server starts.
TEST(DiskFull, AtTheStartTheRunStopsBeforeAnythingRuns) {
  SmallDisk disk(1 << 20);
  NEED_SMALL_DISK(disk);
  ASSERT_GT(disk.fill(), 0u);
  XrunlabRun r = start(vcard_run(disk, "full-start", "2"));
  finish(r);
  expect_disk_full_exit(r, disk.file("out"));
  EXPECT_EQ(r.log().find("measuring"), std::string::npos) << "nothing was measured:\n" << r.log();
  EXPECT_EQ(processes_mentioning("jackd -n " + r.server_name()), std::vector<std::string>{});
  expect_no_torn_file(disk.str());
}

// The disk fills in the window: the next checkpoint finds it full and the run stops there (not at
// the planned end, 30 s later); its last checkpoint stays, marked incomplete.
TEST(DiskFull, InTheWindowTheRunStopsAtTheNextCheckpoint) {
  SmallDisk disk(8 << 20);
  NEED_SMALL_DISK(disk);
  XrunlabRun r = start(vcard_run(disk, "full-window", "30"));
  wait_until_measuring(r);
  // The window's first checkpoint (1.5 s in), as opposed to the one written at the start.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  std::string run_json;
  while (std::chrono::steady_clock::now() < deadline) {
    for (const std::string& f : files_under(disk.file("out"))) {
      if (fs::path(f).filename() != "run.json") continue;
      const json j = json::parse(read_text_or_empty(f), nullptr, false);
      if (j.is_object() &&
          j.value("status_detail", "").rfind("checkpoint during the run", 0) == 0) {
        run_json = f;
      }
    }
    if (!run_json.empty()) break;
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_FALSE(run_json.empty()) << r.log();
  ASSERT_GT(disk.fill(), 0u);
  const auto filled = std::chrono::steady_clock::now();
  finish(r);
  // The next checkpoint is 5 s after the first; the planned end 28.5 s after it.
  EXPECT_LT(std::chrono::steady_clock::now() - filled, 20s) << "the run went on:\n" << r.log();
  EXPECT_NE(r.log().find("xrunlab: stopping the run: cannot write '"), std::string::npos)
      << r.log();
  expect_disk_full_exit(r, disk.file("out"));
  const auto statuses = expect_no_torn_file(disk.str());
  ASSERT_EQ(statuses.count(run_json), 1u);
  EXPECT_EQ(statuses.at(run_json), "incomplete");
}

// The disk fills after the window began and before its end (a 1 s window has no checkpoint):
// the final files do not fit; the run.json written at the start stays, marked incomplete.
TEST(DiskFull, AtTheFinalWriteTheStartingRunJsonStaysMarkedIncomplete) {
  SmallDisk disk(8 << 20);
  NEED_SMALL_DISK(disk);
  XrunlabRun r = start(vcard_run(disk, "full-end", "1"));
  wait_until_measuring(r);
  ASSERT_GT(disk.fill(), 0u);
  finish(r);
  expect_disk_full_exit(r, disk.file("out"));
  const auto statuses = expect_no_torn_file(disk.str());
  ASSERT_EQ(statuses.size(), 1u) << r.log();
  EXPECT_EQ(statuses.begin()->second, "incomplete");
  const json j = json::parse(read_text_or_empty(statuses.begin()->first));
  EXPECT_EQ(j["status_detail"].get<std::string>().rfind("written as the run started", 0), 0u)
      << j["status_detail"];
}

// The plots degrade: on a disk with room for the data files but not for the plots, none is left
// (those written are removed again), the data files are written, and they say why.
TEST(DiskFull, PlotsThatDoNotFitAreLeftOutAndSaidSo) {
  if (!find_program("gnuplot")) GTEST_SKIP() << "gnuplot is not installed";
  RunResult r = sample_result();
  r.schema_version = 1;
  r.spec.emplace().label = "plots";
  r.backend.name = "dummy";
  finalize(r);
  const RenderedPlots plots = render_plots(r, XRUNLAB_SOURCE_SCRIPTS_DIR);
  ASSERT_TRUE(plots.warnings.empty()) << plots.warnings.front();
  ASSERT_FALSE(plots.files.empty());
  auto pages = [](size_t bytes) { return (bytes + 4095) / 4096; };
  size_t plot_pages = 0;
  for (const RunFile& f : plots.files) plot_pages += pages(f.bytes.size());
  // The data files as they will be written (with the plots' warning: a few hundred bytes more).
  RunResult with_warning = r;
  with_warning.warnings.push_back(std::string(600, 'w'));
  size_t data_pages = 0;
  for (const RunFile& f : render_run_files(with_warning)) data_pages += pages(f.bytes.size());
  // report.html, written after the plots: without them, a page that says so (a page of room
  // to spare for its plot sentences).
  data_pages += pages(format_report_html(with_warning, {}).size()) + 1;
  ASSERT_GT(plot_pages, 2u) << "the plots must not fit in the room left for them";
  SmallDisk disk((data_pages + 2) * 4096);
  NEED_SMALL_DISK(disk);
  const std::string dir = disk.file("run");
  fs::create_directories(dir);
  write_run_folder(r, dir, /*plots=*/true, XRUNLAB_SOURCE_SCRIPTS_DIR);
  ASSERT_FALSE(r.warnings.empty());
  const std::string warning = r.warnings.back();
  EXPECT_EQ(warning.rfind("plots: none written: cannot write '" + dir + "/plots/", 0), 0u)
      << warning;
  EXPECT_NE(warning.find("the disk is full"), std::string::npos) << warning;
  EXPECT_FALSE(fs::exists(dir + "/plots")) << "no plot is left";
  const auto statuses = expect_no_torn_file(dir);
  ASSERT_EQ(statuses.size(), 1u);
  const json j = json::parse(read_text_or_empty(dir + "/run.json"));
  EXPECT_EQ(j["warnings"].back(), warning);
  EXPECT_NE(read_text_or_empty(dir + "/summary.txt").find(warning), std::string::npos);
  for (const char* f : {"timeseries.csv", "histogram.csv", "summary.txt", "run.json"}) {
    EXPECT_TRUE(fs::exists(dir + "/" + f)) << f;
  }
}

}  // namespace
}  // namespace xrunlab
