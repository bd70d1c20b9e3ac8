// SPDX-License-Identifier: GPL-2.0-or-later
// The audible chain with the real jackd, clients and virtual card: a known signal through every
// client, checked at the tail, recorded, and matched to the xruns that broke it.
#include <gtest/gtest.h>
#include <sndfile.h>

#include <cmath>
#include <map>
#include <string>

#include "tests/support/run_harness.hpp"

namespace xrunlab {
namespace {

using namespace testing_support;

int64_t wav_frames(const std::string& path) {
  SF_INFO info{};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, &info);
  if (f == nullptr) return -1;
  sf_close(f);
  return info.frames;
}

// A clean run (1024 frames: no xruns expected even on these noisy VMs): nothing heard, nothing
// lost, and the recording holds exactly the frames of the window.
TEST(AudioChain, CleanRunHasNoGlitchesAndRecordsEveryFrame) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "3", "--ports", "2", "--period", "1024", "--duration",
                        "3", "--record", "--label", "it-audio-clean", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& a = j["audio"];
  ASSERT_TRUE(a.is_object()) << j.dump();
  EXPECT_TRUE(a["complete"].get<bool>());
  EXPECT_EQ(a["ring_dropped_chunks"].get<uint64_t>(), 0u);
  // Every glitch is explained by an xrun; with no xrun (the normal case here) there is none.
  EXPECT_EQ(a["glitches_without_xrun"].get<uint64_t>(), 0u) << a.dump();
  const bool no_xrun = j["totals"]["xrun_count"].get<uint64_t>() == 0 &&
                       j["xruns"]["monitor_events"].get<uint64_t>() == 0;
  if (no_xrun) {
    EXPECT_EQ(a["glitches"].get<uint64_t>(), 0u) << a.dump();
    EXPECT_EQ(a["delta_max"].get<double>(), 0.0);
  }
  // What was checked and recorded is exactly the tail's measured cycles.
  const json& tail = j["clients"][2];
  const uint64_t frames = tail["cycles"].get<uint64_t>() * 1024;
  EXPECT_EQ(a["frames_checked"].get<uint64_t>(), frames);
  EXPECT_EQ(a["recorded_frames"].get<uint64_t>(), frames);
  EXPECT_EQ(wav_frames(r.run_dir() + "/audio/received.wav"), static_cast<int64_t>(frames));
  // jack_test4's line, in its block: 0 when nothing was heard (a run under load may have an
  // xrun and a glitch even at 1024 frames; the line then holds its size).
  const std::string summary = read_text_or_empty(r.run_dir() + "/summary.txt");
  EXPECT_NE(summary.find(" Delta Maximum . . . . . . . . : "), std::string::npos) << summary;
  if (a["glitches"].get<uint64_t>() == 0) {
    EXPECT_NE(summary.find(" Delta Maximum . . . . . . . . : 0.00000"), std::string::npos)
        << summary;
  }
  expect_nothing_left(r);
}

// Injected overruns of the middle client: each one is an xrun event of the cycle table that
// JACK2 reports and the tail hears; every glitch is tied to the cycle of its xrun, none is
// invented, and each has its excerpt.
TEST(AudioChain, InjectedOverrunsAreHeardAndMatched) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "3", "--ports", "1", "--period", "256", "--duration",
                        "4", "--inject", "8000:100", "--inject-client", "2", "--record", "--label",
                        "it-audio-inject", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  const json& a = j["audio"];
  const auto injected = j["totals"]["injected_overruns"].get<uint64_t>();
  ASSERT_GE(injected, 4u);
  // Glitches are keyed by their cycle (the cycle table), not by a time window.
  EXPECT_EQ(a["matched_by"], "cycle") << a.dump();
  const json& x = j["xrun_cycles"];
  ASSERT_TRUE(x.is_object());
  // Each injected overrun (8 ms in a 5.3 ms period) is an xrun cycle, 100 cycles from the next:
  // one xrun event each (the window's edges may cut one).
  EXPECT_GE(x["events"].get<uint64_t>() + 1, injected) << x.dump();
  std::map<std::string, json> source;
  for (const json& s : x["sources"]) source[s["key"].get<std::string>()] = s;
  ASSERT_EQ(source.size(), 3u) << x.dump();
  // JACK2 reports every one of them to the monitor and in its log; nobody reports an xrun
  // before any xrun cycle happened.
  for (const char* key : {"monitor", "jackd_log"}) {
    EXPECT_GE(source[key]["events_reported"].get<uint64_t>() + 1, injected) << x.dump();
  }
  EXPECT_EQ(source["monitor"]["reports_without_xrun_cycle"].get<uint64_t>(), 0u) << x.dump();
  // None invented: every glitch lies in an xrun event or within 2 cycles after it.
  EXPECT_EQ(a["glitches_without_xrun"].get<uint64_t>(), 0u) << a.dump();
  EXPECT_EQ(source["audio"]["reports_without_xrun_cycle"].get<uint64_t>(), 0u) << x.dump();
  // An xrun event the tail hears is one audible event (a skipped block and a replayed one; the
  // events are 100 cycles apart). Whether JACK2 loses audio in one is its timing, not ours (seen
  // here: 7 of 8 heard in one run, 0 of 9 in another, both reported by the monitor and the
  // log), so how many are heard is printed, not asserted; what holds by construction is.
  const auto heard = source["audio"]["events_reported"].get<uint64_t>();
  std::printf("%llu of %llu injected overruns heard at the tail\n",
              static_cast<unsigned long long>(heard), static_cast<unsigned long long>(injected));
  EXPECT_LE(heard, x["events"].get<uint64_t>());
  EXPECT_EQ(a["xruns_without_glitch"].get<uint64_t>(),
            source["audio"]["events_missed"].get<uint64_t>());
  EXPECT_EQ(heard + source["audio"]["events_missed"].get<uint64_t>(),
            source["audio"]["events_judged"].get<uint64_t>())
      << x.dump();
  // Delta Maximum is the largest deviation of a glitch: above 0 exactly when one was heard.
  EXPECT_EQ(a["delta_max"].get<double>() > 0.0, a["glitches"].get<uint64_t>() > 0) << a.dump();
  uint64_t excerpts = 0;
  for (const json& g : a["glitch_list"]) {
    EXPECT_TRUE(g["matched_xrun"].get<bool>()) << g.dump();
    ASSERT_TRUE(g["cycle"].is_number() && g["xrun_cycle"].is_number()) << g.dump();
    EXPECT_GE(g["cycle"].get<uint64_t>(), g["xrun_cycle"].get<uint64_t>()) << g.dump();
    // jackd's log names the clients that were late: among them the injected one, c02, or the
    // one after it that waited for it (JACK2 names the first unfinished client at its check).
    // The head may be named too: with c02 busy-waiting on one of two cores, the next cycle's
    // c01 can be late as well (seen in 2 of 6 runs here), so that is not asserted.
    const std::string late = g["late_clients"].dump();
    EXPECT_TRUE(late.find(r.client_name(2)) != std::string::npos ||
                late.find(r.client_name(3)) != std::string::npos)
        << g.dump();
    const int64_t n = wav_frames(r.run_dir() + "/" + g["excerpt"].get<std::string>());
    EXPECT_GT(n, 0) << g.dump();
    EXPECT_LE(n, 9600) << g.dump();  // 200 ms at 48 kHz
    ++excerpts;
  }
  EXPECT_EQ(excerpts, a["glitches"].get<uint64_t>());
  expect_nothing_left(r);
}

TEST(AudioChain, OneClientHasNoCheckAndSaysSo) {
  XrunlabRun r;
  ASSERT_EQ(run_to_end({"run", "--clients", "1", "--ports", "1", "--period", "1024", "--duration",
                        "1", "--label", "it-audio-one", "--no-plots"},
                       &r),
            0)
      << r.log();
  const json j = r.run_json();
  EXPECT_TRUE(j["audio"].is_null());
  EXPECT_NE(j["warnings"].dump().find("at least 2 clients"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
