// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/jackd_log.hpp"

#include <gtest/gtest.h>

namespace xrunlab {
namespace {

TEST(ParseJackdLine, ClientNotFinished) {
  const JackdLine l =
      parse_jackd_line("JackEngine::XRun: client = xrunlab-c3 was not finished, state = Triggered");
  EXPECT_EQ(l.kind, JackdLineKind::kClientNotFinished);
  EXPECT_EQ(l.client, "xrunlab-c3");
  EXPECT_EQ(l.state, "Triggered");
}

TEST(ParseJackdLine, AllStatesAndTrailingNewline) {
  for (const char* state : {"NotTriggered", "Triggered", "Running", "Finished"}) {
    const std::string line =
        std::string("JackEngine::XRun: client = c1 was not finished, state = ") + state + "\r\n";
    const JackdLine l = parse_jackd_line(line);
    EXPECT_EQ(l.kind, JackdLineKind::kClientNotFinished) << line;
    EXPECT_EQ(l.state, state);
    EXPECT_EQ(l.client, "c1");
  }
}

TEST(ParseJackdLine, ClientFinishedLate) {
  const JackdLine l =
      parse_jackd_line("JackEngine::XRun: client jack_cpu-7 finished after current callback\n");
  EXPECT_EQ(l.kind, JackdLineKind::kClientFinishedLate);
  EXPECT_EQ(l.client, "jack_cpu-7");
  EXPECT_TRUE(l.state.empty());
}

TEST(ParseJackdLine, ClientNamesWithSpacesAndDashes) {
  JackdLine l = parse_jackd_line(
      "JackEngine::XRun: client = My Synth - Part 2 was not finished, state = Running");
  EXPECT_EQ(l.kind, JackdLineKind::kClientNotFinished);
  EXPECT_EQ(l.client, "My Synth - Part 2");
  EXPECT_EQ(l.state, "Running");

  l = parse_jackd_line(
      "JackEngine::XRun: client My Synth - Part 2 finished after current callback");
  EXPECT_EQ(l.kind, JackdLineKind::kClientFinishedLate);
  EXPECT_EQ(l.client, "My Synth - Part 2");

  // Greedy: a name that itself contains the separator keeps everything up to the last one.
  l = parse_jackd_line(
      "JackEngine::XRun: client = a was not finished, state = b was not finished, state = Running");
  EXPECT_EQ(l.kind, JackdLineKind::kClientNotFinished);
  EXPECT_EQ(l.client, "a was not finished, state = b");
  EXPECT_EQ(l.state, "Running");
}

TEST(ParseJackdLine, PrefixIsTolerated) {
  const JackdLine l = parse_jackd_line(
      "[12.345] jackd: JackEngine::XRun: client = c2 was not finished, state = Triggered");
  EXPECT_EQ(l.kind, JackdLineKind::kClientNotFinished);
  EXPECT_EQ(l.client, "c2");
}

TEST(ParseJackdLine, TimedDriverXrun) {
  const JackdLine l = parse_jackd_line("JackTimedDriver::Process XRun = 1234 usec\n");
  EXPECT_EQ(l.kind, JackdLineKind::kDriverXrun);
  EXPECT_DOUBLE_EQ(l.driver_delay_us, 1234.0);
  EXPECT_TRUE(l.client.empty());
}

TEST(ParseJackdLine, AlsaDriverXrun) {
  const JackdLine l = parse_jackd_line("**** alsa_pcm: xrun of at least 2.125 msecs\r\n");
  EXPECT_EQ(l.kind, JackdLineKind::kDriverXrun);
  EXPECT_DOUBLE_EQ(l.driver_delay_us, 2125.0);
}

TEST(ParseJackdLine, GarbageAndMalformedLines) {
  for (const char* line : {
           "",
           "\r\n",
           "jackdmp 1.9.21",
           "JackEngine::XRun: client = ",
           "JackEngine::XRun: client = c1 was not finished, state = ",
           "JackEngine::XRun: client = c1 was not finished, state = ???",
           "JackEngine::XRun: client =  was not finished",
           "JackEngine::XRun: client  finished after current callback",
           "JackEngine::XRun: client c1 finished after current callback, or not",
           "JackTimedDriver::Process XRun = usec",
           "JackTimedDriver::Process XRun = 12 frames",
           "xrun of at least msecs",
           "ALSA XRun wait_status = -1",
           "Cannot lock down 107341340 byte memory area (Cannot allocate memory)",
       }) {
    EXPECT_EQ(parse_jackd_line(line).kind, JackdLineKind::kOther) << '"' << line << '"';
  }
}

// Found by tests/fuzz/jackd_log_fuzz.cpp: a negative or non-finite delay was read as a driver
// xrun of that delay (a negative one, or an infinite maximum that run.json cannot hold).
TEST(ParseJackdLine, DriverDelayMustBeFiniteAndNotNegative) {
  for (const char* line : {
           "JackTimedDriver::Process XRun = -234 usec", "JackTimedDriver::Process XRun = inf usec",
           "JackTimedDriver::Process XRun = nan usec", "JackTimedDriver::Process XRun = 1e400 usec",
           "**** alsa_pcm: xrun of at least -1.5 msecs",
           "**** alsa_pcm: xrun of at least infinity msecs",
           "**** alsa_pcm: xrun of at least 1e306 msecs",  // finite, but not in microseconds
       }) {
    EXPECT_EQ(parse_jackd_line(line).kind, JackdLineKind::kOther) << '"' << line << '"';
  }
  EXPECT_EQ(parse_jackd_line("JackTimedDriver::Process XRun = 0 usec").kind,
            JackdLineKind::kDriverXrun);
  JackdXrunCounter c(500);
  c.add("JackTimedDriver::Process XRun = -234 usec", 0);
  EXPECT_EQ(c.driver_xruns(), 0u);
  EXPECT_EQ(c.driver_max_delay_us(), 0);
}

std::string not_finished(const std::string& name) {
  return "JackEngine::XRun: client = " + name + " was not finished, state = Triggered";
}

std::string finished_late(const std::string& name) {
  return "JackEngine::XRun: client " + name + " finished after current callback";
}

TEST(JackdXrunCounter, EmptyCounter) {
  JackdXrunCounter c(1000);
  EXPECT_EQ(c.client_events(), 0u);
  EXPECT_EQ(c.client_lines(), 0u);
  EXPECT_EQ(c.driver_xruns(), 0u);
  EXPECT_DOUBLE_EQ(c.driver_max_delay_us(), 0.0);
  EXPECT_TRUE(c.late_clients().empty());
  c.add("JackEngine::XRun: client = c1 was not finished, state = Trig gered", 5);  // malformed
  c.add("hello", 10);
  EXPECT_EQ(c.client_lines(), 0u);
}

TEST(JackdXrunCounter, OnePassIsOneEvent) {
  JackdXrunCounter c(1000);
  c.add(not_finished("c1"), 100);
  c.add(not_finished("c2"), 110);
  c.add(finished_late("c3"), 120);
  EXPECT_EQ(c.client_events(), 1u);
  EXPECT_EQ(c.client_lines(), 3u);
}

TEST(JackdXrunCounter, RepeatedNameStartsNewEvent) {
  JackdXrunCounter c(1'000'000);  // gap large enough that only repeats split events
  c.add(not_finished("c1"), 0);
  c.add(not_finished("c2"), 1);
  c.add(not_finished("c1"), 2);  // new pass
  c.add(not_finished("c2"), 3);
  c.add(finished_late("c2"), 4);  // same name again: third pass
  EXPECT_EQ(c.client_events(), 3u);
  EXPECT_EQ(c.client_lines(), 5u);
}

TEST(JackdXrunCounter, GapStartsNewEvent) {
  JackdXrunCounter c(500);
  c.add(not_finished("c1"), 1000);
  c.add(not_finished("c2"), 1500);  // gap == 500: same event
  c.add(not_finished("c3"), 2001);  // gap 501: new event
  c.add(not_finished("c4"), 2100);
  EXPECT_EQ(c.client_events(), 2u);
  EXPECT_EQ(c.client_lines(), 4u);
}

TEST(JackdXrunCounter, DriverLinesDoNotSplitClientGroups) {
  JackdXrunCounter c(500);
  c.add(not_finished("c1"), 0);
  c.add("JackTimedDriver::Process XRun = 40 usec", 10);
  c.add(not_finished("c2"), 20);
  EXPECT_EQ(c.client_events(), 1u);
  EXPECT_EQ(c.driver_xruns(), 1u);
}

TEST(JackdXrunCounter, LateClientsAreUnique) {
  JackdXrunCounter c(100);
  c.add(not_finished("c1"), 0);
  c.add(not_finished("My Client"), 1);
  c.add(not_finished("c1"), 1000);
  c.add(finished_late("c1"), 2000);
  c.add(finished_late("c9"), 3000);
  EXPECT_EQ(c.late_clients(), (std::set<std::string>{"My Client", "c1", "c9"}));
  EXPECT_EQ(c.client_events(), 4u);
  EXPECT_EQ(c.client_lines(), 5u);
}

TEST(JackdXrunCounter, DriverXrunsAndMaxDelay) {
  JackdXrunCounter c(100);
  c.add("JackTimedDriver::Process XRun = 42 usec", 0);
  c.add("JackTimedDriver::Process XRun = 69 usec\n", 0);
  c.add("**** alsa_pcm: xrun of at least 0.050 msecs", 0);
  c.add("JackTimedDriver::Process XRun = 46 usec", 0);
  EXPECT_EQ(c.driver_xruns(), 4u);
  EXPECT_DOUBLE_EQ(c.driver_max_delay_us(), 69.0);
  c.add("**** alsa_pcm: xrun of at least 1.500 msecs", 0);
  EXPECT_DOUBLE_EQ(c.driver_max_delay_us(), 1500.0);
  EXPECT_EQ(c.client_events(), 0u);
  EXPECT_TRUE(c.late_clients().empty());
}

}  // namespace
TEST(JackdXrunCounter, KeepsEachEventWithItsLateClientsOrTheDriver) {
  JackdXrunCounter c(2000);
  c.add("JackEngine::XRun: client = xrunlab-c02 was not finished, state = Running", 1000);
  c.add("JackEngine::XRun: client = xrunlab-c03 was not finished, state = Triggered", 1010);
  c.add("**** alsa_pcm: xrun of at least 12.000 msecs", 50000);
  c.add("JackEngine::XRun: client = xrunlab-c02 was not finished, state = Running", 90000);
  ASSERT_EQ(c.events().size(), 3u);
  EXPECT_EQ(c.events()[0].arrival_us, 1000);
  EXPECT_FALSE(c.events()[0].driver);
  EXPECT_EQ(c.events()[0].clients, (std::vector<std::string>{"xrunlab-c02", "xrunlab-c03"}));
  EXPECT_TRUE(c.events()[1].driver);
  EXPECT_TRUE(c.events()[1].clients.empty());
  EXPECT_EQ(c.events()[2].clients, (std::vector<std::string>{"xrunlab-c02"}));
  EXPECT_EQ(c.client_events(), 2u);
  EXPECT_EQ(c.driver_xruns(), 1u);
}

}  // namespace xrunlab

namespace xrunlab {
namespace {

// jack_test's Timeout Count was its awk's /timed out/: every line with those words, whatever
// else it says (JACK1's "subgraph starting at ... timed out", JACK2's semaphore time-outs).
TEST(JackdXrunCounter, CountsEveryLineSayingTimedOut) {
  JackdXrunCounter c(1000);
  c.add(
      "subgraph starting at xrunlab-c03 timed out (subgraph_wait_fd=12, status = 0, state = "
      "Triggered)",
      0);
  c.add("JackPosixSemaphore::TimedWait name = x err = Connection timed out", 10);
  c.add("JackEngine::XRun: client = xrunlab-c02 was not finished, state = Triggered", 20);
  c.add("nothing timed_out here", 30);
  EXPECT_EQ(c.timed_out_lines(), 2u);
  EXPECT_EQ(c.client_lines(), 1u);
}

}  // namespace
}  // namespace xrunlab
