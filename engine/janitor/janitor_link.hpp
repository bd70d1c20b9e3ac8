// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The engine's side of its janitor (engine/janitor/janitor.hpp): starts xrunlab-janitor at the
// beginning of a run, tells it what the run makes as the run makes it, and at the run's clean
// end says "done" and waits for it to exit. While linked, every child the engine spawns
// announces itself to the janitor (set_child_report_fd). Non-realtime; one per run.
#include <string>

#include "engine/system/process.hpp"

namespace xrunlab {

class JanitorLink {
 public:
  JanitorLink() = default;
  JanitorLink(const JanitorLink&) = delete;
  JanitorLink& operator=(const JanitorLink&) = delete;
  ~JanitorLink() { finish(); }

  // Starts `program` watching this process, whose system journal is `journal`. Throws
  // Error(kMissingProgram) when it cannot run, as Child::spawn.
  void start(const std::string& program, const std::string& journal);
  // One line of janitor_plan.hpp ("dir PATH", "server NAME"), never blocking. Never throws.
  void tell(const std::string& line) noexcept;
  // The clean end: "done", then waits up to a second for the janitor to exit. Idempotent.
  void finish() noexcept;
  bool started() const { return child_.pid() > 0; }
  // Before finish(): "" while the janitor runs, else how it ended ("xrunlab-janitor (pid N)
  // killed by signal 9"): the run then went on without its safety net.
  std::string ended();

 private:
  Child child_;
  bool finished_ = false;
};

}  // namespace xrunlab
