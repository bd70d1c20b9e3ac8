// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/janitor/run_status.hpp"

#include <ctime>
#include <nlohmann/json.hpp>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/report/html_page.hpp"
#include "engine/report/report_html.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/clock.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {
namespace {

constexpr const char* kKilled = run_status_name(RunStatus::kKilled);

// The checkpoint's files, as the model, or nothing when they are not all there and readable.
std::optional<RunResult> load_checkpoint(const std::string& dir) {
  try {
    return load_run_folder(dir);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// summary.txt's Status line made to say `status` (and `detail`), the rest of the file as it is:
// for a folder whose run.json was edited by hand or whose summary.txt the model cannot render
// again. Returns whether the file changed; a folder without summary.txt, or one without a
// Status line, is left as it is.
bool set_summary_status(const std::string& run_dir, const std::string& status,
                        const std::string& detail) {
  const std::string path = run_dir + "/summary.txt";
  const std::optional<std::string> text = read_file(path);
  if (!text) return false;
  const std::string prefix = " Status ";
  size_t begin = 0;
  if (text->compare(0, prefix.size(), prefix) != 0) {
    begin = text->find('\n' + prefix);
    if (begin == std::string::npos) return false;
    ++begin;
  }
  size_t end = text->find('\n', begin);
  end = end == std::string::npos ? text->size() : end + 1;
  const std::string line = summary_field_line("Status", summary_status_text(status, detail));
  if (text->compare(begin, end - begin, line) == 0) return false;
  write_run_files(run_dir, {{"summary.txt", text->substr(0, begin) + line + text->substr(end)}});
  return true;
}

}  // namespace

bool is_final_status(const std::string& status) {
  const std::optional<RunStatus> s = parse_run_status(status);
  return s && is_final(*s);
}

std::string mark_run_killed(const std::string& run_dir, const KilledRun& k) {
  const std::optional<std::string> text = read_file(run_dir + "/run.json");
  const nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  const RunStatusWords words = run_status_words(j);
  const std::string& status = words.status;
  std::optional<RunResult> r = text ? load_checkpoint(run_dir) : std::nullopt;
  if (is_final_status(status)) {
    // The engine's own result stands; its summary.txt follows it (it is written after run.json).
    if (r) {
      for (const RunFile& f : render_run_files(*r)) {
        if (f.name == "summary.txt" && read_file(run_dir + "/summary.txt") != f.bytes) {
          write_run_files(run_dir, {f});
          return "kept the final status '" + status + "' of " + run_dir +
                 " (summary.txt written again)";
        }
      }
    }
    if (set_summary_status(run_dir, status, words.detail)) {
      return "kept the final status '" + status + "' of " + run_dir +
             " (the rest of the folder unreadable: summary.txt's Status line written again)";
    }
    return "kept the final status '" + status + "' of " + run_dir;
  }
  if (!r && j.is_object()) {
    // run.json that the files beside it do not match: the engine was killed while writing its
    // results, after the other files and before run.json (which goes last). run.json and
    // summary.txt's Status line change, by hand; the figures stay as they are.
    write_run_files(run_dir, {{"run.json", with_run_status(j, RunStatus::kKilled, k.detail)}});
    set_summary_status(run_dir, kKilled, k.detail);
    return "marked " + run_dir +
           "/run.json and summary.txt's Status line killed (the rest of the folder did not "
           "match run.json: killed while writing its results)";
  }
  const bool had_checkpoint = r.has_value();
  if (!r) {
    r.emplace();
    r->schema_version = kSchemaVersion;
    r->xrunlab_version = kVersion;
    r->command_line = k.command_line;
    r->started_utc = k.started_utc;
    finalize(*r);
  }
  r->status = RunStatus::kKilled;
  r->status_detail = k.detail;
  r->ended_utc = utc_now_iso();
  // The page to share too: what the checkpoint measured, with the plots the folder has (a run
  // draws them at its end, so usually none: `xrunlab plot` draws them and the page again).
  std::vector<RunFile> files = render_run_files(*r);
  files.push_back({kReportHtmlFile,
                   format_report_html(*r, read_report_plots(run_dir, run_plot_format(*r)),
                                      "the run was killed before it drew its plots (xrunlab plot " +
                                          run_dir + " draws them and this page again)")});
  write_run_files(run_dir, files);
  return "marked " + run_dir +
         (had_checkpoint ? " killed (what its last checkpoint measured kept)"
                         : " killed (it had no checkpoint yet)");
}

}  // namespace xrunlab
