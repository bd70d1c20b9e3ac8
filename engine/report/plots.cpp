// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/plots.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <optional>
#include <string_view>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/install_layout.hpp"
#include "engine/base/text.hpp"
#include "engine/report/plot_data.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/output_folder.hpp"
#include "engine/system/process.hpp"

#ifndef XRUNLAB_SOURCE_SCRIPTS_DIR
#error "XRUNLAB_SOURCE_SCRIPTS_DIR is set by CMake"
#endif

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMarkerScript = "timeline.gp";  // find_script_dir looks for this one
constexpr const char* kInstallHint =
    "install gnuplot-nox (apt-get install --no-install-recommends gnuplot-nox)";
constexpr size_t kOutputKeep = 8192;  // bytes of gnuplot's output kept for an error message

// A private folder for gnuplot's files ($TMPDIR, else /tmp), removed with its content when the
// plots are drawn.
class PlotFolder {
 public:
  // An absolute path ('<' would start a command in a gnuplot file name); nullopt with *why on
  // failure.
  static std::optional<PlotFolder> make(std::string* why) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    base = fs::absolute(base, ec);
    std::string tmpl = (base / "xrunlab-plots-XXXXXX").string();
    if (ec || ::mkdtemp(tmpl.data()) == nullptr) {
      *why = fmt::format("cannot create a temporary folder {}: {}", tmpl, std::strerror(errno));
      return std::nullopt;
    }
    return PlotFolder(tmpl);
  }
  PlotFolder(PlotFolder&& o) noexcept : path_(std::move(o.path_)) { o.path_.clear(); }
  PlotFolder(const PlotFolder&) = delete;
  PlotFolder& operator=(const PlotFolder&) = delete;
  PlotFolder& operator=(PlotFolder&&) = delete;
  ~PlotFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit PlotFolder(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// The last `max_lines` non-empty lines of gnuplot's output, on one line.
std::string last_lines(const std::string& output, size_t max_lines) {
  std::vector<std::string_view> kept;
  for (std::string_view l : lines(output)) {
    while (!l.empty() && l.back() == ' ') l.remove_suffix(1);
    if (!l.empty()) kept.push_back(l);
  }
  std::string out;
  for (size_t i = kept.size() > max_lines ? kept.size() - max_lines : 0; i < kept.size(); ++i) {
    out += (out.empty() ? "" : " | ") + std::string(kept[i]);
  }
  return out.empty() ? "no output" : out;
}

}  // namespace

std::vector<std::string> plot_files(PlotFormat f) {
  std::vector<std::string> out;
  for (const char* png : kPlotFiles) {
    const std::string_view name(png);
    out.push_back(plot_file(name.substr(0, name.rfind('.')), f));
  }
  return out;
}

std::string run_gnuplot(const std::vector<std::string>& argv, std::chrono::seconds timeout) {
  SpawnSpec spec;
  spec.argv = argv;
  spec.capture_output = true;
  Child child;
  try {
    child = Child::spawn(spec);
  } catch (const std::exception& e) {
    return e.what();
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto remaining_ms = [&] {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return std::max<int64_t>(0, left.count());
  };
  std::string output;
  bool eof = false;
  while (!eof && remaining_ms() > 0) {
    pollfd p{child.output_fd(), POLLIN, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(remaining_ms(), 1000)));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    if (n == 0) continue;
    char buf[4096];
    const ssize_t k = ::read(child.output_fd(), buf, sizeof buf);
    if (k > 0) {
      output.append(buf, static_cast<size_t>(k));
      if (output.size() > 2 * kOutputKeep) output.erase(0, output.size() - kOutputKeep);
    } else if (k == 0 || (errno != EINTR && errno != EAGAIN)) {
      eof = true;
    }
  }
  if (!eof || !child.wait_for(std::chrono::milliseconds(std::max<int64_t>(remaining_ms(), 1000)))) {
    child.stop(std::chrono::milliseconds(200));
    return fmt::format("gnuplot did not finish within {} s and was stopped", timeout.count());
  }
  const int status = child.wait_status().value_or(-1);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return "";
  return fmt::format("gnuplot {}: {}", child.describe_exit(), last_lines(output, 3));
}

PlotResult draw_plots(const RunResult& r, const std::string& script_dir,
                      const PlotOptions& options) {
  PlotResult result;
  std::error_code ec;
  std::vector<fs::path> scripts;
  for (const char* file : kPlotFiles) {
    const std::string name = fs::path(file).stem().string();
    const fs::path script = fs::absolute(fs::path(script_dir) / (name + ".gp"), ec);
    if (script_dir.empty() || ec || !fs::is_regular_file(script, ec)) {
      result.error = fmt::format(
          "plot script {}.gp not found (set XRUNLAB_SCRIPTS to the folder that holds it)", name);
      return result;
    }
    scripts.push_back(script);
  }
  const std::optional<std::string> gnuplot = find_program(options.gnuplot);
  if (!gnuplot) {
    result.error = options.gnuplot == "gnuplot"
                       ? fmt::format("gnuplot not found: {}", kInstallHint)
                       : fmt::format("gnuplot ('{}') not found: {}", options.gnuplot, kInstallHint);
    return result;
  }
  const std::optional<PlotFolder> tmp = PlotFolder::make(&result.error);
  if (!tmp) return result;
  const PlotInputs in = plot_inputs(r, tmp->path(), options.format);
  try {
    for (const RunFile& f : in.data) write_file_atomic(tmp->path() + "/" + f.name, f.bytes);
  } catch (const std::exception& e) {
    result.error = e.what();
    return result;
  }
  for (size_t i = 0; i < in.scripts.size(); ++i) {
    // -d: no ~/.gnuplot or system init file, the same plots for everyone.
    const std::string error = run_gnuplot(
        gnuplot_argv(*gnuplot, scripts[i].string(), options.format, in.args[i]), options.timeout);
    if (!error.empty() && result.error.empty()) {
      result.error = fmt::format("{}.gp: {}", in.scripts[i], error);
    }
  }
  // Whatever gnuplot finished is kept, even after an error in another plot.
  const std::vector<std::string> names = plot_files(options.format);
  for (size_t i = 0; i < in.scripts.size(); ++i) {
    const std::string drawn = plot_file(in.scripts[i], options.format);
    std::optional<std::string> content = read_file(tmp->path() + "/" + drawn);
    if (!content || !is_plot_file(*content, options.format)) {
      if (result.error.empty()) result.error = fmt::format("gnuplot did not draw {}", drawn);
      continue;
    }
    result.files.push_back({names[i], std::move(*content)});
  }
  return result;
}

std::string find_script_dir(const std::string& argv0) {
  const bool root = ::geteuid() == 0;
  // Root runs these scripts (and the presets beside them, which can start programs): only from
  // a folder nobody but root and the invoking user can change (output_folder.hpp).
  auto trusted = [&](const fs::path& d) {
    return !root || untrusted_output_folder(d.string(), output_trust()).empty();
  };
  auto has_script = [](const fs::path& d) {
    std::error_code ec;
    return !d.empty() && fs::is_regular_file(d / kMarkerScript, ec);
  };
  if (const char* env = std::getenv("XRUNLAB_SCRIPTS"); env != nullptr && has_script(env)) {
    if (const std::string why = root ? untrusted_output_folder(env, output_trust()) : "";
        !why.empty()) {
      throw Error(ExitCode::kUsage,
                  fmt::format("XRUNLAB_SCRIPTS='{}': refusing its scripts as root: {}; unset "
                              "it or make the folder writable by root and you only",
                              env, why));
    }
    return env;
  }
  std::vector<fs::path> exe_dirs;
  // argv[0] is what the caller says; root believes only the kernel (/proc/self/exe).
  if (!root && argv0.find('/') != std::string::npos) {
    exe_dirs.push_back(fs::path(argv0).parent_path());
  } else if (!root && !argv0.empty()) {
    if (const auto found = find_program(argv0)) exe_dirs.push_back(fs::path(*found).parent_path());
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) exe_dirs.push_back(self.parent_path());
  bool in_build_tree = false;
  for (const fs::path& d : exe_dirs) {
    const fs::path installed =
        (fs::path(installed_data_dir(d.string())) / "scripts").lexically_normal();
    if (has_script(installed) && trusted(installed)) return installed.string();
    in_build_tree = in_build_tree || fs::equivalent(d, XRUNLAB_BUILD_BIN_DIR, ec);
  }
  // Only a program of this build tree reads the source tree: an installed one uses its own copy.
  if (in_build_tree && has_script(XRUNLAB_SOURCE_SCRIPTS_DIR) &&
      trusted(XRUNLAB_SOURCE_SCRIPTS_DIR)) {
    return XRUNLAB_SOURCE_SCRIPTS_DIR;
  }
  return "";
}

}  // namespace xrunlab
