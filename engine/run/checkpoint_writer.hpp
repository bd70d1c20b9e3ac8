// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Keeps what a run measured on disk while it runs, so that a run whose engine is killed (even
// with SIGKILL) or whose disk fills still leaves its figures:
//   - as the run starts, run.json, histogram.csv and summary.txt are written marked
//     "incomplete" and seconds.jsonl is created (a full disk is found before anything starts);
//   - at each checkpoint (engine/run/checkpoint_interval.hpp) the per-second rows since the last
//     one are appended to seconds.jsonl and dropped from memory, and the three files are written
//     again, still marked "incomplete", with the window's length so far;
//   - at the end every row is read back into the result for the files made once (the CSVs, the
//     plots); the run's final write replaces the checkpoint's files.
// The files are rendered under the live result's lock (memory only) and written after it is
// released, so the telemetry thread never waits for a disk. Non-realtime: the run's thread.
#include <optional>
#include <string>
#include <vector>

#include "engine/report/run_file.hpp"
#include "engine/report/seconds_file.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// The files one checkpoint writes: rendered under the lock, written after it.
struct CheckpointFiles {
  std::string rows;  // seconds.jsonl lines to append (whole lines)
  std::vector<RunFile> files;
};

// What a checkpoint's write found.
struct CheckpointWrite {
  bool ok = true;
  bool disk_full = false;  // the run stops: the rest of the window could not be kept either
  std::string message;     // what failed ("" when ok)
};

class CheckpointWriter {
 public:
  // Creates seconds.jsonl in `run_dir` and writes the starting files. Throws Error (OutputError
  // for a full disk) when they cannot be written. `r` keeps its status; its derived totals are
  // computed (finalize).
  void start(const std::string& run_dir, RunResult& r);
  bool started() const { return seconds_.has_value(); }

  // Under the live result's lock: takes the rows since the last checkpoint out of `r` and
  // renders the files as of `seconds_ran` into the window, marked "incomplete". `r`'s status,
  // detail, end time and length are left as they were.
  CheckpointFiles render(RunResult& r, double seconds_ran);

  // After the lock: appends the rows (first: run.json, renamed into place last, says how many
  // the file holds) and writes the files. Never throws.
  CheckpointWrite write(const CheckpointFiles& files);

  // At the end, with the result no other thread touches: the rows still in memory appended,
  // then every row read back into `r`. Problems become warnings in `r`.
  void collect_seconds(RunResult& r);

 private:
  std::string run_dir_;
  std::optional<SecondsAppender> seconds_;
};

}  // namespace xrunlab
