// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The run's result while the run goes on. Two threads write it: the hub's thread (every
// client's telemetry, through apply_client_line) and the run's own thread (settings, system
// seconds, thread tables, status). One mutex guards the RunResult and nothing else; the jackd
// log counter and the window have their own (JackdLogTap).
//
// Hold the lock only to read or change the model in memory: a checkpoint formats its files
// under it and writes them after releasing it, so telemetry never waits for a disk.
#include <mutex>
#include <utility>

#include "engine/result/result.hpp"

namespace xrunlab {

class LiveResult {
 public:
  // Runs f(RunResult&) under the lock and returns what it returns.
  template <typename F>
  auto with(F&& f) {
    std::lock_guard<std::mutex> lock(mu_);
    return std::forward<F>(f)(r_);
  }
  // The result once no other thread touches it any more (the hub stopped).
  RunResult& owned() { return r_; }

 private:
  std::mutex mu_;
  RunResult r_;
};

}  // namespace xrunlab
