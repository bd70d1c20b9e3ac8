#include "engine/janitor/run_status.hpp"

#include <ctime>
#include <nlohmann/json.hpp>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/clock.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {
namespace {

constexpr const char* kKilled = "killed";

// The checkpoint's files, as the model, or nothing when they are not all there and readable.
std::optional<RunResult> load_checkpoint(const std::string& dir) {
  try {
    return load_run_folder(dir);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

bool is_final_status(const std::string& status) {
  return status == "completed" || status == "failed" || status == "interrupted" ||
         status == kKilled;
}

std::string mark_run_killed(const std::string& run_dir, const KilledRun& k) {
  const std::optional<std::string> text = read_file(run_dir + "/run.json");
  const nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  const std::string status = j.is_object() && j.contains("status") && j["status"].is_string()
                                 ? j["status"].get<std::string>()
                                 : "";
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
    return "kept the final status '" + status + "' of " + run_dir;
  }
  if (!r && j.is_object()) {
    // run.json without the rest of the checkpoint (not expected: the files are written together):
    // only run.json changes, by hand.
    nlohmann::json edited = j;
    edited["status"] = kKilled;
    edited["status_detail"] = k.detail;
    write_run_files(run_dir, {{"run.json", edited.dump(2) + "\n"}});
    return "marked " + run_dir + "/run.json killed (the rest of its checkpoint was unreadable)";
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
  r->status = kKilled;
  r->status_detail = k.detail;
  r->ended_utc = utc_now_iso();
  write_run_files(run_dir, render_run_files(*r));
  return "marked " + run_dir +
         (had_checkpoint ? " killed (what its last checkpoint measured kept)"
                         : " killed (it had no checkpoint yet)");
}

}  // namespace xrunlab
