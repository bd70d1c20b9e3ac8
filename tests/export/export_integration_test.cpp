// SPDX-License-Identifier: GPL-2.0-or-later
// Integration test of `xrunlab export`: a real short run (jackd, two clients, the vcard), then
// its folder exported into KCIDB, SQUAD and OpenMetrics; every file checked by
// tests/export/validate_exports.py (KCIDB against kcidb-io's schema v4.4), and the counts
// checked against the run's own run.json. Bad input: no runs (exit 2, one line) and an output
// that cannot be written (exit 6).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/report/run_metrics.hpp"
#include "engine/result/run_json.hpp"
#include "tests/support/files.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;
using nlohmann::json;

// Runs the validator with `args`; returns (exit code, output).
std::pair<int, std::string> validate(const std::vector<std::string>& args, const std::string& dir) {
  SpawnSpec spec;
  spec.argv = {"/usr/bin/python3", XRUNLAB_EXPORT_VALIDATOR, "--schema", XRUNLAB_KCIDB_SCHEMA};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.output_path = dir + "/validate.out";
  std::filesystem::remove(spec.output_path);
  Child c = Child::spawn(spec);
  EXPECT_TRUE(c.wait_for(std::chrono::seconds(60)));
  const int status = *c.wait_status();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
          read_text_or_empty(spec.output_path)};
}

TEST(Export, RealRunIntoAllThreeFormatsValidates) {
  const TempDir root_dir("export");
  const std::string root = root_dir.str();
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "2", "--ports", "1", "--period", "256", "--duration",
                        "2", "--label", "export.it", "--no-plots", "--output", root},
                       &r),
            0)
      << r.log();
  const json run = r.run_json();
  const std::string kcidb = root + "/kcidb.json", squad = root + "/squad",
                    om = root + "/xrunlab.prom";
  // xruns>=0 holds for every run: its figure FAILs by construction, and export says so (10).
  const auto [rc, out] =
      run_command({"export", root, "--kcidb", kcidb, "--squad", squad, "--openmetrics", om,
                   "--fail-if", "xruns>=0", "--origin", "xrunlab_it"},
                  root);
  ASSERT_EQ(rc, 10) << out;
  EXPECT_NE(out.find("1 run(s) exported, 1 failing --fail-if"), std::string::npos) << out;

  for (const std::vector<std::string>& args : {std::vector<std::string>{"kcidb", kcidb},
                                               {"squad", squad},
                                               {"openmetrics", om},
                                               {"broken", kcidb, squad, om}}) {
    const auto [vrc, vout] = validate(args, root);
    EXPECT_EQ(vrc, 0) << args[0] << ":\n" << vout;
  }

  // KCIDB: the run's test and one per figure, named after the label, with the run's id.
  const json doc = json::parse(read_text_or_empty(kcidb));
  const std::string id = run["run_id"];
  ASSERT_FALSE(id.empty());
  ASSERT_GE(doc["tests"].size(), 2u);
  EXPECT_EQ(doc["tests"][0]["id"], "xrunlab_it:" + id);
  EXPECT_EQ(doc["tests"][0]["path"], "xrunlab.export_it");
  EXPECT_EQ(doc["tests"][0]["status"], "FAIL");
  EXPECT_EQ(doc["tests"][0]["start_time"], run["started_utc"]);
  EXPECT_EQ(doc["checkouts"][0]["misc"]["kernel_release"], run["host"]["kernel"]["release"]);
  bool xruns_seen = false;
  for (const json& t : doc["tests"]) {
    if (t["path"] == "xrunlab.export_it.xruns") {
      xruns_seen = true;
      EXPECT_EQ(t["status"], "FAIL");
      // The figure as run_metric reads it from the same run.json.
      const std::optional<RunResult> rr = read_run_json(r.run_dir() + "/run.json");
      ASSERT_TRUE(rr);
      EXPECT_EQ(t["number"]["value"].get<double>(), *run_metric(*rr, "xruns")) << t.dump();
    } else if (t["path"] != "xrunlab.export_it") {
      EXPECT_EQ(t["status"], "DONE") << t.dump();
    }
  }
  EXPECT_TRUE(xruns_seen);

  // SQUAD: the same figures as metrics, the run completed.
  const json tests = json::parse(read_text_or_empty(squad + "/tests.json"));
  const json metrics = json::parse(read_text_or_empty(squad + "/metrics.json"));
  const json metadata = json::parse(read_text_or_empty(squad + "/metadata.json"));
  EXPECT_EQ(tests["xrunlab/export.it/completed"], "pass");
  EXPECT_EQ(tests["xrunlab/export.it/xruns"], "fail");
  EXPECT_EQ(metrics.size(), doc["tests"].size() - 1);
  EXPECT_EQ(metadata["job_id"], id);

  // OpenMetrics: one sample of each figure, labelled with the run's settings.
  const std::string text = read_text_or_empty(om);
  EXPECT_NE(text.find("xrunlab_run_completed{case=\"export.it\",host=\"" +
                      run["host"]["hostname"].get<std::string>() + "\",kernel=\"" +
                      run["host"]["kernel"]["release"].get<std::string>() + "\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("period=\"256\",clients=\"2\""), std::string::npos) << text;
  size_t samples = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') ++samples;
  }
  EXPECT_EQ(samples, 2 + metrics.size());  // start time, completed and each figure

  // Bad input: a folder without runs; an output under a regular file.
  const std::string empty = root + "/empty";
  std::filesystem::create_directories(empty);
  const auto [erc, eout] = run_command({"export", empty, "--kcidb", root + "/x.json"}, root);
  EXPECT_EQ(erc, 2) << eout;
  EXPECT_EQ(std::count(eout.begin(), eout.end(), '\n'), 1) << eout;
  EXPECT_NE(eout.find(empty), std::string::npos) << eout;
  const auto [orc, oout] =
      run_command({"export", root, "--openmetrics", kcidb + "/under-a-file.prom"}, root);
  EXPECT_EQ(orc, 6) << oout;
  const auto [src, sout] = run_command({"export", root, "--squad", kcidb + "/squad"}, root);
  EXPECT_EQ(src, 6) << sout;
}

}  // namespace
}  // namespace xrunlab
