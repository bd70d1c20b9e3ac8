// SPDX-License-Identifier: GPL-2.0-or-later
// `xrunlab doctor`: whether this system is set up for realtime audio.
#include <tuple>

#include "engine/app/cli/subcommand.hpp"
#include "engine/base/errors.hpp"

namespace xrunlab {
namespace {

class DoctorCli : public SubcommandCli {
 public:
  explicit DoctorCli(CLI::App& top)
      : SubcommandCli(top.add_subcommand(
            "doctor",
            "Check whether this system is set up for realtime audio: limits, audio group, CPU "
            "governor, SMT, preemption, timers, mitigations, swappiness, atime, "
            "cpu_dma_latency, RT throttling, rtkit, sound cards, their IRQs and IRQ thread "
            "priorities, audio servers. Each check says OK, WARN, FAIL, ROOT (needs root) or "
            "SKIP (not applicable), why it matters and how to fix it. Exit code 0 (no WARN or "
            "FAIL), 20 (WARN) or 21 (FAIL).")) {
    dop_.priority = RunOptions{}.server_priority();
    app_->add_flag("--json", dop_.json,
                   "Print the checks as JSON (keys id, title, status, found, why, fix; and a "
                   "summary) instead of the table.");
    app_->add_option("--priority", dop_.priority,
                     "The SCHED_FIFO priority N jackd would run at (xrunlab run --priority), "
                     "which the policy and IRQ thread checks measure against.")
        ->capture_default_str()
        ->type_name("N");
    app_->add_option("--root", root_,
                     "Read a copy of the system under DIR (DIR/proc, DIR/sys, DIR/etc, DIR/dev, "
                     "DIR/boot) instead of the real one, e.g. a test's fixture tree; facts that "
                     "have no file (alsa-lib, a SCHED_FIFO trial) are then not read.")
        ->type_name("DIR");
    for (auto [flag, where, what] : roots()) {
      app_->add_option(flag, *where,
                       std::string("Read DIR instead of ") + what + "; wins over --root.")
          ->type_name("DIR");
    }
    app_->footer(
        "Examples:\n"
        "  $ xrunlab doctor\n"
        "  $ xrunlab doctor --json --priority 80\n"
        "  $ sudo xrunlab doctor  # also the checks that need root");
  }

  void finish(Command& cmd, const std::vector<std::string>&) override {
    cmd.kind = Command::Kind::kDoctor;
    if (!root_.empty()) {
      for (auto [flag, where, what] : roots()) {
        if (app_->count(flag) == 0) *where = root_ + what;
      }
    }
    if (dop_.priority < 1 || dop_.priority > 99) {
      throw Error(ExitCode::kUsage, "doctor --priority " + std::to_string(dop_.priority) +
                                        ": give a SCHED_FIFO priority 1..99");
    }
    cmd.doctor = dop_;
  }

 private:
  // --root-proc DIR, ...: each root's flag, where it goes, and the folder it stands for.
  std::vector<std::tuple<const char*, std::string*, const char*>> roots() {
    return {{"--root-proc", &dop_.roots.proc, "/proc"},
            {"--root-sys", &dop_.roots.sys, "/sys"},
            {"--root-etc", &dop_.roots.etc, "/etc"},
            {"--root-dev", &dop_.roots.dev, "/dev"},
            {"--root-boot", &dop_.roots.boot, "/boot"}};
  }

  DoctorOptions dop_;
  std::string root_;
};

}  // namespace

std::unique_ptr<SubcommandCli> add_doctor_cli(CLI::App& top) {
  return std::make_unique<DoctorCli>(top);
}

}  // namespace xrunlab
