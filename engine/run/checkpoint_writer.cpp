// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/checkpoint_writer.hpp"

#include <utility>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/output_error.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/clock.hpp"

namespace xrunlab {
namespace {

// The result as a checkpoint shows it, for as long as this lives: status "incomplete" with
// `detail`, ended now, `seconds_ran` long. The live values come back when it goes, whatever
// happens in between: the run goes on, and its own status is set only when the window ends.
class ShownIncomplete {
 public:
  ShownIncomplete(RunResult& r, const char* detail, std::optional<double> seconds_ran)
      : r_(r),
        status_(r.status),
        detail_(std::move(r.status_detail)),
        ended_(std::move(r.ended_utc)),
        seconds_(r.seconds_ran) {
    r.status = RunStatus::kIncomplete;
    r.status_detail = detail;
    r.ended_utc = utc_now_iso();
    if (seconds_ran) r.seconds_ran = *seconds_ran;
  }
  ~ShownIncomplete() {
    r_.status = status_;
    r_.status_detail = std::move(detail_);
    r_.ended_utc = std::move(ended_);
    r_.seconds_ran = seconds_;
  }
  ShownIncomplete(const ShownIncomplete&) = delete;
  ShownIncomplete& operator=(const ShownIncomplete&) = delete;

 private:
  RunResult& r_;
  RunStatus status_;
  std::string detail_, ended_;
  double seconds_;
};

}  // namespace

void CheckpointWriter::start(const std::string& run_dir, RunResult& r) {
  run_dir_ = run_dir;
  seconds_.emplace(run_dir + "/" + kSecondsFileName);
  r.seconds_appended = true;
  std::vector<RunFile> files;
  {
    const ShownIncomplete shown(
        r,
        "written as the run started; if it is still here, the run did not write its results "
        "(the engine was killed, or the disk was full)",
        std::nullopt);
    finalize(r);
    files = render_checkpoint_files(r);
  }
  write_run_files(run_dir_, files);
}

CheckpointFiles CheckpointWriter::render(RunResult& r, double seconds_ran) {
  CheckpointFiles out;
  out.rows = take_seconds_rows(r);
  const ShownIncomplete shown(
      r,
      "checkpoint during the run; if it is still here, the run did not write its final results "
      "(the engine was killed, or the disk was full)",
      seconds_ran);
  finalize(r);
  out.files = render_checkpoint_files(r);
  return out;
}

CheckpointWrite CheckpointWriter::write(const CheckpointFiles& files) {
  CheckpointWrite w;
  try {
    if (seconds_) seconds_->append(files.rows);
    write_run_files(run_dir_, files.files);
  } catch (const Error& e) {
    const auto* out = dynamic_cast<const OutputError*>(&e);
    w.ok = false;
    w.disk_full = out != nullptr && out->disk_full();
    w.message = e.what();
  } catch (const std::exception& e) {
    w.ok = false;
    w.message = e.what();
  }
  return w;
}

void CheckpointWriter::collect_seconds(RunResult& r) {
  if (!seconds_) return;
  try {
    seconds_->append(take_seconds_rows(r));
  } catch (const Error& e) {
    r.warnings.push_back(std::string("per-second rows: ") + e.what() +
                         " (the last rows are missing from seconds.jsonl)");
  }
  std::string why;
  const std::optional<std::string> text = read_file(seconds_->path(), &why);
  try {
    if (!text) throw Error(ExitCode::kOutput, why);
    for (std::string& w :
         put_seconds_rows(r, parse_seconds_file(*text, seconds_->path()), seconds_->path())) {
      r.warnings.push_back(std::move(w));
    }
  } catch (const Error& e) {
    r.warnings.push_back(std::string("per-second rows not read back: ") + e.what() +
                         " (timeseries.csv and the plots lack them)");
  }
}

}  // namespace xrunlab
