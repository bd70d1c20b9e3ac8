// SPDX-License-Identifier: GPL-2.0-or-later
// The history with the real jackd, vcard and clients: a run adds itself at its end, and the
// history gives back its figures exactly as run.json's (by `xrunlab history --format json`
// and by plain SQL); adding its folder again is a no-op; a corrupt history costs the run
// nothing but one warning naming the file, and `history add` into it is exit code 11.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>

#include "engine/report/run_metrics.hpp"
#include "engine/result/run_json.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using nlohmann::json;

std::vector<std::string> short_run(const std::string& label) {
  return {"run", "--clients",  "2", "--ports", "1",   "--period",
          "256", "--duration", "3", "--label", label, "--no-plots"};
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

TEST(History, ARunAddsItselfAndTheHistoryGivesBackItsFigures) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end(short_run("it-history"), &r), 0) << r.log();
  const std::string db = r.out_dir + "/history.sqlite";
  ASSERT_TRUE(std::filesystem::exists(db)) << r.log();
  const std::optional<RunResult> run = read_run_json(r.run_dir() + "/run.json");
  ASSERT_TRUE(run.has_value());
  ASSERT_FALSE(run->run_id.empty());

  // The trend as JSON: one setting, one kernel, one run, each figure the run's own.
  const auto [code, out] =
      run_command({"history", "--db", db, "--format", "json", "--figure", "xruns", "--figure",
                   "xrun_count", "--figure", "delay_max", "--figure", "slack_p1"},
                  r.out_dir);
  ASSERT_EQ(code, 0) << out;
  const json j = json::parse(out);
  EXPECT_EQ(j["rows_total"], 1);
  EXPECT_EQ(j["rows_counted"], 1);
  ASSERT_EQ(j["settings"].size(), 1u);
  const json& k = j["settings"][0]["kernels"][0];
  EXPECT_EQ(k["kernel"], run->host->kernel.release);
  EXPECT_EQ(k["runs"], 1);
  for (const char* f : {"xruns", "xrun_count", "delay_max", "slack_p1"}) {
    const std::optional<double> v = run_metric(*run, f);
    if (v) {
      EXPECT_EQ(k["figures"][f]["median"].get<double>(), *v) << f;
    } else {
      EXPECT_TRUE(k["figures"][f]["median"].is_null()) << f;
    }
  }

  // Plain SQL: the row of this run's id.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h,
                               "SELECT xrun_count, period, clients, status, preempt FROM runs "
                               "WHERE run_id = ?",
                               -1, &st, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(st, 1, run->run_id.c_str(), -1, SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_double(st, 0), run_metric(*run, "xrun_count").value_or(-1));
  EXPECT_EQ(sqlite3_column_int(st, 1), 256);
  EXPECT_EQ(sqlite3_column_int(st, 2), 2);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 3)), "completed");
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(st, 4)),
               run->host->kernel.preempt.c_str());
  EXPECT_EQ(sqlite3_step(st), SQLITE_DONE) << "one row per run";
  sqlite3_finalize(st);
  sqlite3_close(h);

  // Adding the folder (or the whole root) again is a no-op.
  const auto [add_code, add_out] =
      run_command({"history", "add", "--db", db, r.out_dir}, r.out_dir);
  EXPECT_EQ(add_code, 0) << add_out;
  EXPECT_NE(add_out.find("0 run(s) added, 1 already there"), std::string::npos) << add_out;
  // The picture of the one setting.
  const auto [plot_code, plot_out] = run_command({"history", "--db", db}, r.out_dir);
  EXPECT_EQ(plot_code, 0) << plot_out;
  EXPECT_NE(plot_out.find("One kernel: nothing to compare yet."), std::string::npos) << plot_out;
  EXPECT_TRUE(std::filesystem::exists(r.out_dir + "/history.png")) << plot_out;
  EXPECT_TRUE(std::filesystem::exists(r.out_dir + "/history-plot.dat")) << plot_out;
  EXPECT_NE(plot_out.find("(1 run, 1 kernel)"), std::string::npos) << plot_out;
  expect_nothing_left(r);
}

TEST(History, ACorruptHistoryCostsTheRunOneWarningAndItsFolderIsKept) {
  const TempDir own("history");  // the run's own folder is made when it starts
  const std::string db = own.file("broken.sqlite");
  const std::string garbage(4096, 'x');
  { std::ofstream(db) << garbage; }
  std::vector<std::string> args = short_run("it-history-corrupt");
  args.insert(args.end(), {"--history", db});
  XrunlabRun r;
  ASSERT_EQ(run_to_end(args, &r), 0) << r.log();
  EXPECT_TRUE(std::filesystem::exists(r.run_dir() + "/run.json")) << r.log();
  EXPECT_EQ(count_of(r.log(), "xrunlab: warning: history: " + db), 1u) << r.log();
  EXPECT_NE(r.log().find("xrunlab history add " + r.run_dir()), std::string::npos) << r.log();
  std::ifstream in(db);
  const std::string after((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(after == garbage) << "the file is left as it was (" << after.size() << " bytes)";

  // `history add` into it: exit code 11 and one line naming the file.
  const auto [code, out] = run_command({"history", "add", "--db", db, r.run_dir()}, r.out_dir);
  EXPECT_EQ(code, 11) << out;
  EXPECT_EQ(count_of(out, "\n"), 1u) << out;
  EXPECT_NE(out.find("xrunlab: error: " + db + ": "), std::string::npos) << out;
  expect_nothing_left(r);
}

TEST(History, NoHistoryAddsNothing) {
  XrunlabRun r;
  std::vector<std::string> args = short_run("it-history-none");
  args.emplace_back("--no-history");
  ASSERT_EQ(run_to_end(args, &r), 0) << r.log();
  EXPECT_FALSE(std::filesystem::exists(r.out_dir + "/history.sqlite"));
  // Bad usage is one line and exit code 2.
  const auto [code, out] = run_command({"history", "remove"}, r.out_dir);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find("'remove' is not an action"), std::string::npos) << out;
}

}  // namespace
}  // namespace xrunlab
