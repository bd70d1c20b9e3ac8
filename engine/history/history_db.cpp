// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/history/history_db.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <filesystem>
#include <system_error>
#include <utility>

#include "engine/base/errors.hpp"
#include "engine/system/file_owner.hpp"
#include "engine/system/output_folder.hpp"

namespace xrunlab {

namespace {

// The runs table's columns before the figures, in the order rows are written and read.
constexpr const char* kRunColumns[] = {
    "run_id",         "source",  "added_utc", "started_utc",     "status",
    "label",          "host",    "kernel",    "kernel_measured", "kernel_relabelled",
    "kernel_version", "preempt", "cmdline",   "xrunlab_version", "jack_version",
    "backend",        "policy",  "loads",     "period",          "rate",
    "clients",        "ports",   "seconds",   "definitions",     "imported"};

std::string version_1_sql() {
  std::string figures;
  // Counts are whole numbers (INTEGER affinity: `sum(xruns)` reads 3, not 3.0); the rest REAL.
  for (const HistoryFigure& f : history_figures()) {
    figures += fmt::format(",\n  {} {}", f.column, f.unit[0] == '\0' ? "INTEGER" : "REAL");
  }
  std::string sql = fmt::format(
      "CREATE TABLE runs (\n"
      "  run_id TEXT PRIMARY KEY NOT NULL,\n"
      "  source TEXT NOT NULL,\n"
      "  added_utc TEXT NOT NULL,\n"
      "  started_utc TEXT NOT NULL,\n"
      "  status TEXT NOT NULL,\n"
      "  label TEXT NOT NULL,\n"
      "  host TEXT NOT NULL,\n"
      "  kernel TEXT NOT NULL,\n"
      "  kernel_measured TEXT NOT NULL,\n"
      "  kernel_relabelled INTEGER NOT NULL,\n"
      "  kernel_version TEXT NOT NULL,\n"
      "  preempt TEXT NOT NULL,\n"
      "  cmdline TEXT NOT NULL,\n"
      "  xrunlab_version TEXT NOT NULL,\n"
      "  jack_version TEXT NOT NULL,\n"
      "  backend TEXT NOT NULL,\n"
      "  policy TEXT NOT NULL,\n"
      "  loads TEXT NOT NULL,\n"
      "  period INTEGER,\n"
      "  rate INTEGER,\n"
      "  clients INTEGER,\n"
      "  ports INTEGER,\n"
      "  seconds REAL,\n"
      "  definitions TEXT NOT NULL,\n"
      "  imported INTEGER NOT NULL{}\n"
      ");\n"
      "CREATE INDEX runs_by_setting ON runs (host, backend, policy, period, clients, "
      "started_utc);\n"
      "CREATE TABLE figures (\n"
      "  column_name TEXT PRIMARY KEY NOT NULL,\n"
      "  metric TEXT NOT NULL,\n"
      "  label TEXT NOT NULL,\n"
      "  unit TEXT NOT NULL,\n"
      "  lower_is_better INTEGER NOT NULL,\n"
      "  definition TEXT NOT NULL\n"
      ");\n",
      figures);
  for (const HistoryFigure& f : history_figures()) {
    auto quoted = [](std::string_view s) {
      std::string q = "'";
      for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
      return q + "'";
    };
    sql += fmt::format("INSERT INTO figures VALUES ({}, {}, {}, {}, {}, {});\n", quoted(f.column),
                       quoted(f.metric), quoted(f.label), quoted(f.unit), f.lower_is_better ? 1 : 0,
                       quoted(f.definition));
  }
  return sql;
}

// One line: SQLite's messages can quote a damaged file's own text (its schema's SQL), newlines
// and all.
[[noreturn]] void fail(const std::string& path, std::string what) {
  for (char& c : what) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  throw Error(ExitCode::kHistory, fmt::format("{}: {}", path, what));
}

// What a SQLite result code means for the user, with what to do.
std::string advice(sqlite3* db, int rc) {
  const int primary = rc & 0xff;
  std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  switch (primary) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return msg +
             " (not an intact SQLite database: move it aside and add the run folders again "
             "with `xrunlab history add`)";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format(
          "{} (another program held it for {} s: try again when it is done, or give another "
          "file with --history/--db)",
          msg, kHistoryBusyWaitMs / 1000);
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
      return msg + " (check the file's and its folder's permissions, or give another file)";
    case SQLITE_FULL:
      return msg + " (the disk is full)";
    default:
      return msg;
  }
}

class Statement {
 public:
  Statement(sqlite3* db, const std::string& path, const std::string& sql) : db_(db), path_(path) {
    const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &st_, nullptr);
    if (rc != SQLITE_OK) fail(path, advice(db, rc));
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() { return st_; }
  // SQLITE_ROW or SQLITE_DONE; anything else is an error naming the file.
  int step() {
    const int rc = sqlite3_step(st_);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail(path_, advice(db_, rc));
    return rc;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  sqlite3_stmt* st_ = nullptr;
};

void exec(sqlite3* db, const std::string& path, const std::string& sql) {
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(path, advice(db, rc));
}

int pragma_int(sqlite3* db, const std::string& path, const char* pragma) {
  Statement st(db, path, std::string("PRAGMA ") + pragma);
  if (st.step() != SQLITE_ROW) return 0;
  return sqlite3_column_int(st.get(), 0);
}

bool has_tables(sqlite3* db, const std::string& path) {
  Statement st(db, path, "SELECT count(*) FROM sqlite_master");
  st.step();
  return sqlite3_column_int(st.get(), 0) > 0;
}

void bind_text(sqlite3_stmt* st, int i, const std::string& s) {
  sqlite3_bind_text(st, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
}
template <typename T>
void bind_optional(sqlite3_stmt* st, int i, const std::optional<T>& v) {
  if (!v) {
    sqlite3_bind_null(st, i);
  } else if constexpr (std::is_integral_v<T>) {
    sqlite3_bind_int64(st, i, *v);
  } else {
    sqlite3_bind_double(st, i, *v);
  }
}

std::string text_at(sqlite3_stmt* st, int i) {
  const unsigned char* t = sqlite3_column_text(st, i);
  return t != nullptr ? std::string(reinterpret_cast<const char*>(t)) : std::string();
}
std::optional<int64_t> int_at(sqlite3_stmt* st, int i) {
  if (sqlite3_column_type(st, i) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(st, i);
}
std::optional<double> double_at(sqlite3_stmt* st, int i) {
  if (sqlite3_column_type(st, i) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(st, i);
}

}  // namespace

const std::vector<HistoryMigration>& history_migrations() {
  static const std::vector<HistoryMigration> steps = {{1, version_1_sql()}};
  return steps;
}

HistoryDb::HistoryDb(const std::string& path) : HistoryDb(path, history_migrations()) {}

HistoryDb::HistoryDb(const std::string& path, const std::vector<HistoryMigration>& migrations)
    : path_(path) {
  open(true, &migrations);
}

HistoryDb HistoryDb::open_existing(const std::string& path) {
  HistoryDb db;
  db.path_ = path;
  db.open(false, nullptr);
  return db;
}

HistoryDb::HistoryDb(HistoryDb&& o) noexcept
    : path_(std::move(o.path_)), db_(std::exchange(o.db_, nullptr)), version_(o.version_) {}

HistoryDb::~HistoryDb() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

void HistoryDb::open(bool create, const std::vector<HistoryMigration>* migrations) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(path_, ec);
  if (create) {
    const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
    // As root: never into a folder another local user could swap a link into.
    check_output_folder(folder.empty() ? std::string(".") : folder.string());
    if (!folder.empty() && !std::filesystem::exists(folder, ec)) {
      std::filesystem::create_directories(folder, ec);
      if (ec) fail(path_, "cannot create its folder: " + ec.message());
      hand_over_folder(folder.string());
    }
  } else if (!existed) {
    fail(path_, "no such file (a history database: results/history.sqlite, or --db FILE)");
  }
  const int flags = (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) |
                    SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) fail(path_, advice(db_, rc));
  if (create && !existed) hand_over_file(path_);  // under sudo: the invoking user's file
  sqlite3_busy_timeout(db_, kHistoryBusyWaitMs);
  sqlite3_extended_result_codes(db_, 1);
  // Reading the header is the first thing that finds a file that is not a database.
  const int app = pragma_int(db_, path_, "application_id");
  version_ = pragma_int(db_, path_, "user_version");
  if (app != kHistoryApplicationId && (app != 0 || has_tables(db_, path_))) {
    fail(path_,
         "not an xrunlab history (another program's SQLite database): give another file with "
         "--history/--db");
  }
  const int newest =
      migrations != nullptr && !migrations->empty() ? migrations->back().to : kHistorySchemaVersion;
  if (version_ > std::max(newest, kHistorySchemaVersion)) {
    fail(path_, fmt::format("its schema is version {}, newer than this xrunlab reads ({}): use "
                            "a newer xrunlab",
                            version_, newest));
  }
  if (!create || migrations == nullptr) return;
  if (version_ >= newest) return;
  // Each step in its own transaction: a crash between steps leaves a database at the last
  // version it completed. BEGIN IMMEDIATE takes the write lock first, so two xrunlabs opening a
  // new file at once migrate it once (the second finds the new version and skips the steps).
  for (const HistoryMigration& m : *migrations) {
    exec(db_, path_, "BEGIN IMMEDIATE");
    try {
      const int now = pragma_int(db_, path_, "user_version");
      if (m.to > now) {
        if (m.to != now + 1) {
          fail(path_, fmt::format("no migration from schema version {} to {}", now, m.to));
        }
        exec(db_, path_, m.sql);
        exec(db_, path_, fmt::format("PRAGMA user_version = {}", m.to));
        exec(db_, path_, fmt::format("PRAGMA application_id = {}", kHistoryApplicationId));
      }
      exec(db_, path_, "COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }
  version_ = pragma_int(db_, path_, "user_version");
}

size_t HistoryDb::add(const std::vector<HistoryRow>& rows) {
  std::string columns, marks;
  for (const char* c : kRunColumns) {
    columns += (columns.empty() ? "" : ", ") + std::string(c);
    marks += marks.empty() ? "?" : ", ?";
  }
  for (const HistoryFigure& f : history_figures()) {
    columns += std::string(", ") + f.column;
    marks += ", ?";
  }
  exec(db_, path_, "BEGIN IMMEDIATE");
  size_t added = 0;
  try {
    Statement st(db_, path_,
                 fmt::format("INSERT OR IGNORE INTO runs ({}) VALUES ({})", columns, marks));
    for (const HistoryRow& r : rows) {
      sqlite3_stmt* s = st.get();
      sqlite3_reset(s);
      sqlite3_clear_bindings(s);
      int i = 1;
      for (const std::string* t : {&r.run_id, &r.source, &r.added_utc, &r.started_utc, &r.status,
                                   &r.label, &r.host, &r.kernel, &r.kernel_measured}) {
        bind_text(s, i++, *t);
      }
      sqlite3_bind_int(s, i++, r.kernel_relabelled ? 1 : 0);
      for (const std::string* t : {&r.kernel_version, &r.preempt, &r.cmdline, &r.xrunlab_version,
                                   &r.jack_version, &r.backend, &r.policy, &r.loads}) {
        bind_text(s, i++, *t);
      }
      for (const std::optional<int64_t>* v : {&r.period, &r.rate, &r.clients, &r.ports}) {
        bind_optional(s, i++, *v);
      }
      bind_optional(s, i++, r.seconds);
      bind_text(s, i++, r.definitions);
      sqlite3_bind_int(s, i++, r.imported ? 1 : 0);
      for (const std::optional<double>& v : r.figures) bind_optional(s, i++, v);
      st.step();
      added += static_cast<size_t>(sqlite3_changes(db_));
    }
    exec(db_, path_, "COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return added;
}

std::vector<HistoryRow> HistoryDb::rows() const {
  std::vector<HistoryRow> out;
  if (version_ == 0) return out;  // an empty file: no table yet
  std::string columns;
  for (const char* c : kRunColumns) columns += (columns.empty() ? "" : ", ") + std::string(c);
  for (const HistoryFigure& f : history_figures()) columns += std::string(", ") + f.column;
  Statement st(db_, path_,
               fmt::format("SELECT {} FROM runs ORDER BY started_utc, run_id", columns));
  while (st.step() == SQLITE_ROW) {
    sqlite3_stmt* s = st.get();
    HistoryRow r;
    int i = 0;
    for (std::string* t : {&r.run_id, &r.source, &r.added_utc, &r.started_utc, &r.status, &r.label,
                           &r.host, &r.kernel, &r.kernel_measured}) {
      *t = text_at(s, i++);
    }
    r.kernel_relabelled = sqlite3_column_int(s, i++) != 0;
    for (std::string* t : {&r.kernel_version, &r.preempt, &r.cmdline, &r.xrunlab_version,
                           &r.jack_version, &r.backend, &r.policy, &r.loads}) {
      *t = text_at(s, i++);
    }
    for (std::optional<int64_t>* v : {&r.period, &r.rate, &r.clients, &r.ports}) {
      *v = int_at(s, i++);
    }
    r.seconds = double_at(s, i++);
    r.definitions = text_at(s, i++);
    r.imported = sqlite3_column_int(s, i++) != 0;
    for (std::optional<double>& v : r.figures) v = double_at(s, i++);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace xrunlab
