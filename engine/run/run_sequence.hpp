// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The order of one run's steps, and the one way it finishes. engine/run/runner.hpp's Runner does
// the steps; a unit test drives this order with fakes (tests/run/run_sequence_test.cpp).
//
//   prepare                       preflight, the run folder, its starting checkpoint; a failure
//                                 here has made nothing to stop or to finish: it propagates
//   start_server -> start_clients -> wire -> start_loads -> start_baseline -> measure
//                                 each marked in measurement.phases as it ends; the first that
//                                 throws ends the sequence
//   stop_all                      always, once: stops everything and restores the system
//   finish(failure or none)       always, once: the run folder's final files; then a failure is
//                                 rethrown for main() to report
// Non-realtime.
#include <exception>
#include <string>

namespace xrunlab {

class RunSteps {
 public:
  virtual ~RunSteps() = default;
  virtual void prepare() = 0;
  virtual void start_server() = 0;
  virtual void start_clients() = 0;
  virtual void wire() = 0;
  virtual void start_loads() = 0;
  virtual void start_baseline() = 0;
  virtual void measure() = 0;
  virtual void stop_all() noexcept = 0;
  // `failure`: what ended the sequence early (nullptr: it ran to its end).
  virtual void finish(const std::exception* failure) = 0;
  // Records that the step `phase` ended now (run.json measurement.phases).
  virtual void mark(const std::string& phase) = 0;
};

// Runs the steps in order. Rethrows what a step threw, after stop_all() and finish(&e).
void run_sequence(RunSteps& steps);

}  // namespace xrunlab
