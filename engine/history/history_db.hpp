// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A machine's history of runs: one SQLite file (Debian's libsqlite3), default
// results/history.sqlite, one row per run keyed on its id (engine/result/run_identity.hpp), so
// adding a run twice is a no-op. The schema (docs/history.md) is versioned with SQLite's
// user_version and upgraded in place by the migrations below, each in one transaction; the file
// is marked as xrunlab's by its application_id, so another program's database is refused rather
// than written into. Plain SQL works on it (`sqlite3 results/history.sqlite 'SELECT ...'`).
//
// Errors are Error(ExitCode::kHistory) in one line naming the file and what to do: not a
// database (corrupt), another program's database, made by a newer xrunlab, or locked by another
// writer for longer than the wait (5 s). A failed add changes nothing (a transaction).
// Non-realtime.
#include <memory>
#include <string>
#include <vector>

#include "engine/history/history_row.hpp"

struct sqlite3;

namespace xrunlab {

// One step of the schema: the SQL that takes a database at version `to` - 1 to `to`.
struct HistoryMigration {
  int to;
  std::string sql;
};
// This xrunlab's steps, from an empty file (version 0) to kHistorySchemaVersion.
const std::vector<HistoryMigration>& history_migrations();
inline constexpr int kHistorySchemaVersion = 1;
// The database's application_id: "xrlh" (xrunlab history).
inline constexpr int kHistoryApplicationId = 0x78726c68;
inline constexpr int kHistoryBusyWaitMs = 5000;

class HistoryDb {
 public:
  // Opens `path`, creating it (and its folder) when absent, and brings its schema to the last
  // of `migrations` (tests give their own steps; everything else this xrunlab's).
  explicit HistoryDb(const std::string& path);
  HistoryDb(const std::string& path, const std::vector<HistoryMigration>& migrations);
  // Opens an existing history read-only (another machine's file to merge, or for `history`):
  // never creates or migrates it; an older schema it reads as it is, a newer one is refused.
  static HistoryDb open_existing(const std::string& path);
  ~HistoryDb();
  HistoryDb(HistoryDb&&) noexcept;
  HistoryDb& operator=(HistoryDb&&) = delete;
  HistoryDb(const HistoryDb&) = delete;
  HistoryDb& operator=(const HistoryDb&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const { return version_; }

  // Adds the rows in one transaction; a row whose run_id is there already is left as it is.
  // Returns how many were new.
  size_t add(const std::vector<HistoryRow>& rows);
  // Every row, oldest first (by started_utc, then run_id).
  std::vector<HistoryRow> rows() const;

 private:
  HistoryDb() = default;
  void open(bool create, const std::vector<HistoryMigration>* migrations);
  std::string path_;
  sqlite3* db_ = nullptr;
  int version_ = 0;
};

}  // namespace xrunlab
