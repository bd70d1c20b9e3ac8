// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab: parse -> typed options -> validate -> run -> report.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/app/cli.hpp"
#include "engine/app/commands.hpp"
#include "engine/app/doctor_command.hpp"
#include "engine/backend/backend.hpp"
#include "engine/backend/pipewire.hpp"
#include "engine/base/errors.hpp"
#include "engine/report/lava.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/run_metrics.hpp"
#include "engine/run/run.hpp"
#include "engine/system/atomic_file.hpp"
#include "engine/system/file_owner.hpp"

namespace {

std::atomic<bool> g_stop{false};
void on_signal(int) {
  g_stop.store(true);
}

std::string self_exe(const char* argv0) {
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, static_cast<size_t>(n));
  return argv0;
}

// --fail-if and --junit for one run: each threshold checked on the run's own figures; the
// crossed ones printed; exit code 10 when any is.
int check_run_thresholds(const xrunlab::Command& cmd, const xrunlab::RunResult& r,
                         const std::string& run_dir) {
  using namespace xrunlab;
  if (cmd.fail_if.empty() && cmd.junit.empty()) return 0;
  JunitCase c;
  c.name = r.spec ? r.spec->label : "run";
  c.classname = "xrunlab.run";
  c.seconds = r.seconds_ran;
  if (r.status != RunStatus::kCompleted) {
    c.error = std::string(run_status_name(r.status)) + ": " + r.status_detail;
  }
  bool failed = false;
  for (const Threshold& t : cmd.fail_if) {
    c.checks.push_back(check_threshold(t, run_metric(r, t.metric)));
    if (c.checks.back().crossed) {
      failed = true;
      std::fprintf(stderr, "xrunlab: --fail-if: %s\n", c.checks.back().message.c_str());
    }
  }
  if (!cmd.junit.empty()) {
    write_output_file(cmd.junit, junit_xml("xrunlab " + run_dir, {c}));
  }
  return failed ? static_cast<int>(ExitCode::kThreshold) : 0;
}

// --lava for one run: its figures as LAVA test cases (engine/report/lava.hpp).
void report_run_lava_cases(const xrunlab::Command& cmd, const xrunlab::RunResult& r) {
  using namespace xrunlab;
  const auto figure = [&r](const std::string& name) { return run_metric(r, name); };
  report_lava_cases(lava_cases(r.spec ? r.spec->label : cmd.run.label,
                               r.status == RunStatus::kCompleted, std::nullopt, figure,
                               cmd.fail_if));
}

}  // namespace

int main(int argc, char** argv) {
  using namespace xrunlab;
  // Under sudo, what this process created goes to the user who ran it, on every way out of main.
  const HandOverAtExit hand_over;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  try {
    int exit_code = 0;
    const Command cmd = parse_command_line(argc, argv, &exit_code);
    if (cmd.kind == Command::Kind::kNone) return exit_code;
    if (cmd.kind == Command::Kind::kDoctor) return run_doctor_command(cmd.doctor);
    if (cmd.kind == Command::Kind::kHistory) {
      return run_history_command(cmd.history, self_exe(argv[0]));
    }
    if (cmd.kind == Command::Kind::kCampaign) {
      CampaignOptions co = cmd.campaign;
      co.self_exe = self_exe(argv[0]);
      if (!co.preset.empty()) co.file = preset_file(co.preset, co.self_exe);
      co.fail_if = cmd.fail_if;
      co.junit = cmd.junit;
      return run_campaign(co, check_run_args, g_stop);
    }
    if (cmd.kind == Command::Kind::kCheck) {
      CheckOptions ko = cmd.check;
      ko.self_exe = self_exe(argv[0]);
      return run_check_command(ko, check_run_args, g_stop);
    }
    if (cmd.kind == Command::Kind::kHeadroom) {
      HeadroomOptions ho = cmd.headroom;
      ho.self_exe = self_exe(argv[0]);
      return run_headroom(ho, check_run_args, g_stop).exit_code;
    }
    if (cmd.kind == Command::Kind::kSweep) {
      SweepOptions so = cmd.sweep;
      so.self_exe = self_exe(argv[0]);
      return run_sweep(so, check_run_args, g_stop).exit_code;
    }
    if (cmd.kind != Command::Kind::kRun) return run_report_command(cmd, self_exe(argv[0]));
    if (cmd.run.repeat > 1) {
      RepeatCampaign repeat = repeat_campaign(cmd, self_exe(argv[0]));
      std::string text = "xrunlab run";
      for (int i = 2; i < argc; ++i) text += std::string(" ") + argv[i];
      return run_campaign_plan(repeat.options, std::move(repeat.plan), text, g_stop);
    }
    // PipeWire's libjack for the engine's own monitor and (inherited) for the clients: a
    // re-execution of this same process, as pw-jack would start it (engine/backend/pipewire).
    if (cmd.run.backend && cmd.run.backend->kind == BackendSpec::Kind::kPipewire) {
      use_pipewire_jack(argv);
    }
    const std::vector<std::string> command_line(argv, argv + argc);
    const RunOutcome out = run_measurement(cmd.run, command_line, self_exe(argv[0]), g_stop);
    const Verbosity verbosity = cmd.run.quiet     ? Verbosity::kQuiet
                                : cmd.run.verbose ? Verbosity::kVerbose
                                                  : Verbosity::kNormal;
    std::fputs(terminal_result(out.result, out.run_dir, verbosity).c_str(), stdout);
    std::fflush(stdout);
    if (out.code != ExitCode::kOk) {
      std::fprintf(stderr, "xrunlab: %s: %s\n", run_status_name(out.result.status),
                   out.result.status_detail.c_str());
    }
    if (!cmd.run.no_history && !out.run_dir.empty()) {
      add_run_to_history(
          out.result, out.run_dir,
          cmd.run.history.empty() ? cmd.run.output + "/history.sqlite" : cmd.run.history);
    }
    const int code = check_run_thresholds(cmd, out.result, out.run_dir);
    if (cmd.lava) report_run_lava_cases(cmd, out.result);
    return out.code != ExitCode::kOk ? static_cast<int>(out.code) : code;
  } catch (const Error& e) {
    std::fprintf(stderr, "xrunlab: error: %s\n", e.what());
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xrunlab: error: %s\n", e.what());
    return static_cast<int>(ExitCode::kRunFailed);
  }
}
