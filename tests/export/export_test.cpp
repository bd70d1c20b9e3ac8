// SPDX-License-Identifier: GPL-2.0-or-later
// Unit tests of `xrunlab export`'s documents (engine/export/exports.hpp) on hand-made runs:
// which figures each format carries (those the run has, never an absent one as 0), the
// verdicts --fail-if gives, names made safe for each format, and OpenMetrics' escaping.
#include <gtest/gtest.h>

#include <set>

#include "engine/base/errors.hpp"
#include "engine/export/exports.hpp"
#include "tests/support/sample_result.hpp"

namespace xrunlab {
namespace {

using nlohmann::ordered_json;

// The sample run, completed, with a label, a host and a start.
RunResult completed_run(const std::string& label, const std::string& started,
                        const std::string& id) {
  RunResult r = testing_support::sample_result();
  r.status = RunStatus::kCompleted;
  r.status_detail.clear();
  r.run_id = id;
  r.started_utc = started;
  r.spec = RunSpec{};
  r.spec->label = label;
  r.host = HostRecord{};
  r.host->hostname = "studio";
  r.host->kernel.release = "6.12.0-rt5";
  r.host->kernel.version = "#1 SMP PREEMPT_RT";
  r.host->kernel.machine = "x86_64";
  r.backend.name = "vcard";
  return r;
}

// The figures the run has, by run_metric itself.
std::vector<std::string> present_figures(const RunResult& r) {
  std::vector<std::string> names;
  for (const RunMetric& m : run_metrics()) {
    if (run_metric(r, m.name)) names.push_back(m.name);
  }
  return names;
}

std::vector<ordered_json> tests_with_path(const ordered_json& doc, const std::string& path) {
  std::vector<ordered_json> out;
  for (const ordered_json& t : doc["tests"]) {
    if (t["path"] == path) out.push_back(t);
  }
  return out;
}

TEST(ExportFigures, TheSampleHasSomeFiguresAndLacksOthers) {
  const RunResult r = completed_run("a", "2026-12-01T10:00:00Z", "id-1");
  const auto names = present_figures(r);
  ASSERT_FALSE(names.empty());
  // No baseline was run beside it: its figures are absent, the premise of the tests below.
  EXPECT_FALSE(run_metric(r, "baseline_p99"));
  EXPECT_TRUE(run_metric(r, "xruns"));
}

TEST(Kcidb, OneTestPerRunAndPerFigureItHas) {
  const RunResult r = completed_run("jack_test64", "2026-12-01T10:00:00Z", "id-1");
  const ordered_json doc = kcidb_json({export_run_of(r)}, ExportOptions{});
  EXPECT_EQ(doc["version"], ordered_json({{"major", 4}, {"minor", 4}}));
  const auto names = present_figures(r);
  ASSERT_EQ(doc["tests"].size(), 1 + names.size());
  ASSERT_EQ(doc["checkouts"].size(), 1u);
  ASSERT_EQ(doc["builds"].size(), 1u);
  EXPECT_EQ(doc["builds"][0]["checkout_id"], doc["checkouts"][0]["id"]);
  EXPECT_EQ(doc["builds"][0]["architecture"], "x86_64");
  // The run's own test, then each figure's: DONE (no --fail-if), its value and unit.
  const ordered_json& run_test = doc["tests"][0];
  EXPECT_EQ(run_test["path"], "xrunlab.jack_test64");
  EXPECT_EQ(run_test["id"], "xrunlab:id-1");
  EXPECT_EQ(run_test["status"], "DONE");
  EXPECT_FALSE(run_test.contains("number"));
  EXPECT_EQ(run_test["start_time"], "2026-12-01T10:00:00Z");
  EXPECT_EQ(run_test["environment"]["misc"]["host"], "studio");
  EXPECT_EQ(run_test["environment"]["misc"]["period_frames"], 256);
  for (const std::string& name : names) {
    const auto t = tests_with_path(doc, "xrunlab.jack_test64." + name);
    ASSERT_EQ(t.size(), 1u) << name;
    EXPECT_EQ(t[0]["id"], "xrunlab:id-1." + name);
    EXPECT_EQ(t[0]["status"], "DONE");
    EXPECT_EQ(t[0]["build_id"], doc["builds"][0]["id"]);
    EXPECT_EQ(t[0]["number"]["value"].get<double>(), *run_metric(r, name)) << name;
    const std::string unit = find_run_metric(name)->unit;
    EXPECT_EQ(t[0]["number"].contains("unit"), !unit.empty()) << name;
    if (!unit.empty()) {
      EXPECT_EQ(t[0]["number"]["unit"], unit);
    }
  }
  // A figure the run lacks is no test at all (never a number 0).
  EXPECT_TRUE(tests_with_path(doc, "xrunlab.jack_test64.baseline_p99").empty());
}

TEST(Kcidb, FailIfMakesPassAndFail) {
  const RunResult r = completed_run("c", "2026-12-01T10:00:00Z", "id-1");
  const double xruns = *run_metric(r, "xruns");
  ExportOptions o;
  o.origin = "lab_2";
  // One condition that holds (the figure crosses it) and one that does not.
  o.fail_if = {parse_threshold("xruns>=" + std::to_string(xruns)),
               parse_threshold("glitches>1000000")};
  const ordered_json doc = kcidb_json({export_run_of(r)}, o);
  const auto x = tests_with_path(doc, "xrunlab.c.xruns");
  ASSERT_EQ(x.size(), 1u);
  EXPECT_EQ(x[0]["status"], "FAIL");
  EXPECT_EQ(x[0]["origin"], "lab_2");
  EXPECT_EQ(x[0]["id"], "lab_2:id-1.xruns");
  ASSERT_EQ(x[0]["misc"]["fail_if"].size(), 1u);
  EXPECT_EQ(tests_with_path(doc, "xrunlab.c")[0]["status"], "FAIL");
  // Figures no condition names stay DONE.
  for (const ordered_json& t : doc["tests"]) {
    const std::string p = t["path"];
    if (p != "xrunlab.c" && p != "xrunlab.c.xruns" && p != "xrunlab.c.glitches") {
      EXPECT_EQ(t["status"], "DONE") << p;
    }
  }
}

TEST(Kcidb, ConditionThatHoldsNotIsPass) {
  const RunResult r = completed_run("c", "2026-12-01T10:00:00Z", "id-1");
  const double xruns = *run_metric(r, "xruns");
  ExportOptions o;
  o.fail_if = {parse_threshold("xruns>" + std::to_string(xruns + 1))};
  const ordered_json doc = kcidb_json({export_run_of(r)}, o);
  EXPECT_EQ(tests_with_path(doc, "xrunlab.c.xruns")[0]["status"], "PASS");
  EXPECT_EQ(tests_with_path(doc, "xrunlab.c")[0]["status"], "PASS");
}

TEST(Kcidb, ConditionOnAFigureTheRunLacksFailsWithoutANumber) {
  const RunResult r = completed_run("c", "2026-12-01T10:00:00Z", "id-1");
  ExportOptions o;
  o.fail_if = {parse_threshold("baseline_p99>100us")};
  const ordered_json doc = kcidb_json({export_run_of(r)}, o);
  const auto t = tests_with_path(doc, "xrunlab.c.baseline_p99");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0]["status"], "FAIL");
  EXPECT_FALSE(t[0].contains("number"));
}

TEST(Kcidb, RunThatDidNotCompleteIsError) {
  RunResult r = completed_run("c", "2026-12-01T10:00:00Z", "id-1");
  r.status = RunStatus::kInterrupted;
  r.status_detail = "SIGINT";
  ExportOptions o;
  o.fail_if = {parse_threshold("xruns>1000000")};
  const ordered_json doc = kcidb_json({export_run_of(r)}, o);
  for (const ordered_json& t : doc["tests"]) {
    EXPECT_EQ(t["status"], "ERROR") << t["path"];
    EXPECT_EQ(t["misc"]["run_status"], "interrupted");
  }
  EXPECT_EQ(doc["tests"][0]["comment"], "SIGINT");
}

TEST(Kcidb, RunsOnOneKernelShareItsCheckoutAndBuild) {
  const RunResult a = completed_run("a", "2026-12-01T10:00:00Z", "id-1");
  RunResult b = completed_run("b", "2026-12-01T11:00:00Z", "id-2");
  RunResult c = completed_run("b", "2026-12-01T12:00:00Z", "id-3");
  c.host->kernel.version = "#2 SMP PREEMPT_RT";  // another build of the same release
  const ordered_json doc =
      kcidb_json({export_run_of(a), export_run_of(b), export_run_of(c)}, ExportOptions{});
  EXPECT_EQ(doc["checkouts"].size(), 2u);
  EXPECT_EQ(doc["builds"].size(), 2u);
  std::set<std::string> ids;
  for (const ordered_json& t : doc["tests"]) ids.insert(t["id"].get<std::string>());
  EXPECT_EQ(ids.size(), doc["tests"].size()) << "test ids are not unique";
}

TEST(Kcidb, UnknownKernelLeavesOutWhatIsNotKnown) {
  RunResult r = completed_run("a", "", "id-1");
  r.host.reset();
  const ordered_json doc = kcidb_json({export_run_of(r)}, ExportOptions{});
  EXPECT_EQ(doc["checkouts"][0]["id"], "xrunlab:kernel-unknown");
  EXPECT_FALSE(doc["builds"][0].contains("architecture"));
  EXPECT_FALSE(doc["tests"][0].contains("start_time"));
  EXPECT_FALSE(doc["tests"][0]["environment"]["misc"].contains("host"));
}

TEST(Kcidb, NamesAndOriginsAreMadeSafe) {
  EXPECT_EQ(kcidb_path_part("jack test/64.x"), "jack_test_64_x");
  EXPECT_EQ(kcidb_path_part("ok-name_1"), "ok-name_1");
  EXPECT_EQ(kcidb_path_part(""), "unlabelled");
  const RunResult r = completed_run("periods 64.128", "2026-12-01T10:00:00Z", "id-1");
  const ordered_json doc = kcidb_json({export_run_of(r)}, ExportOptions{});
  EXPECT_EQ(doc["tests"][0]["path"], "xrunlab.periods_64_128");
  EXPECT_NO_THROW(check_kcidb_origin("my_lab2"));
  for (const char* bad : {"", "My_lab", "my-lab", "lab:1"}) {
    try {
      check_kcidb_origin(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kUsage);
    }
  }
}

TEST(Squad, MetricsOfACaseAreListsAndTestsAreVerdicts) {
  const RunResult a = completed_run("case/1", "2026-12-01T10:00:00Z", "id-1");
  const RunResult b = completed_run("case/1", "2026-12-01T11:00:00Z", "id-2");
  const RunResult c = completed_run("other", "2026-12-01T12:00:00Z", "id-3");
  ExportOptions o;
  o.fail_if = {parse_threshold("xruns>=0")};
  const SquadFiles f = squad_files({export_run_of(a), export_run_of(b), export_run_of(c)}, o);
  // Each figure of each case: a list of its two runs' values, or the one run's number.
  const auto names = present_figures(a);
  EXPECT_EQ(f.metrics.size(), 2 * names.size());
  for (const std::string& n : names) {
    const ordered_json& two = f.metrics["xrunlab/case_1/" + n];
    ASSERT_TRUE(two.is_array()) << n;
    EXPECT_EQ(two, ordered_json({*run_metric(a, n), *run_metric(b, n)})) << n;
    EXPECT_TRUE(f.metrics["xrunlab/other/" + n].is_number()) << n;
  }
  EXPECT_FALSE(f.metrics.contains("xrunlab/case_1/baseline_p99"));
  EXPECT_EQ(f.tests, ordered_json({{"xrunlab/case_1/completed", "pass"},
                                   {"xrunlab/case_1/xruns", "fail"},
                                   {"xrunlab/other/completed", "pass"},
                                   {"xrunlab/other/xruns", "fail"}}));
  for (const auto& [key, value] : f.metadata.items()) {
    if (key != "suite_versions") {
      EXPECT_TRUE(value.is_string()) << key;
    }
  }
  EXPECT_EQ(f.metadata["runs"], "3");
  EXPECT_EQ(f.metadata["datetime"], "2026-12-01T10:00:00Z");
  EXPECT_EQ(f.metadata["job_id"].get<std::string>().rfind("xrunlab-", 0), 0u);
}

TEST(Squad, OneRunIsItsOwnJobAndAnUnfinishedRunFailsCompleted) {
  RunResult r = completed_run("a", "2026-12-01T10:00:00Z", "id-1");
  r.status = RunStatus::kFailed;
  const SquadFiles f = squad_files({export_run_of(r)}, ExportOptions{});
  EXPECT_EQ(f.metadata["job_id"], "id-1");
  EXPECT_EQ(f.metadata["job_status"], "failed");
  EXPECT_EQ(f.tests, ordered_json({{"xrunlab/a/completed", "fail"}}));
  // A cut window's figures are not the case's metrics.
  EXPECT_TRUE(f.metrics.empty());
  EXPECT_EQ(squad_name_part("a/b[c] d"), "a_b_c__d");
}

TEST(OpenMetrics, NamesInBaseUnitsAndUnique) {
  const OpenMetricsName d = openmetrics_name(*find_run_metric("delay_max"));
  EXPECT_EQ(d.name, "xrunlab_delay_max_seconds");
  EXPECT_EQ(d.unit, "seconds");
  EXPECT_DOUBLE_EQ(d.scale, 1e-6);
  EXPECT_EQ(openmetrics_name(*find_run_metric("dsp_max_us")).name, "xrunlab_dsp_max_seconds");
  EXPECT_EQ(openmetrics_name(*find_run_metric("bench_job_ms")).name, "xrunlab_bench_job_seconds");
  const OpenMetricsName load = openmetrics_name(*find_run_metric("dsp_load"));
  EXPECT_EQ(load.name, "xrunlab_dsp_load_ratio");
  EXPECT_DOUBLE_EQ(load.scale, 0.01);
  const OpenMetricsName rate = openmetrics_name(*find_run_metric("xrun_rate"));
  EXPECT_EQ(rate.name, "xrunlab_xrun_rate_per_second");
  EXPECT_EQ(rate.unit, "");
  EXPECT_EQ(openmetrics_name(*find_run_metric("xruns")).name, "xrunlab_xruns");
  std::set<std::string> names;
  for (const RunMetric& m : run_metrics()) names.insert(openmetrics_name(m).name);
  EXPECT_EQ(names.size(), run_metrics().size());
}

TEST(OpenMetrics, LabelValuesAreEscaped) {
  EXPECT_EQ(openmetrics_escaped("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  EXPECT_EQ(openmetrics_escaped("plain"), "plain");
  const RunResult r = completed_run("say \"hi\"\\now", "2026-12-01T10:00:00Z", "id-1");
  const std::string text = openmetrics_text({export_run_of(r)});
  EXPECT_NE(text.find("{case=\"say \\\"hi\\\"\\\\now\",host=\"studio\",kernel=\"6.12.0-rt5\","
                      "policy=\"fifo\",period=\"256\",clients=\"2\",backend=\"vcard\"}"),
            std::string::npos)
      << text;
}

TEST(OpenMetrics, LatestRunOfEachCaseOnceAndAbsentFiguresLeftOut) {
  RunResult old = completed_run("a", "2026-12-01T10:00:00Z", "id-1");
  old.frames = 128;
  RunResult latest = completed_run("a", "2026-12-01T11:00:00Z", "id-2");
  const RunResult other = completed_run("b", "2026-12-01T09:00:00Z", "id-3");
  // Given out of order: the latest is chosen by started_utc, not by position.
  const std::string text =
      openmetrics_text({export_run_of(latest), export_run_of(old), export_run_of(other)});
  ASSERT_GE(text.size(), 6u);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  EXPECT_EQ(text.find("period=\"128\""), std::string::npos) << text;
  // Each family has one sample per case; the figures the runs have are the families.
  size_t types = 0, samples = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) == 0) ++types;
    if (!line.empty() && line[0] != '#') ++samples;
  }
  const size_t figures = present_figures(latest).size();
  EXPECT_EQ(types, 2 + figures);  // start time, completed, and each figure
  EXPECT_EQ(samples, 2 * (2 + figures));
  EXPECT_EQ(text.find("xrunlab_baseline_p99_seconds"), std::string::npos);
  EXPECT_NE(text.find("xrunlab_run_start_timestamp_seconds{case=\"a\""), std::string::npos);
  EXPECT_NE(text.find("# UNIT xrunlab_delay_max_seconds seconds\n"), std::string::npos);
}

TEST(OpenMetrics, ValuesAreInBaseUnits) {
  const RunResult r = completed_run("a", "2026-12-01T10:00:00Z", "id-1");
  const auto delay = run_metric(r, "delay_max");
  ASSERT_TRUE(delay);
  const std::string text = openmetrics_text({export_run_of(r)});
  const auto at = text.find("\nxrunlab_delay_max_seconds{");
  ASSERT_NE(at, std::string::npos);
  const auto line_end = text.find('\n', at + 1);
  const std::string line = text.substr(at + 1, line_end - at - 1);
  EXPECT_NEAR(std::stod(line.substr(line.rfind(' ') + 1)), *delay * 1e-6, 1e-12) << line;
}

}  // namespace
}  // namespace xrunlab
