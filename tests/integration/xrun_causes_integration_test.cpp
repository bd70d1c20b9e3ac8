// SPDX-License-Identifier: GPL-2.0-or-later
// One xrun count with each xrun's cause, on the real jackd: a foreign JACK client
// (xrunlab-late-client, a program that is not the run's) attached to a run's server stalls its
// callback for two periods, five times, 500 ms apart. The run's chain never waits for it (it is
// connected to nothing), so the cycle table sees no xrun there; JACK reports each stall. Each
// stall must be counted as one xrun event outside the chain, caused by that client by name, and
// none of them blamed on the run's clients. Exact by construction: the counts, not latencies.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/system/process.hpp"
#include "tests/support/run_harness.hpp"

namespace xrunlab::testing_support {
namespace {

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(XrunCauses, EachStallOfAForeignClientIsOneXrunEventOutsideTheChainNamedByIt) {
  constexpr int kStalls = 5;
  XrunlabRun r = start({"run", "--backend", "vcard", "--clients", "4", "--ports", "1", "--period",
                        "256", "--duration", "6", "--no-plots"});
  wait_until_measuring(r);
  SpawnSpec spec;
  // Two periods of 256 frames at 48 kHz (5.33 ms each); the first stall 1 s into its life, so
  // all of them fall inside the 6 s window.
  spec.argv = std::vector<std::string>{XRUNLAB_LATE_CLIENT_BIN,
                                       "--server",
                                       r.server_name(),
                                       "--name",
                                       "intruder",
                                       "--late-us",
                                       "10667",
                                       "--every-ms",
                                       "500",
                                       "--count",
                                       std::to_string(kStalls),
                                       "--after-ms",
                                       "1000"};
  spec.output_path = r.out_dir + "/late-client.out";
  Child late = Child::spawn(spec);
  ASSERT_TRUE(late.wait_for(std::chrono::seconds(30))) << read_text_or_empty(spec.output_path);
  const int status = *late.wait_status();
  const std::string late_out = read_text_or_empty(spec.output_path);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << late_out;
  ASSERT_NE(late_out.find("done stalls 5 of 5"), std::string::npos) << late_out;
  finish(r);
  ASSERT_EQ(r.exit_code, 0) << r.log();

  // jackd itself found the intruder unfinished at the deadline at least once per stall. The
  // state it prints is jackd's view at that moment: usually Running, but on a loaded machine a
  // stall's line can say Triggered (CI met 4 Running of 5), so the state is not counted.
  const std::string jackd_log = read_text_or_empty(r.run_dir() + "/jackd.log");
  EXPECT_GE(count_of(jackd_log, "client = intruder was not finished"), static_cast<size_t>(kStalls))
      << jackd_log;

  const json j = r.run_json();
  const json& causes = j["xrun_causes"];
  ASSERT_TRUE(causes.is_object()) << j["xrun_cycles"].dump();
  uint64_t by_intruder = 0, outside_by_intruder = 0;
  for (const json& c : causes["causes"]) {
    if (c["cause"]["kind"] == "client" && c["cause"]["client"] == "intruder") {
      EXPECT_EQ(c["run_client"], false) << c.dump();
      by_intruder += c["chain_events"].get<uint64_t>() + c["outside_events"].get<uint64_t>();
      outside_by_intruder += c["outside_events"].get<uint64_t>();
    }
  }
  EXPECT_EQ(by_intruder, static_cast<uint64_t>(kStalls)) << causes.dump(1);
  EXPECT_EQ(outside_by_intruder, static_cast<uint64_t>(kStalls))
      << "the run's chain does not wait for it: " << causes.dump(1);
  // The run's one count holds them: the chain's events and those outside it.
  const json& x = j["xrun_cycles"];
  EXPECT_EQ(x["events_total"].get<uint64_t>(),
            x["events"].get<uint64_t>() + x["outside_events"].get<uint64_t>());
  EXPECT_GE(x["outside_events"].get<uint64_t>(), static_cast<uint64_t>(kStalls));
  // Each of the intruder's events outside the chain carries the monitor's callbacks and the
  // line that named it.
  size_t listed = 0;
  for (const json& o : causes["outside"]) {
    if (o["cause"]["client"] != "intruder") continue;
    ++listed;
    EXPECT_GE(o["callbacks"].get<uint64_t>(), 1u) << o.dump();
    EXPECT_GE(o["lines"].get<uint64_t>(), 1u) << o.dump();
  }
  EXPECT_EQ(listed, static_cast<size_t>(kStalls));
  // The summary and the terminal say so in words.
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find("intruder (another program's client)"), std::string::npos) << summary;
  EXPECT_NE(r.log().find("intruder (another program's) 5"), std::string::npos) << r.log();
  expect_nothing_left(r);
}

}  // namespace
}  // namespace xrunlab::testing_support
