// SPDX-License-Identifier: GPL-2.0-or-later
// The log filter (engine/jack/log_filter.hpp) in a real run: jackd -v (vcard backend) with
// injected overruns, once filtered and once with --full-log. The xrun cross-check (run.json's
// log_* counts against the monitor's) works either way, and the filtered jackd.log still holds
// every xrun line the counter counted: counts exact by construction, no latency thresholds.
#include <gtest/gtest.h>

#include <sstream>

#include "engine/jack/jackd_log.hpp"
#include "engine/jack/log_filter.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

struct LogLines {
  uint64_t lines = 0, xrun_lines = 0;
};

LogLines read_log(const std::string& path) {
  LogLines out;
  std::istringstream in(read_text_or_empty(path));
  std::string line;
  while (std::getline(in, line)) {
    ++out.lines;
    if (parse_jackd_line(line).kind != JackdLineKind::kOther) ++out.xrun_lines;
  }
  return out;
}

struct Ran {
  json j;
  LogLines log;
  std::string summary;
};

// One run; its files are read before the harness removes its folder.
Ran run_with(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "run", "--backend", "vcard",   "--clients",       "4", "--period", "256", "--duration",
      "3",   "--inject",  "8000:50", "--inject-client", "2"};
  for (const std::string& a : extra) args.push_back(a);
  XrunlabRun r = start(args);
  finish(r);
  EXPECT_EQ(r.exit_code, 0) << r.log();
  expect_nothing_left(r);
  return {r.run_json(), read_log(r.run_dir() + "/jackd.log"),
          read_text_or_empty(r.run_dir() + "/summary.txt")};
}

TEST(LogFilterIntegration, XrunLinesSurviveTheFilterAndTheCrossCheckWorksWithAndWithout) {
  for (const bool full : {false, true}) {
    SCOPED_TRACE(full ? "--full-log" : "filtered");
    const Ran ran =
        run_with(full ? std::vector<std::string>{"--full-log"} : std::vector<std::string>{});
    const json& j = ran.j;
    ASSERT_TRUE(j["logs"].is_object()) << j.dump();
    const json& x = j["xruns"];
    const auto injected = j["totals"]["injected_overruns"].get<uint64_t>();
    // 3 s at 187.5 cycles/s, every 50th callback of client 2 overruns by 8 ms (> 5.3 ms period).
    ASSERT_GE(injected, 5u);
    EXPECT_GE(x["monitor_events"].get<uint64_t>(), injected);
    EXPECT_GE(x["log_client_lines"].get<uint64_t>(), injected);
    expect_xrun_counts_consistent(j);
    // The file holds every xrun line the counter counted (it counts the window only).
    const LogLines& log = ran.log;
    EXPECT_GE(log.xrun_lines,
              x["log_client_lines"].get<uint64_t>() + x["log_driver_xruns"].get<uint64_t>());
    const json& jl = j["logs"]["jackd"];
    const json& cl = j["logs"]["clients"];
    EXPECT_EQ(jl["full_log"], full);
    EXPECT_EQ(cl["full_log"], full);
    // Far below the repeat bound (LogFilter::kKeepRepeats): no xrun line or message dropped.
    for (const json* l : {&jl, &cl}) {
      for (auto it = (*l)["dropped"].begin(); it != (*l)["dropped"].end(); ++it) {
        EXPECT_NE(it.key().rfind("xrun", 0), 0u) << it.key();
        EXPECT_NE(it.key().rfind("message", 0), 0u) << it.key();
      }
    }
    EXPECT_EQ(jl["repeats_kept_per_kind"], LogFilter::kKeepRepeats);
    if (full) {
      // Every line in the file: the count is exact.
      EXPECT_EQ(jl["kept"], jl["lines"]);
      EXPECT_EQ(log.lines, jl["lines"].get<uint64_t>());
      EXPECT_TRUE(jl["dropped"].empty());
      EXPECT_EQ(cl["kept"], cl["lines"]);
    } else {
      // jackd -v on 4 clients prints more than 20 ClientNotify lines: the filter was at work,
      // and the file is what it kept plus one note per kind it cut.
      EXPECT_LT(jl["kept"].get<uint64_t>(), jl["lines"].get<uint64_t>());
      EXPECT_GT(jl["dropped"].value("Jack: JackEngine::ClientNotify", 0), 0);
      EXPECT_GE(log.lines, jl["kept"].get<uint64_t>());
      EXPECT_LE(log.lines, jl["kept"].get<uint64_t>() + LogFilter::kMaxKinds + 1);
      const std::string& summary = ran.summary;
      EXPECT_NE(summary.find("--full-log keeps every line"), std::string::npos) << summary;
    }
  }
}

}  // namespace
}  // namespace xrunlab::testing_support
