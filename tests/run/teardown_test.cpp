// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/teardown.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace xrunlab {
namespace {

TEST(Teardown, EveryStepRunsInOrderEvenAfterOneThrows) {
  std::vector<std::string> ran;
  Teardown t;
  t.add("loads", [&] { ran.push_back("loads"); });
  t.add("clients", [&] {
    ran.push_back("clients");
    throw std::runtime_error("kill failed");
  });
  t.add("odd", [&] {
    ran.push_back("odd");
    throw 42;
  });
  t.add("server", [&] { ran.push_back("server"); });
  const std::vector<std::string> failures = t.run();
  EXPECT_EQ(ran, (std::vector<std::string>{"loads", "clients", "odd", "server"}));
  EXPECT_EQ(failures, (std::vector<std::string>{"while stopping (clients): kill failed",
                                                "while stopping (odd): unknown error"}));
  EXPECT_TRUE(t.done());
}

TEST(Teardown, TheHookHearsOfEveryStepAfterItEndedAndCannotStopTheOthers) {
  std::vector<std::string> events;
  Teardown t;
  t.add("server", [&] { events.push_back("run server"); });
  t.add("clients", [&] {
    events.push_back("run clients");
    throw std::runtime_error("stuck");
  });
  t.add("pipes", [&] { events.push_back("run pipes"); });
  const auto failures = t.run([&](const std::string& what) {
    events.push_back("after " + what);
    if (what == "server") throw std::runtime_error("the hook failed");
  });
  EXPECT_EQ(events, (std::vector<std::string>{"run server", "after server", "run clients",
                                              "after clients", "run pipes", "after pipes"}));
  EXPECT_EQ(failures, (std::vector<std::string>{"while stopping (clients): stuck"}));
}

TEST(Teardown, RunsOnce) {
  int n = 0;
  Teardown t;
  t.add("count", [&] { ++n; });
  t.run();
  EXPECT_TRUE(t.run().empty());
  EXPECT_EQ(n, 1);
}

}  // namespace
}  // namespace xrunlab
