// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/run_folder.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/output_error.hpp"
#include "engine/report/report_csv.hpp"
#include "engine/report/report_html.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/seconds_file.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

// A name inside the run folder: relative, without "..".
bool inside_folder(const std::string& name) {
  const fs::path p(name);
  if (name.empty() || p.is_absolute()) return false;
  for (const fs::path& part : p) {
    if (part == "..") return false;
  }
  return true;
}

std::string read_or_throw(const std::string& path) {
  std::string why;
  std::optional<std::string> text = read_file(path, &why);
  if (!text) throw Error(ExitCode::kUsage, why);
  return std::move(*text);
}

}  // namespace

std::vector<RunFile> render_run_files(const RunResult& r) {
  std::vector<RunFile> files = {
      {"run.json", to_json(r).dump(2) + "\n"},
      {"timeseries.csv", format_timeseries_csv(r)},
      {"histogram.csv", format_histogram_csv(r)},
      {"summary.txt", format_summary(r)},
  };
  if (!r.seconds_appended) files.push_back({kSecondsFileName, format_seconds_file(r)});
  return files;
}

std::vector<RunFile> render_checkpoint_files(const RunResult& r) {
  return {
      {"run.json", to_json(r).dump(2) + "\n"},
      {"histogram.csv", format_histogram_csv(r)},
      {"summary.txt", format_summary(r)},
  };
}

RenderedPlots render_plots(const RunResult& r, const std::string& scripts_dir, PlotFormat format) {
  PlotOptions options;
  options.format = format;
  PlotResult p = draw_plots(r, scripts_dir, options);
  RenderedPlots out;
  out.files = std::move(p.files);
  if (!p.error.empty()) out.warnings.push_back("plots: " + p.error);
  return out;
}

void write_run_files(const std::string& run_dir, const std::vector<RunFile>& files) {
  // run.json last: a run.json renamed into place says every file beside it is at least as new.
  std::vector<const RunFile*> order;
  for (const RunFile& f : files) {
    if (f.name != "run.json") order.push_back(&f);
  }
  for (const RunFile& f : files) {
    if (f.name == "run.json") order.push_back(&f);
  }
  for (const RunFile* f : order) {
    const fs::path path = fs::path(run_dir) / f->name;
    if (!inside_folder(f->name)) {
      throw Error(
          ExitCode::kOutput,
          fmt::format("cannot write '{}': not a file inside the run folder", path.string()));
    }
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) throw OutputError("create folder", path.parent_path().string(), ec.value());
    write_output_file(path.string(), f->bytes);
  }
}

PlotFormat run_plot_format(const RunResult& r) {
  if (!r.spec) return PlotFormat::kPng;
  return parse_plot_format(r.spec->plot_format).value_or(PlotFormat::kPng);
}

void write_run_folder(RunResult& r, const std::string& run_dir, bool plots,
                      const std::string& scripts_dir, std::optional<PlotFormat> format) {
  if (plots) {
    RenderedPlots p = render_plots(r, scripts_dir, format.value_or(run_plot_format(r)));
    r.warnings.insert(r.warnings.end(), p.warnings.begin(), p.warnings.end());
    // The plots before the data files, so that the warning of plots that did not fit is in them.
    // A full disk leaves no plot: those written go again, making room for the data files.
    size_t written = 0;
    try {
      for (const RunFile& f : p.files) {
        write_run_files(run_dir, {f});
        ++written;
      }
    } catch (const OutputError& e) {
      if (!e.disk_full()) throw;
      for (size_t i = 0; i < written; ++i) {
        std::error_code ec;
        fs::remove(fs::path(run_dir) / p.files[i].name, ec);
      }
      std::error_code ec;
      fs::remove(fs::path(run_dir) / "plots", ec);  // only when empty
      r.warnings.push_back("plots: none written: " + std::string(e.what()));
    }
  }
  // report.html embeds the plots as the folder now has them (none after a full disk), and goes
  // before run.json like every other file.
  std::vector<RunFile> files = render_run_files(r);
  const PlotFormat f = format.value_or(run_plot_format(r));
  files.push_back({kReportHtmlFile,
                   format_report_html(r, read_report_plots(run_dir, f),
                                      plots ? "" : "the run was asked for none (--no-plots)")});
  write_run_files(run_dir, files);
}

RunResult load_run_folder(const std::string& dir) {
  const std::string json_path = (fs::path(dir) / "run.json").string();
  const nlohmann::json j =
      nlohmann::json::parse(read_or_throw(json_path), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw Error(ExitCode::kUsage, json_path + ": not valid JSON");
  std::string why;
  std::optional<RunResult> r = run_result_from_json(j, &why);
  if (!r) throw Error(ExitCode::kUsage, json_path + ": " + why);

  const std::string csv_path = (fs::path(dir) / "histogram.csv").string();
  std::optional<std::map<int, ClientHistograms>> histograms =
      parse_histogram_csv(read_or_throw(csv_path), &why);
  if (!histograms) throw Error(ExitCode::kUsage, csv_path + ": " + why);
  for (auto& [index, h] : *histograms) {
    ClientResult* client = nullptr;
    for (ClientResult& c : r->client_results) {
      if (c.index == index) client = &c;
    }
    if (client == nullptr) {
      throw Error(ExitCode::kUsage,
                  fmt::format("{}: client {} is not in run.json", csv_path, index));
    }
    client->delay = std::move(h.delay);
    client->delay_dll = std::move(h.delay_dll);
    client->duration = std::move(h.duration);
    client->cycle = std::move(h.cycle);
  }
  if (r->seconds_appended) {  // schema 2: the rows are in seconds.jsonl
    const std::string rows_path = (fs::path(dir) / kSecondsFileName).string();
    std::optional<std::string> text = read_file(rows_path, &why);
    if (!text) {
      if (r->client_rows_flushed > 0 || r->system_flushed.n > 0) {
        throw Error(ExitCode::kUsage,
                    fmt::format("{} (run.json counts {} client and {} system rows in it)", why,
                                r->client_rows_flushed, r->system_flushed.n));
      }
      r->client_rows_flushed = 0;
      r->system_flushed = SystemSums{};
      return std::move(*r);
    }
    for (std::string& w : put_seconds_rows(*r, parse_seconds_file(*text, rows_path), rows_path)) {
      r->warnings.push_back(std::move(w));
      // Written again whole when the folder is rendered (the killed run's janitor): without the
      // half line.
      r->seconds_appended = false;
    }
  }
  return std::move(*r);
}

PlotResult replot_run_folder(const std::string& run_dir, const std::string& scripts_dir,
                             PlotFormat format) {
  PlotOptions options;
  options.format = format;
  const RunResult r = load_run_folder(run_dir);
  PlotResult p = draw_plots(r, scripts_dir, options);
  write_run_files(run_dir, p.files);
  // The report embeds the plots just drawn.
  write_run_files(run_dir,
                  {{kReportHtmlFile, format_report_html(r, read_report_plots(run_dir, format))}});
  if (p.files.size() == std::size(kPlotFiles)) {
    for (const char* stale : kReplacedPlotFiles) {
      std::error_code ec;
      fs::remove(fs::path(run_dir) / stale, ec);
    }
  }
  return p;
}

}  // namespace xrunlab
