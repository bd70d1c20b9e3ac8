// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/cyclictest_baseline.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <utility>

#include "engine/base/file.hpp"
#include "engine/base/remove_tree.hpp"

namespace xrunlab {

using std::chrono::milliseconds;

void CyclictestBaseline::configure(std::string program, int priority, int interval_us) {
  program_ = std::move(program);
  priority_ = priority;
  interval_us_ = interval_us;
}

std::string CyclictestBaseline::start(const std::string& run_dir, double duration_s,
                                      const std::vector<int>& cpus) {
  if (!configured()) return "";
  json_path_ = run_dir + "/baseline-cyclictest.json";
  log_path_ = run_dir + "/baseline-cyclictest.log";
  argv_ = cyclictest_argv(program_, priority_, interval_us_,
                          static_cast<int>(std::ceil(duration_s)) + 30, json_path_);
  SpawnSpec spec;
  spec.argv = argv_;
  spec.output_path = log_path_;
  spec.cpus = cpus;
  child_ = Child::spawn(spec);
  return fmt::format("started the timer baseline: cyclictest at {} {}, every {} usecs",
                     priority_ > 0 ? "SCHED_FIFO" : "SCHED_OTHER", priority_, interval_us_);
}

void CyclictestBaseline::stop() noexcept {
  if (!configured() || result_ || !error_.empty()) return;
  try {
    if (child_.pid() <= 0) {
      error_ = "cyclictest was not started (the run ended before its window)";
      return;
    }
    // SIGINT ends cyclictest's loop; it then writes the --json file and exits.
    if (child_.running()) {
      child_.signal(SIGINT);
      if (!child_.wait_for(milliseconds(3000))) child_.stop(milliseconds(1000));
    }
    // cyclictest removes its shared-memory file only at a clean exit: one killed (by anyone)
    // leaves it. Only this user's file of that name goes.
    if (!child_.running())
      remove_owned_file(cyclictest_shm_file("/dev/shm", child_.pid()), ::geteuid());
    std::string why;
    const std::optional<std::string> text = read_file(json_path_, &why);
    if (text) result_ = read_cyclictest_json(*text, &why);
    if (!result_) {
      error_ =
          fmt::format("cyclictest {}: {} (its log: {})", child_.describe_exit(), why, log_path_);
    }
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

void CyclictestBaseline::fill(RunResult& r) const {
  if (!configured()) return;
  if (!result_) {
    r.baseline = baseline_error_record(argv_, priority_, interval_us_, error_);
    r.warnings.push_back("--baseline cyclictest gave no figures: " + error_);
    return;
  }
  std::optional<double> wake, head;
  for (const HopSeries& h : r.cycle_table.hops) {
    const auto p = h.us.percentile(99);
    if (h.key == "jackd_wakeup" && p && p->exact) wake = static_cast<double>(p->value_us);
  }
  if (!r.client_results.empty()) {
    const auto p = r.client_results.front().delay.percentile(99);
    if (p && p->exact) head = static_cast<double>(p->value_us);
  }
  r.baseline = baseline_record(argv_, priority_, interval_us_, *result_, wake, head);
}

}  // namespace xrunlab
