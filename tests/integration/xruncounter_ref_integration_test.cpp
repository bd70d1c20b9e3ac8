// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-xruncounter-ref (tests/tools/xrun_ramp_reference.cpp, xruncounter's rule: a load ramp
// up to the first xrun) on a private jackd of the test's own (dummy driver, 1024 frames at
// 48 kHz, as scripts/headroom-vs-xruncounter.sh starts it): it reaches an xrun within 60 s and
// prints its figures in its documented format. The values are the machine's; only their form
// and range are checked.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/jack/jack_registry.hpp"
#include "engine/jack/monitor.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using namespace std::chrono_literals;
using testing_support::read_text_or_empty;
using testing_support::TempDir;

// The first line of `text` starting with `prefix`, "" when none does.
std::string line_starting(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return "";
}

// A number that is the whole of `s`, NaN when it is not one.
double number(const std::string& s) {
  if (s.empty()) return std::nan("");
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  return *end == '\0' ? v : std::nan("");
}

TEST(XruncounterRef, RampsToTheFirstXrunAndPrintsItsFigures) {
  const std::string server = "xrunlab-xrctest-" + std::to_string(::getpid());
  TempDir dir{"xrc"};
  SpawnSpec js;
  js.argv = {"jackd", "-n", server, "-d", "dummy", "-r", "48000", "-p", "1024"};
  js.output_path = dir.file("jackd.log");
  js.env = {{"JACK_NO_AUDIO_RESERVATION", "1"}};
  Child jackd = Child::spawn(js);
  {
    // Up when it takes a client (libjack names a client's socket by the client's name alone,
    // so this one and the reference client carry the test's pid).
    Monitor probe;
    ASSERT_EQ(probe.connect(
                  server, 20000ms, [&] { return jackd.running(); },
                  "xrctest-probe-" + std::to_string(::getpid())),
              "")
        << read_text_or_empty(js.output_path);
  }

  SpawnSpec rs;
  rs.argv = {XRUNLAB_XRUNCOUNTER_REF_BIN,
             "--server",
             server,
             "--name",
             "xrctest-ref-" + std::to_string(::getpid()),
             "--timeout-s",
             "60"};
  rs.output_path = dir.file("ref.out");
  Child ref = Child::spawn(rs);
  const bool ended = ref.wait_for(90s);
  const std::string out = read_text_or_empty(rs.output_path);
  jackd.stop(2000ms);
  reclaim_stale_xrunlab_servers("/dev/shm", server);
  ASSERT_TRUE(ended) << out;
  const int status = *ref.wait_status();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ref.describe_exit() << "\n"
                                                             << out << "\njackd:\n"
                                                             << read_text_or_empty(js.output_path);

  // first_xrun cycle C grow G jack_cpu_load L own_load_pct P period_us U
  const std::string line = line_starting(out, "first_xrun ");
  ASSERT_NE(line, "") << "no first_xrun line in:\n" << out;
  std::istringstream in(line.substr(line.find(' ') + 1));
  std::vector<std::string> keys;
  std::map<std::string, std::string> values;
  std::string key, value;
  while (in >> key >> value) {
    keys.push_back(key);
    values[key] = value;
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"cycle", "grow", "jack_cpu_load", "own_load_pct",
                                            "period_us"}))
      << line;
  const double own = number(values["own_load_pct"]);
  EXPECT_TRUE(own > 0 && own <= 200) << line;  // false for NaN (not a number)
  EXPECT_GE(number(values["cycle"]), 0) << line;
  EXPECT_GE(number(values["grow"]), 100) << line;
  const double load = number(values["jack_cpu_load"]);
  EXPECT_TRUE(load >= 0 && load <= 100) << line;
  EXPECT_NEAR(number(values["period_us"]), 1e6 * 1024 / 48000, 0.1) << line;
  // xruncounter's own line, with the same figure.
  EXPECT_NE(out.find("first Xrun at DSP load " + values["jack_cpu_load"] + " %\n"),
            std::string::npos)
      << out;
}

}  // namespace
}  // namespace xrunlab
