// SPDX-License-Identifier: GPL-2.0-or-later
// The order of a run's steps (engine/run/run_sequence.hpp) with fake steps that record each call
// and can fail at any one of them: a run that goes through, a step that fails (everything
// stopped, the folder finished with that failure, then the failure to the caller), and a
// preflight that fails (nothing to stop or finish).
#include "engine/run/run_sequence.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace xrunlab {
namespace {

class FakeSteps : public RunSteps {
 public:
  std::vector<std::string> calls;
  std::string fail_at;  // the step that throws ("" none)
  std::string finished_with;

  void prepare() override { step("prepare"); }
  void start_server() override { step("start_server"); }
  void start_clients() override { step("start_clients"); }
  void wire() override { step("wire"); }
  void start_loads() override { step("start_loads"); }
  void start_baseline() override { step("start_baseline"); }
  void measure() override { step("measure"); }
  void stop_all() noexcept override { calls.push_back("stop_all"); }
  void finish(const std::exception* failure) override {
    calls.push_back("finish");
    finished_with = failure != nullptr ? failure->what() : "none";
  }
  void mark(const std::string& phase) override { calls.push_back("mark " + phase); }

 private:
  void step(const std::string& name) {
    calls.push_back(name);
    if (name == fail_at) throw std::runtime_error(name + " failed");
  }
};

TEST(RunSequence, ARunGoesThroughEveryStepInOrderThenStopsAndFinishesOnce) {
  FakeSteps s;
  run_sequence(s);
  EXPECT_EQ(s.calls,
            (std::vector<std::string>{"prepare", "mark preflight", "start_server", "mark server",
                                      "start_clients", "mark clients active", "wire", "mark wired",
                                      "start_loads", "start_baseline", "measure", "stop_all",
                                      "mark stopped", "finish"}));
  EXPECT_EQ(s.finished_with, "none");
}

TEST(RunSequence, AFailingStepStopsEverythingFinishesWithItsFailureAndPassesItOn) {
  for (const std::string step :
       {"start_server", "start_clients", "wire", "start_loads", "start_baseline", "measure"}) {
    FakeSteps s;
    s.fail_at = step;
    EXPECT_THROW(run_sequence(s), std::runtime_error) << step;
    ASSERT_GE(s.calls.size(), 3u);
    EXPECT_EQ(s.calls[s.calls.size() - 3], step);
    EXPECT_EQ(s.calls[s.calls.size() - 2], "stop_all") << step;
    EXPECT_EQ(s.calls.back(), "finish") << step;
    EXPECT_EQ(s.finished_with, step + " failed");
    EXPECT_EQ(std::count(s.calls.begin(), s.calls.end(), "stop_all"), 1) << step;
  }
}

TEST(RunSequence, AFailedPreflightHasNothingToStopOrFinish) {
  FakeSteps s;
  s.fail_at = "prepare";
  EXPECT_THROW(run_sequence(s), std::runtime_error);
  EXPECT_EQ(s.calls, (std::vector<std::string>{"prepare"}));
}

}  // namespace
}  // namespace xrunlab
