// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/app/commands.hpp"

#include <dirent.h>
#include <fmt/core.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/output_error.hpp"
#include "engine/base/text.hpp"
#include "engine/export/exports.hpp"
#include "engine/report/multirun.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/report/run_record.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRecordsSuffix = ".records.json";

// A file the user named (or one this command made); Error(kUsage) when it cannot be read.
std::string read_text(const std::string& path) {
  std::optional<std::string> text = read_file(path);
  if (!text) throw Error(ExitCode::kUsage, "cannot read '" + path + "'");
  return std::move(*text);
}

}  // namespace

std::vector<RunRecord> read_records_file(const std::string& path) {
  const auto j = nlohmann::json::parse(read_text(path), nullptr, false);
  std::string why = "not an xrunlab records file (from xrunlab import)";
  std::optional<std::vector<RunRecord>> records;
  if (!j.is_discarded()) records = records_from_file_json(j, &why);
  if (!records) throw Error(ExitCode::kUsage, path + ": " + why);
  return std::move(*records);
}

namespace {

// Every run below the paths: run folders (run.json) and imported records files.
std::vector<RunRecord> collect(const std::vector<std::string>& paths) {
  std::vector<RunRecord> records;
  std::vector<std::string> roots;
  for (const std::string& p : paths) {
    if (!fs::exists(p)) throw Error(ExitCode::kUsage, "'" + p + "' does not exist");
    if (fs::is_regular_file(p)) {
      if (!ends_with(p, kRecordsSuffix)) {
        throw Error(ExitCode::kUsage, "'" + p + "': give run folders or " +
                                          std::string(kRecordsSuffix) +
                                          " files (xrunlab import makes those)");
      }
      auto r = read_records_file(p);
      records.insert(records.end(), r.begin(), r.end());
      continue;
    }
    roots.push_back(p);
    // Imported records files, without descending into run folders (they hold none).
    for (auto it = fs::recursive_directory_iterator(p); it != fs::recursive_directory_iterator();
         ++it) {
      if (it->is_directory() && fs::exists(it->path() / "run.json")) {
        it.disable_recursion_pending();
      } else if (it->is_regular_file() && ends_with(it->path().string(), kRecordsSuffix)) {
        auto r = read_records_file(it->path().string());
        records.insert(records.end(), r.begin(), r.end());
      }
    }
  }
  for (const std::string& dir : find_run_folders(roots)) {
    std::string why;
    auto rec = read_run_folder(dir, &why);
    if (!rec) {
      std::cerr << "xrunlab: warning: skipped: " << why << "\n";
      continue;
    }
    records.push_back(*rec);
  }
  if (records.empty()) {
    throw Error(ExitCode::kUsage,
                "no runs found under " + fmt::format("{}", fmt::join(paths, ", ")) +
                    " (give result folders, run folders or imported .records.json files)");
  }
  return records;
}

void emit(std::string text, const std::string& write_path) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  std::cout << text;
  if (!write_path.empty()) {
    write_output_file(write_path, text);
    std::cerr << "xrunlab: wrote " << write_path << "\n";
  }
}

int cmd_plot(const ReportOptions& ro, const std::string& self_exe) {
  int rc = 0;
  for (const std::string& dir : ro.paths) {
    if (!fs::exists(dir + "/run.json")) {
      throw Error(ExitCode::kUsage, "'" + dir + "' is not a run folder (no run.json)");
    }
    const PlotResult p = replot_run_folder(dir, find_script_dir(self_exe), ro.plot_format);
    for (const RunFile& f : p.files) std::cout << (fs::path(dir) / f.name).string() << "\n";
    if (!p.error.empty()) {
      std::cerr << "xrunlab: error: " << dir << ": " << p.error << "\n";
      rc = static_cast<int>(ExitCode::kMissingProgram);
    }
  }
  return rc;
}

int cmd_summary(const ReportOptions& ro) {
  const std::vector<RunRecord> runs = collect(ro.paths);
  switch (ro.format) {
    case ReportFormat::kJson:
      emit(summary_json(runs, ro.by).dump(2) + "\n", ro.write);
      break;
    case ReportFormat::kCsv:
      emit(format_summary_csv(runs), ro.write);
      break;
    case ReportFormat::kText: {
      std::string where = ro.write;
      if (where.empty() && fs::is_directory(ro.paths.front())) {
        where = ro.paths.front() + "/SUMMARY";
      }
      emit(format_summary_file(runs, ro.by), where);
      break;
    }
  }
  return 0;
}

int cmd_compare(const ReportOptions& ro, const std::string& self_exe) {
  const std::vector<RunRecord> runs = collect(ro.paths);
  const GroupBy by = ro.by;
  switch (ro.format) {
    case ReportFormat::kJson:
      std::cout << compare_json(runs, by).dump(2) << "\n";
      break;
    case ReportFormat::kCsv:
      std::cout << format_compare_csv(runs, by);
      break;
    case ReportFormat::kText:
      std::cout << format_compare(runs, by);
      break;
  }
  // compare.png (compare.svg with --plot-format svg), drawn by gnuplot from a data file
  // (scripts/compare.gp).
  const std::string drawn = plot_file("compare", ro.plot_format);
  const std::string target = ro.write.empty() ? drawn : ro.write;
  // A private folder for gnuplot's files: mkdtemp's name, which nobody can create first.
  std::error_code tec;
  fs::path tmp_base = fs::temp_directory_path(tec);
  if (tec) tmp_base = "/tmp";
  std::string tmpl = (tmp_base / "xrunlab-compare-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw OutputError("create folder", tmpl, errno);
  const fs::path tmp = tmpl;
  const std::string data = write_compare_data(runs, tmp.string(), by);
  const std::string script = find_script_dir(self_exe) + "/compare.gp";
  int rc = 0;
  if (!find_program("gnuplot")) {
    std::cerr << "xrunlab: error: gnuplot not found: install gnuplot-nox (apt-get install "
                 "--no-install-recommends gnuplot-nox); the text comparison above is complete\n";
    rc = static_cast<int>(ExitCode::kMissingProgram);
  } else {
    SpawnSpec s;
    s.argv = gnuplot_argv(
        "gnuplot", script, ro.plot_format,
        {data, (tmp / drawn).string(), group_by_name(by == GroupBy::kRun ? GroupBy::kLabel : by)});
    s.output_path = (tmp / "gnuplot.log").string();
    Child g = Child::spawn(s);
    g.wait_for(std::chrono::seconds(60));
    if (fs::exists(tmp / drawn)) {
      write_output_file(target, read_text((tmp / drawn).string()));
      std::cerr << "xrunlab: wrote " << target << "\n";
    } else {
      std::cerr << "xrunlab: error: gnuplot drew no " << drawn << ": "
                << read_text((tmp / "gnuplot.log").string());
      rc = static_cast<int>(ExitCode::kRunFailed);
    }
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return rc;
}

int cmd_import(const ReportOptions& ro) {
  // Every file is read and checked before anything is written: a refused file (not a jack_test
  // summary, a value that cannot be right) is bad input, the message names the file, line and
  // field, and no records file is written, not even those of the files before it.
  std::vector<std::vector<RunRecord>> imported;
  for (const std::string& file : ro.paths) {
    std::string why;
    imported.push_back(import_jack_test(read_text(file), file, &why));
    if (imported.back().empty()) {
      throw Error(ExitCode::kUsage,
                  "import: " + (why.empty() ? file + ": nothing to import" : why));
    }
  }
  const std::string dir = ro.write.empty() ? "results/imported" : ro.write;
  make_dirs(dir);
  for (size_t i = 0; i < ro.paths.size(); ++i) {
    const std::string& file = ro.paths[i];
    const nlohmann::json out = records_file_json(imported[i], file);
    const std::string target = dir + "/" + fs::path(file).filename().string() + kRecordsSuffix;
    write_output_file(target, out.dump(2) + "\n");
    std::cout << fmt::format("{}: {} run(s) imported -> {}\n", file, imported[i].size(), target);
  }
  return 0;
}

// `xrunlab export`: every document made before any is written (a run that cannot be read, an
// origin KCIDB refuses, stop it before a file changes); each file written atomically.
int cmd_export(const ExportCommandOptions& eo) {
  const std::vector<ExportRun> runs = read_export_runs(eo.paths);
  std::optional<nlohmann::ordered_json> kcidb;
  std::optional<SquadFiles> squad;
  std::optional<std::string> openmetrics;
  if (!eo.kcidb.empty()) kcidb = kcidb_json(runs, eo.options);
  if (!eo.squad.empty()) squad = squad_files(runs, eo.options);
  if (!eo.openmetrics.empty()) openmetrics = openmetrics_text(runs);
  auto wrote = [](const std::string& path) { std::cerr << "xrunlab: wrote " << path << "\n"; };
  if (kcidb) {
    write_output_file(eo.kcidb, kcidb->dump(2) + "\n");
    wrote(eo.kcidb);
  }
  if (squad) {
    make_dirs(eo.squad);
    const std::pair<const char*, const nlohmann::ordered_json*> files[] = {
        {"tests.json", &squad->tests},
        {"metrics.json", &squad->metrics},
        {"metadata.json", &squad->metadata}};
    for (const auto& [name, j] : files) {
      const std::string path = (fs::path(eo.squad) / name).string();
      write_output_file(path, j->dump(2) + "\n");
      wrote(path);
    }
  }
  if (openmetrics) {
    write_output_file(eo.openmetrics, *openmetrics);
    wrote(eo.openmetrics);
  }
  // As `xrunlab run --fail-if`: exit code 10 when a completed run fails a condition.
  size_t failed = 0;
  for (const ExportRun& e : runs) {
    if (run_verdict(e.run, export_figures(e.run, eo.options.fail_if)) == FigureVerdict::kFail) {
      ++failed;
    }
  }
  std::cout << fmt::format("{} run(s) exported", runs.size());
  if (!eo.options.fail_if.empty()) std::cout << fmt::format(", {} failing --fail-if", failed);
  std::cout << "\n";
  return failed > 0 ? static_cast<int>(ExitCode::kThreshold) : 0;
}

}  // namespace

int run_report_command(const Command& cmd, const std::string& self_exe) {
  switch (cmd.kind) {
    case Command::Kind::kPlot:
      return cmd_plot(cmd.report, self_exe);
    case Command::Kind::kSummary:
      return cmd_summary(cmd.report);
    case Command::Kind::kCompare:
      return cmd_compare(cmd.report, self_exe);
    case Command::Kind::kImport:
      return cmd_import(cmd.report);
    case Command::Kind::kExport:
      return cmd_export(cmd.exports);
    default:
      return static_cast<int>(ExitCode::kUsage);
  }
}

RepeatCampaign repeat_campaign(const Command& cmd, const std::string& self_exe) {
  RepeatCampaign r;
  CampaignOptions& co = r.options;
  co.dir = cmd.run.output + "/campaigns/" + cmd.run.label;
  co.quiet = cmd.run.quiet;
  co.self_exe = self_exe;
  co.file = "(xrunlab run --repeat)";
  co.fail_if = cmd.fail_if;
  co.junit = cmd.junit;
  co.lava = cmd.lava;
  r.plan = plan_single_case(cmd.run.label, cmd.repeat_run_args, cmd.run.repeat, check_run_args);
  return r;
}

std::string preset_file(const std::string& name, const std::string& self_exe) {
  const std::string scripts = find_script_dir(self_exe);
  // Presets are code run as root under sudo (their cmd: loads): only from the shipped scripts,
  // never from a relative scripts/campaigns of whatever folder the command runs in.
  if (scripts.empty()) {
    throw Error(ExitCode::kMissingProgram,
                fmt::format("--preset '{}': the shipped scripts folder (share/xrunlab/scripts "
                            "beside the binary, or the source tree's scripts/) is not found; "
                            "reinstall xrunlab or give the campaign file itself",
                            name));
  }
  const std::string dir = scripts + "/campaigns";
  std::vector<std::string> names;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string f = e->d_name;
      if (f.size() > 5 && f.compare(f.size() - 5, 5, ".toml") == 0) {
        names.push_back(f.substr(0, f.size() - 5));
      }
    }
    ::closedir(d);
  }
  std::sort(names.begin(), names.end());
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw Error(ExitCode::kUsage,
                fmt::format("--preset '{}': no such preset in {} (presets: {})", name, dir,
                            names.empty() ? std::string("none found")
                                          : fmt::format("{}", fmt::join(names, ", "))));
  }
  return dir + "/" + name + ".toml";
}

}  // namespace xrunlab
