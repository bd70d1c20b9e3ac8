// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The steps of the run's one exit path, run in order, each whatever the others did: a step
// that throws is reported and the next one still runs, so a failure while stopping the clients
// never leaves jackd, the loads or a changed system setting behind. Runs once.
// Non-realtime.
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace xrunlab {

class Teardown {
 public:
  // Adds a step; `what` names it in a failure ("clients", "server", ...).
  void add(std::string what, std::function<void()> step) {
    steps_.emplace_back(std::move(what), std::move(step));
  }
  // Runs every step once, in the order added, and returns one line per step that threw
  // ("while stopping (clients): <message>"). `after` (if set) is called with each step's name
  // once it has ended, however it ended (the run times its stop with it). Later calls do
  // nothing and return nothing.
  std::vector<std::string> run(const std::function<void(const std::string&)>& after = {}) noexcept;
  bool done() const { return done_; }

 private:
  std::vector<std::pair<std::string, std::function<void()>>> steps_;
  bool done_ = false;
};

}  // namespace xrunlab
