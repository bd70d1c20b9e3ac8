#include "engine/plots.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "engine/atomic_file.hpp"
#include "engine/process.hpp"

#ifndef XRUNLAB_SOURCE_SCRIPTS_DIR
#error "XRUNLAB_SOURCE_SCRIPTS_DIR is set by CMake"
#endif

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScript = "plot_run.gp";
constexpr const char* kPlotFiles[] = {"delay.png", "histogram.png", "cpu.png"};
constexpr std::string_view kPngSignature = "\x89PNG\r\n\x1a\n";
constexpr size_t kOutputKeep = 8192;  // bytes of gnuplot's output kept for an error message

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return !in.bad();
}

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> cells;
  size_t start = 0;
  for (;;) {
    const size_t end = line.find(sep, start);
    cells.push_back(line.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) return cells;
    start = end + 1;
  }
}

// Calls row(cells) for every data line of a CSV written by engine/report_csv.cpp, with the
// columns named in `names` (in that order). Returns an error text, "" on success.
template <typename Row>
std::string scan_csv(const std::string& path, std::initializer_list<std::string_view> names,
                     Row row) {
  std::string text;
  if (!read_file(path, text)) return fmt::format("cannot read {}: {}", path, std::strerror(errno));
  std::vector<std::string_view> lines = split(text, '\n');
  for (std::string_view& l : lines) {
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  }
  if (lines.empty() || lines.front().empty()) return fmt::format("{} is empty", path);
  const std::vector<std::string_view> header = split(lines.front(), ',');
  std::vector<size_t> index;
  for (std::string_view name : names) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) return fmt::format("{} has no column '{}'", path, name);
    index.push_back(static_cast<size_t>(it - header.begin()));
  }
  const size_t needed = *std::max_element(index.begin(), index.end()) + 1;
  std::vector<std::string_view> picked(index.size());
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string_view> cells = split(lines[i], ',');
    if (cells.size() < needed) continue;  // the empty last line, or a damaged one
    for (size_t k = 0; k < index.size(); ++k) picked[k] = cells[index[k]];
    row(picked);
  }
  return "";
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() < 10 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// What the script needs to know about the data before plotting it.
struct PlotData {
  std::string clients;  // "1 2 3"
  size_t delay_points = 0, histogram_points = 0, system_points = 0;
};

std::string scan_data(const std::string& timeseries, const std::string& histogram, PlotData& d) {
  std::set<int> clients;
  std::string error = scan_csv(timeseries, {"client", "delay_max_us", "user_pct"},
                               [&](const std::vector<std::string_view>& c) {
                                 if (c[0] == "all") {
                                   d.delay_points += c[1].empty() ? 0 : 1;
                                   d.system_points += c[2].empty() ? 0 : 1;
                                 } else if (all_digits(c[0])) {
                                   clients.insert(std::stoi(std::string(c[0])));
                                 }
                               });
  if (!error.empty()) return error;
  error = scan_csv(histogram, {"metric", "value_us"}, [&](const std::vector<std::string_view>& c) {
    d.histogram_points += c[0] == "delay" && !c[1].empty() ? 1 : 0;
  });
  if (!error.empty()) return error;
  for (int c : clients) d.clients += (d.clients.empty() ? "" : " ") + std::to_string(c);
  return "";
}

// The last `max_lines` non-empty lines of gnuplot's output, on one line.
std::string last_lines(const std::string& output, size_t max_lines) {
  std::vector<std::string_view> lines;
  for (std::string_view l : split(output, '\n')) {
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
    if (!l.empty()) lines.push_back(l);
  }
  std::string out;
  for (size_t i = lines.size() > max_lines ? lines.size() - max_lines : 0; i < lines.size(); ++i) {
    out += (out.empty() ? "" : " | ") + std::string(lines[i]);
  }
  return out.empty() ? "no output" : out;
}

// Runs gnuplot to completion (or kills it at the deadline). Returns an error text, "" on
// success (exit status 0).
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

bool is_png(const std::string& content) {
  return content.size() > kPngSignature.size() &&
         std::string_view(content).substr(0, kPngSignature.size()) == kPngSignature;
}

}  // namespace

PlotResult write_plots(const std::string& run_dir, const std::string& script_dir,
                       const PlotOptions& options) {
  PlotResult result;
  std::error_code ec;
  // Absolute paths: gnuplot reads a file name that starts with '<' as a command to run.
  const fs::path dir = fs::absolute(run_dir, ec);
  if (ec || run_dir.empty()) {
    result.error = fmt::format("bad run folder '{}': {}", run_dir, ec.message());
    return result;
  }
  const fs::path script = fs::absolute(fs::path(script_dir) / kScript, ec);
  if (script_dir.empty() || ec || !fs::is_regular_file(script, ec)) {
    result.error = fmt::format(
        "plot script {} not found (set XRUNLAB_SCRIPTS to the folder that holds it)", kScript);
    return result;
  }
  const std::optional<std::string> gnuplot = find_program(options.gnuplot);
  if (!gnuplot) {
    result.error =
        fmt::format("'{}' not found in PATH: no plots (install gnuplot-nox)", options.gnuplot);
    return result;
  }
  const std::string timeseries = (dir / "timeseries.csv").string();
  const std::string histogram = (dir / "histogram.csv").string();
  PlotData data;
  result.error = scan_data(timeseries, histogram, data);
  if (!result.error.empty()) return result;

  const fs::path plots = dir / "plots";
  fs::create_directories(plots, ec);
  if (ec) {
    result.error = fmt::format("cannot create {}: {}", plots.string(), ec.message());
    return result;
  }
  std::string tmp_template = (plots / ".gnuplot-XXXXXX").string();
  if (::mkdtemp(tmp_template.data()) == nullptr) {
    result.error = fmt::format("cannot create a temporary folder in {}: {}", plots.string(),
                               std::strerror(errno));
    return result;
  }
  const fs::path tmp = tmp_template;

  const double period = std::isfinite(options.period_us) ? std::max(0.0, options.period_us) : 0;
  const std::vector<std::string> argv = {
      *gnuplot,
      "-d",  // no ~/.gnuplot or system init file: the same plots for everyone
      "-c",
      script.string(),
      timeseries,
      histogram,
      tmp.string(),
      options.title.empty() ? run_dir : options.title,
      fmt::format("{:.3f}", period),
      data.clients,
      std::to_string(data.delay_points),
      std::to_string(data.histogram_points),
      std::to_string(data.system_points),
  };
  result.error = run_gnuplot(argv, options.timeout);

  // Whatever gnuplot finished is kept, even after an error in a later plot.
  for (const char* name : kPlotFiles) {
    std::string content;
    if (!read_file((tmp / name).string(), content) || !is_png(content)) {
      if (result.error.empty()) result.error = fmt::format("gnuplot did not draw {}", name);
      continue;
    }
    const std::string target = (fs::path(run_dir) / "plots" / name).string();
    try {
      write_file_atomic(target, content);
      result.written.push_back(target);
    } catch (const std::exception& e) {
      if (result.error.empty()) result.error = e.what();
    }
  }
  fs::remove_all(tmp, ec);
  return result;
}

std::string find_script_dir(const std::string& argv0) {
  auto has_script = [](const fs::path& d) {
    std::error_code ec;
    return !d.empty() && fs::is_regular_file(d / kScript, ec);
  };
  if (const char* env = std::getenv("XRUNLAB_SCRIPTS"); env != nullptr && has_script(env)) {
    return env;
  }
  std::vector<fs::path> exe_dirs;
  if (argv0.find('/') != std::string::npos) {
    exe_dirs.push_back(fs::path(argv0).parent_path());
  } else if (!argv0.empty()) {
    if (const auto found = find_program(argv0)) exe_dirs.push_back(fs::path(*found).parent_path());
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) exe_dirs.push_back(self.parent_path());
  for (const fs::path& d : exe_dirs) {
    const fs::path installed = (d / ".." / "share" / "xrunlab" / "scripts").lexically_normal();
    if (has_script(installed)) return installed.string();
  }
  if (has_script(XRUNLAB_SOURCE_SCRIPTS_DIR)) return XRUNLAB_SOURCE_SCRIPTS_DIR;
  return "";
}

}  // namespace xrunlab
