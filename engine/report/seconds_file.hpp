// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// seconds.jsonl: a run's per-second rows, one JSON object per line, appended while the run
// measures. Each checkpoint appends the rows since the last one and drops them from memory, and
// run.json only counts them (run.json "per_second", engine/result/run_json.hpp), so the engine's
// memory and a checkpoint's work do not grow with the run's length: rows held in memory and
// formatted into run.json at every checkpoint grow the engine by 29 MiB per hour at 4 clients.
// Non-realtime.
//
//   {"xrunlab_seconds": 1, "client_columns": ["second", "cycles", ...]}   the first line
//   {"client": 3, "row": [12, 187, 841, 950.25, ...]}                    a client's second
//   {"system": {"t_s": 12.0, "user_pct": 4.5, ...}}                      the machine's second
//
// "client" is the client's index in run.json's clients[]; "row" holds the cells named by
// client_columns (engine/result/run_json.hpp client_second_columns); "system" has the keys of a
// SystemSecond. Each append holds, for each client in index order, its rows since the last
// append, then the system's: a client's rows, and the system's, are in time order.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/result/result.hpp"

namespace xrunlab {

// The first line ("\n" included).
std::string seconds_file_header();

// The rows in memory (c.seconds of each client, then r.system) as lines, without the header.
std::string format_seconds_rows(const RunResult& r);

// The whole file of a model that holds all of its rows (header and rows).
std::string format_seconds_file(const RunResult& r);

// format_seconds_rows, and the rows moved out of memory: counted into r.client_rows_flushed and
// r.system_flushed (so finalize still averages over every system second).
std::string take_seconds_rows(RunResult& r);

struct SecondsRows {
  std::map<int, std::vector<ClientSecond>> clients;  // by client index, in the file's order
  std::vector<SystemSecond> system;
  uint64_t client_rows = 0;
  // Non-empty when the last line does not end: the writer was killed (or the disk filled) in the
  // middle of it. What the complete lines hold is read; this says what was dropped.
  std::string cut;
};

// Reads a seconds.jsonl. Throws Error(kUsage) "PATH:LINE: what is wrong" for a first line that
// is not the header, or a complete line that is not one of the rows above.
SecondsRows parse_seconds_file(std::string_view text, const std::string& path);

// Puts rows read back into the model: each client's after its rows in memory, the system's
// after r.system; the flushed counts are reset (every row is in memory now) and
// r.seconds_appended is set (the file is what the model holds). A row of a client run.json does
// not have is refused (Error(kUsage) naming path). Returns the warnings: a cut last line, fewer
// rows than run.json counted.
std::vector<std::string> put_seconds_rows(RunResult& r, SecondsRows rows, const std::string& path);

// The run's own seconds.jsonl, appended to while it measures. Created (with its header, and
// recorded for the hand-over to the sudo user) by the constructor; each append is one write of
// whole lines. A write that fails (a full disk) is cut back to the last complete line, so the
// file never holds half a row in its middle, and throws OutputError naming the path. Not
// synced: the page cache outlives a killed engine, and run.json's checkpoint says how far the
// file was meant to go.
class SecondsAppender {
 public:
  explicit SecondsAppender(std::string path);
  ~SecondsAppender();
  SecondsAppender(const SecondsAppender&) = delete;
  SecondsAppender& operator=(const SecondsAppender&) = delete;

  void append(std::string_view lines);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;  // bytes written and whole
};

}  // namespace xrunlab
