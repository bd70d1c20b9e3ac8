#include "engine/report/plots.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>

#include "engine/report/plot_data.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"

#ifndef XRUNLAB_SOURCE_SCRIPTS_DIR
#error "XRUNLAB_SOURCE_SCRIPTS_DIR is set by CMake"
#endif

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

// One script per plot (gnuplot -c passes at most 9 arguments); each draws <name>.png.
constexpr const char* kPlots[] = {"timeline", "histogram"};
constexpr const char* kReplacedPlots[] = {"delay.png", "cpu.png"};
constexpr const char* kMarkerScript = "timeline.gp";  // find_script_dir looks for this one
constexpr const char* kInstallHint =
    "install gnuplot-nox (apt-get install --no-install-recommends gnuplot-nox)";
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

// Calls row(cells) for every data line of a CSV written by engine/report/report_csv.cpp, with the
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
  std::vector<int> clients;                  // every client index in timeseries.csv
  std::map<int64_t, uint64_t> delay_counts;  // delay histogram of all clients together
  std::map<int64_t, std::map<int64_t, uint64_t>> delay_by_client;  // client index -> histogram
  size_t delay_points = 0, histogram_points = 0, system_points = 0;
};

std::string join(const std::vector<int>& v) {
  std::string out;
  for (int i : v) out += (out.empty() ? "" : " ") + std::to_string(i);
  return out;
}

bool parse_int(std::string_view s, int64_t& out) {
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return !s.empty() && ec == std::errc() && ptr == end;
}

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
  error = scan_csv(histogram, {"client", "metric", "value_us", "count"},
                   [&](const std::vector<std::string_view>& c) {
                     int64_t client = 0, value = 0, count = 0;
                     if (c[1] != "delay" || !parse_int(c[0], client) || !parse_int(c[2], value) ||
                         !parse_int(c[3], count) || count <= 0) {
                       return;
                     }
                     ++d.histogram_points;
                     d.delay_counts[value] += static_cast<uint64_t>(count);
                     d.delay_by_client[client][value] += static_cast<uint64_t>(count);
                   });
  if (!error.empty()) return error;
  d.clients.assign(clients.begin(), clients.end());
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
  std::vector<fs::path> scripts;
  for (const char* name : kPlots) {
    const fs::path script = fs::absolute(fs::path(script_dir) / (std::string(name) + ".gp"), ec);
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
  const std::string timeseries = (dir / "timeseries.csv").string();
  const std::string histogram = (dir / "histogram.csv").string();
  PlotData data;
  result.error = scan_data(timeseries, histogram, data);
  if (!result.error.empty()) return result;
  // run.json adds policy, loads, spare time and xrun times; without it the plots still work.
  const PlotContext context = read_plot_context((dir / "run.json").string());

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
  const std::vector<int> picked_clients = pick_clients(data.clients);
  // Block 0: all clients together; then one block per drawn client (histogram.gp's index).
  std::vector<std::map<int64_t, uint64_t>> histograms = {data.delay_counts};
  for (int c : picked_clients) {
    const auto it = data.delay_by_client.find(c);
    histograms.push_back(it == data.delay_by_client.end() ? std::map<int64_t, uint64_t>{}
                                                          : it->second);
  }
  const std::string xruns = (tmp / "xruns.dat").string();
  const std::string glitches = (tmp / "glitches.dat").string();
  const std::string histogram_blocks = (tmp / "histogram.dat").string();
  try {
    write_file_atomic(xruns, format_xrun_times(context.xruns_s));
    write_file_atomic(glitches, format_xrun_times(context.glitches_s));
    write_file_atomic(
        histogram_blocks,
        format_histogram_blocks(histograms, histogram_max_gap_us(context.resolution_us)));
  } catch (const std::exception& e) {
    result.error = e.what();
    fs::remove_all(tmp, ec);
    return result;
  }

  auto usecs = [](double v) { return std::isfinite(v) && v > 0 ? fmt::format("{:.3f}", v) : "0"; };
  const double period = options.period_us > 0 ? options.period_us : context.period_us;
  std::string title = options.title.empty() ? run_dir : options.title;
  if (const std::string more = context_title(context); !more.empty()) title += "\n" + more;
  const std::string picked = join(picked_clients);
  const std::string nclients = std::to_string(data.clients.size());
  const DelaySpread spread = delay_spread(data.delay_counts);

  const std::vector<std::vector<std::string>> args = {
      {timeseries, xruns, (tmp / "timeline.png").string(), title, usecs(period), picked,
       fmt::format("{} {} {} {}", data.clients.size(), data.delay_points, data.system_points,
                   context.xruns_known ? static_cast<int64_t>(context.xruns_s.size()) : -1),
       glitches,
       std::to_string(context.glitches_known ? static_cast<int64_t>(context.glitches_s.size())
                                             : -1)},
      {histogram_blocks, (tmp / "histogram.png").string(), title, usecs(period),
       usecs(context.spare_us), picked, nclients, std::to_string(data.histogram_points),
       fmt::format("{} {}", delay_axis_needs_log(spread) ? 1 : 0, usecs(context.resolution_us))},
  };
  for (size_t i = 0; i < scripts.size(); ++i) {
    std::vector<std::string> argv = {
        *gnuplot,
        "-d",  // no ~/.gnuplot or system init file: the same plots for everyone
        "-c",
        scripts[i].string(),
    };
    argv.insert(argv.end(), args[i].begin(), args[i].end());
    const std::string error = run_gnuplot(argv, options.timeout);
    if (!error.empty() && result.error.empty()) {
      result.error = fmt::format("{}.gp: {}", kPlots[i], error);
    }
  }

  // Whatever gnuplot finished is kept, even after an error in another plot.
  for (const char* name : kPlots) {
    const std::string file = std::string(name) + ".png";
    std::string content;
    if (!read_file((tmp / file).string(), content) || !is_png(content)) {
      if (result.error.empty()) result.error = fmt::format("gnuplot did not draw {}", file);
      continue;
    }
    const std::string target = (fs::path(run_dir) / "plots" / file).string();
    try {
      write_file_atomic(target, content);
      result.written.push_back(target);
    } catch (const std::exception& e) {
      if (result.error.empty()) result.error = e.what();
    }
  }
  fs::remove_all(tmp, ec);
  // Plots of older xrunlab versions, replaced by timeline.png, would be stale next to them.
  if (result.written.size() == std::size(kPlots)) {
    for (const char* stale : kReplacedPlots) fs::remove(plots / stale, ec);
  }
  return result;
}

std::string find_script_dir(const std::string& argv0) {
  auto has_script = [](const fs::path& d) {
    std::error_code ec;
    return !d.empty() && fs::is_regular_file(d / kMarkerScript, ec);
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
