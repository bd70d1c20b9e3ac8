// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/loads.hpp"

#include <fmt/core.h>
#include <signal.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/clock.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {

LoadSet::~LoadSet() {
  // A destructor must not throw: stop() reads the reports, which allocates. Should it throw,
  // each Child's destructor still kills and reaps its supervisor.
  try {
    stop(std::chrono::milliseconds(1000));
  } catch (...) {
    // Nothing is left to report to: the run's result was written before the set is destroyed.
  }
}

void LoadSet::start(const std::vector<LoadSpec>& specs, const std::string& tool,
                    const std::string& run_dir, const std::vector<int>& cpus) {
  if (specs.empty()) return;
  const std::string dir = run_dir + "/loads";
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    throw Error(ExitCode::kOutput, "cannot create '" + dir + "': " + errno_text(errno));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    LoadResult r;
    r.spec = specs[i];
    const std::string base = fmt::format("{}/{}-{}", dir, i + 1, specs[i].kind);
    r.log_path = base + ".log";
    r.report_path = base + ".json";
    r.scratch_dir = base + ".scratch";
    SpawnSpec s;
    s.argv = {tool, "--report", r.report_path, "--scratch", r.scratch_dir};
    // Only an explicit nice is passed: setting 0 would fail for an unprivileged engine that
    // itself runs niced.
    if (specs[i].nice != 0) {
      s.argv.insert(s.argv.end(), {"--nice", std::to_string(specs[i].nice)});
    }
    s.argv.insert(s.argv.end(), specs[i].tool_args.begin(), specs[i].tool_args.end());
    s.output_path = r.log_path;
    s.cpus = cpus;
    Child c = Child::spawn(s);
    r.pid = c.pid();
    // Spawn returns once the program runs, so the affinity set before exec is in place.
    if (const auto back = read_affinity(c.pid())) {
      r.cpus = *back;
    } else {
      r.cpus_why = "sched_getaffinity: " + errno_text(errno);
    }
    r.started_us = mono_raw_us();
    children_.push_back(std::move(c));
    results_.push_back(std::move(r));
  }
}

std::string LoadSet::check_running() {
  for (size_t i = 0; i < children_.size(); ++i) {
    if (!children_[i].running()) {
      return fmt::format("load '{}' ended during the run ({}); see {}", results_[i].spec.text,
                         children_[i].describe_exit(), results_[i].log_path);
    }
  }
  return "";
}

void LoadSet::stop(std::chrono::milliseconds grace) {
  if (stopped_) return;
  stopped_ = true;
  for (Child& c : children_) {
    if (c.running()) c.signal(SIGTERM);
  }
  for (size_t i = 0; i < children_.size(); ++i) {
    LoadResult& r = results_[i];
    if (!children_[i].wait_for(grace)) {
      r.error = "did not stop within " + std::to_string(grace.count()) + " ms; killed";
      children_[i].stop(std::chrono::milliseconds(0));
    }
    if (r.stopped_us == 0) r.stopped_us = mono_raw_us();
    const nlohmann::json report = nlohmann::json::parse(read_file(r.report_path).value_or(""),
                                                        nullptr, /*allow_exceptions=*/false);
    std::string why;
    r.report = report.is_discarded() ? std::nullopt : load_report_from_json(report, &why);
    if (!r.report && r.error.empty()) {
      r.error = why.empty() ? "no report (" + children_[i].describe_exit() + ")"
                            : "its report is not readable: " + why;
    }
    // Belt and braces: the supervisor removes its scratch folder itself.
    std::error_code ec;
    std::filesystem::remove_all(r.scratch_dir, ec);
  }
}

LoadRecord load_record(const LoadResult& r, uint64_t t0_us) {
  auto rel = [&](uint64_t t) -> std::optional<double> {
    if (t == 0) return std::nullopt;
    return (static_cast<double>(t) - static_cast<double>(t0_us)) / 1e6;
  };
  LoadRecord l;
  l.spec = r.spec.text;
  l.kind = r.spec.kind;
  l.nice = r.spec.nice;
  l.argv = r.spec.tool_args;
  l.pid = r.pid;
  if (!r.cpus.empty()) l.cpus = r.cpus;
  l.start_s = rel(r.started_us);
  l.stop_s = rel(r.stopped_us);
  l.report = r.report;
  l.error = r.error;
  l.log = r.log_path;
  return l;
}

}  // namespace xrunlab
