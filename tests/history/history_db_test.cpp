// SPDX-License-Identifier: GPL-2.0-or-later
// The history database: rows round-trip with every field, a run added twice is one row, the
// schema is versioned and migrated, and a corrupt, foreign, newer or locked file is one error
// naming it (exit code 11) that changes nothing.
#include "engine/history/history_db.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <functional>

#include "engine/base/errors.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

HistoryRow row(const std::string& id, const std::string& kernel, double delay_max) {
  HistoryRow r;
  r.run_id = id;
  r.source = "/r/" + id;
  r.added_utc = "2026-12-07T06:00:00Z";
  r.started_utc = "2026-12-07T05:00:0" + id.substr(id.size() - 1) + "Z";
  r.status = "completed";
  r.label = "case";
  r.host = "box";
  r.kernel = kernel;
  r.kernel_measured = "6.1.0-real";
  r.kernel_relabelled = kernel != "6.1.0-real";
  r.kernel_version = "#1 SMP PREEMPT_DYNAMIC";
  r.preempt = "PREEMPT_DYNAMIC";
  r.cmdline = "root=/dev/vda1 threadirqs";
  r.xrunlab_version = "1.0";
  r.jack_version = "jackdmp 1.9.21";
  r.backend = "vcard";
  r.policy = "SCHED_FIFO 70";
  r.loads = "hackbench";
  r.period = 256;
  r.rate = 48000;
  r.clients = 4;
  r.ports = 2;
  r.seconds = 10.5;
  r.definitions = "jack1-rules";
  r.figures[history_figure_index(*find_history_figure("delay_max"))] = delay_max;
  r.figures[history_figure_index(*find_history_figure("xruns"))] = 3;
  return r;
}

ExitCode code_of(const std::function<void()>& f, std::string* message) {
  try {
    f();
  } catch (const Error& e) {
    *message = e.what();
    return e.code();
  }
  return ExitCode::kOk;
}

TEST(HistoryDb, ARowComesBackWithEveryFieldAndAbsentFiguresStayAbsent) {
  TempDir dir("history");
  const std::string path = dir.file("sub/history.sqlite");  // its folder is created
  HistoryDb db(path);
  EXPECT_EQ(db.schema_version(), kHistorySchemaVersion);
  const HistoryRow in = row("run-1", "6.1.0-a", 123.5);
  EXPECT_EQ(db.add({in}), 1u);
  const std::vector<HistoryRow> out = HistoryDb::open_existing(path).rows();
  ASSERT_EQ(out.size(), 1u);
  const HistoryRow& r = out[0];
  EXPECT_EQ(r.run_id, in.run_id);
  EXPECT_EQ(r.source, in.source);
  EXPECT_EQ(r.started_utc, in.started_utc);
  EXPECT_EQ(r.kernel, "6.1.0-a");
  EXPECT_EQ(r.kernel_measured, "6.1.0-real");
  EXPECT_TRUE(r.kernel_relabelled);
  EXPECT_EQ(r.preempt, "PREEMPT_DYNAMIC");
  EXPECT_EQ(r.cmdline, in.cmdline);
  EXPECT_EQ(r.jack_version, in.jack_version);
  EXPECT_EQ(r.policy, in.policy);
  EXPECT_EQ(r.loads, in.loads);
  EXPECT_EQ(r.period, 256);
  EXPECT_EQ(r.rate, 48000);
  EXPECT_EQ(r.clients, 4);
  EXPECT_EQ(r.ports, 2);
  EXPECT_EQ(r.seconds, 10.5);
  EXPECT_EQ(r.definitions, "jack1-rules");
  for (size_t i = 0; i < kHistoryFigureCount; ++i) {
    EXPECT_EQ(r.figures[i], in.figures[i]) << history_figures()[i].metric;
  }
  EXPECT_FALSE(r.figures[history_figure_index(*find_history_figure("slack_p1"))].has_value());
}

TEST(HistoryDb, ARunAddedTwiceIsOneRowAndKeepsItsFirstValues) {
  TempDir dir("history");
  HistoryDb db(dir.file("h.sqlite"));
  EXPECT_EQ(db.add({row("run-1", "a", 100), row("run-2", "a", 200)}), 2u);
  EXPECT_EQ(db.add({row("run-1", "a", 999), row("run-3", "a", 300)}), 1u);
  const std::vector<HistoryRow> rows = db.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].run_id, "run-1");
  EXPECT_EQ(rows[0].figures[history_figure_index(*find_history_figure("delay_max"))], 100);
}

TEST(HistoryDb, TheFiguresTableDefinesEveryFigureColumn) {
  TempDir dir("history");
  const std::string path = dir.file("h.sqlite");
  { HistoryDb db(path); }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT column_name, label, unit FROM figures ORDER BY rowid",
                               -1, &st, nullptr),
            SQLITE_OK);
  size_t i = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    ASSERT_LT(i, kHistoryFigureCount);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                 history_figures()[i].column);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 1)),
                 history_figures()[i].label);
    ++i;
  }
  EXPECT_EQ(i, kHistoryFigureCount);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(HistoryDb, AMigrationTakesAnOlderDatabaseToTheNextVersionKeepingItsRows) {
  TempDir dir("history");
  const std::string path = dir.file("h.sqlite");
  {
    HistoryDb db(path);
    db.add({row("run-1", "a", 100)});
  }
  // A next version of this xrunlab: one more step.
  std::vector<HistoryMigration> next = history_migrations();
  next.push_back({kHistorySchemaVersion + 1, "ALTER TABLE runs ADD COLUMN note TEXT;"});
  HistoryDb upgraded(path, next);
  EXPECT_EQ(upgraded.schema_version(), kHistorySchemaVersion + 1);
  EXPECT_EQ(upgraded.rows().size(), 1u);
  // Opened again with the same steps: nothing to do, nothing lost.
  HistoryDb again(path, next);
  EXPECT_EQ(again.rows().size(), 1u);
}

TEST(HistoryDb, ADatabaseOfANewerSchemaIsRefusedNamingIt) {
  TempDir dir("history");
  const std::string path = dir.file("h.sqlite");
  std::vector<HistoryMigration> next = history_migrations();
  next.push_back({kHistorySchemaVersion + 1, "CREATE TABLE later (x);"});
  { HistoryDb db(path, next); }
  std::string message;
  EXPECT_EQ(code_of([&] { HistoryDb db(path); }, &message), ExitCode::kHistory);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("newer"), std::string::npos) << message;
}

TEST(HistoryDb, ACorruptFileIsOneErrorNamingItAndIsLeftAsItWas) {
  TempDir dir("history");
  const std::string text = "this is not a database, it is a text file long enough to matter\n";
  const std::string path = dir.write("h.sqlite", text);
  std::string message;
  EXPECT_EQ(code_of([&] { HistoryDb db(path); }, &message), ExitCode::kHistory);
  EXPECT_EQ(message.find('\n'), std::string::npos);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("not an intact SQLite database"), std::string::npos) << message;
  std::ifstream in(path);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(after, text);
}

TEST(HistoryDb, AnotherProgramsDatabaseIsNotWrittenInto) {
  TempDir dir("history");
  const std::string path = dir.file("other.sqlite");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE photos (name TEXT)", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  std::string message;
  EXPECT_EQ(code_of([&] { HistoryDb h(path); }, &message), ExitCode::kHistory);
  EXPECT_NE(message.find("not an xrunlab history"), std::string::npos) << message;
}

TEST(HistoryDb, ALockedDatabaseIsOneErrorAfterTheWaitAndTheAddChangesNothing) {
  TempDir dir("history");
  const std::string path = dir.file("h.sqlite");
  { HistoryDb(path).add({row("run-1", "a", 100)}); }
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::string message;
  EXPECT_EQ(code_of([&] { HistoryDb(path).add({row("run-2", "a", 200)}); }, &message),
            ExitCode::kHistory);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("locked"), std::string::npos) << message;
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_EQ(HistoryDb::open_existing(path).rows().size(), 1u);
}

TEST(HistoryDb, OpeningAMissingFileToReadIsRefusedAndCreatesNothing) {
  TempDir dir("history");
  const std::string path = dir.file("none.sqlite");
  std::string message;
  EXPECT_EQ(code_of([&] { (void)HistoryDb::open_existing(path); }, &message), ExitCode::kHistory);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace xrunlab
