// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

// The `iso-emu` policy: an emulation of SCHED_ISO (Con Kolivas' -ck / BFS / MuQSS kernels) on a
// mainline kernel, by a user-space governor.
//
// SCHED_ISO semantics: unprivileged "isochronous" tasks get realtime scheduling as long as all
// ISO tasks together use at most ISO_CPU percent of the machine's CPU time (all CPUs together),
// averaged over ISO_PERIOD; above that they run as SCHED_NORMAL until the average drops again.
//
// Emulation: the audio threads run SCHED_FIFO at a low RT priority ("promoted"). A governor
// thread samples their CPU time every few ms, keeps a decaying average of their share over
// ISO_PERIOD (IsoAccounting), switches all of them to SCHED_OTHER ("demoted") while the average
// exceeds ISO_CPU and back to the promoted class once it falls below 90% of ISO_CPU.
// Results produced with it are always labelled "EMULATED SCHED_ISO (user-space governor)".
//
// Non-realtime code: the governor is an ordinary (high-priority) thread of the engine; nothing
// here runs in a process callback.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/result/run_records.hpp"
#include "engine/wire/sched_target.hpp"

namespace xrunlab {

// The pure accounting core of the governor: no clocks, no threads, no system calls, so it can be
// fed synthetic numbers. Not thread-safe; IsoGovernor calls it from its own thread only.
//
// The average share S (percent of ncpus x wall time) is an exponentially weighted average of the
// instantaneous share with time constant tau = iso_period:
//     S <- S * exp(-dt / tau) + s * (1 - exp(-dt / tau)),   s = 100 * cpu_ns / (ncpus * dt)
// This is the exact solution of dS/dt = (s - S) / tau for an input that is constant during the
// sample, so for a steady load the result does not depend on how the time is cut into samples
// (1000 x 5 ms and 50 x 100 ms give the same S). It is a continuous-time version of the -ck
// kernels' per-tick decay of their ISO tick count (not checked against their source here).
//
// Start value: S starts at 0 (no ISO CPU time used before the run). A fresh run therefore
// has its whole realtime budget: a load of steady share s > ISO_CPU is demoted after
// t = -tau * ln(1 - ISO_CPU / s) (e.g. 50% against ISO_CPU 20%, tau 0.5 s: 0.255 s). Starting
// at ISO_CPU instead would demote any overload at its first sample, and starting at the expected
// load would need to know the load in advance.
//
// Hysteresis: demote when S rises above ISO_CPU (strictly), promote when S falls below
// 0.9 x ISO_CPU (strictly). Without the 10% band a load sitting at the threshold would flip
// class at almost every sample; the band makes each demotion last at least until the load has
// really dropped (from a steady share s > ISO_CPU to idle: tau * ln(s / (0.9 ISO_CPU))).
class IsoAccounting {
 public:
  // iso_cpu_pct in (0, 100], iso_period_s > 0, ncpus >= 1; otherwise throws xrunlab::Error
  // (ExitCode::kUsage) naming the value at fault.
  IsoAccounting(double iso_cpu_pct, double iso_period_s, int ncpus);
  enum class Action { kNone, kDemote, kPromote };
  // One sample: `wall_ns` elapsed since the previous sample, `cpu_ns` CPU time the audio threads
  // used in it (all threads summed). Updates the decaying average share (percent of ncpus x wall)
  // with time constant iso_period (exact exponential decay for the sample's length, so the result
  // does not depend on the sampling interval) and returns what to do.
  // wall_ns == 0 changes nothing and returns kNone. The instantaneous share is not clipped at
  // 100%: CPU times read a little late in one sample are missing from the next one, so clipping
  // would bias the average downwards.
  Action update(uint64_t wall_ns, uint64_t cpu_ns);
  double share_pct() const;  // the decayed average
  bool demoted() const;

  double iso_cpu_pct() const { return iso_cpu_pct_; }
  double promote_below_pct() const { return 0.9 * iso_cpu_pct_; }

 private:
  double iso_cpu_pct_;
  double tau_ns_;
  double ncpus_;
  double share_pct_ = 0;
  bool demoted_ = false;
};

// IsoEvent and IsoReport, the governor's report, are records of the run
// (engine/result/run_records.hpp).

// The governor: one thread that samples the audio threads' CPU time and moves them between the
// promoted and the demoted class. Non-realtime; start() and stop() from one engine thread.
//
// CPU time comes from /proc/PID/task/TID/schedstat, first field (the scheduler's exact runtime
// in ns; for a thread on a CPU at the moment of reading it may lag by up to one scheduler tick,
// which the next sample gets back, so nothing is lost over time). The files are kept open for the
// whole run: a thread that exits makes its read fail (ESRCH) instead of a reused tid being
// measured or rescheduled in its place. Such a thread is recorded in errors once and dropped.
class IsoGovernor {
 public:
  IsoGovernor(double iso_cpu_pct, double iso_period_s, int ncpus,
              std::chrono::microseconds interval = std::chrono::milliseconds(5));
  ~IsoGovernor();  // stops (and joins) the governor thread if still running
  IsoGovernor(const IsoGovernor&) = delete;
  IsoGovernor& operator=(const IsoGovernor&) = delete;

  // threads: (pid, tid) of every audio thread. promoted/demoted: what they run under in each
  // state (e.g. FIFO 1 / OTHER nice 0). Puts every thread under `promoted` and starts sampling.
  //
  // The governor thread itself runs SCHED_FIFO at `governor_priority` (must be above every audio
  // thread, i.e. above promoted.rt_priority) so it is never starved, and, if ncpus > 1, it is
  // pinned to the last CPU it may run on: demotion must happen exactly when the audio threads
  // hog CPUs, so the governor must not have to compete with them for one; it sleeps almost
  // always (one short wake-up per interval), so its own cost on that CPU is small. Failing to pin
  // is recorded in errors; failing to get the priority is fatal.
  //
  // Returns "" on success, else a message saying what failed (a thread that does not exist or
  // whose schedstat cannot be read, a scheduling change refused, a bad priority, already
  // started); then nothing is left running (threads already promoted stay promoted).
  // One start() per IsoGovernor.
  std::string start(const std::vector<std::pair<pid_t, pid_t>>& threads, ThreadTarget promoted,
                    ThreadTarget demoted, int governor_priority);

  // Stops and joins the governor thread and returns what happened. Leaves the audio threads in
  // whatever class they are in at that moment (promoted or demoted): the caller decides whether
  // to restore them, and a thread table taken after stop() shows the state the run ended in.
  // Without a successful start(): an empty report.
  IsoReport stop();

  double share_pct() const;  // thread-safe snapshot of the decayed average share

 private:
  struct Watched {
    pid_t pid = 0, tid = 0;
    int fd = -1;  // /proc/PID/task/TID/schedstat, open for the run
    uint64_t last_cpu_ns = 0;
    bool gone = false;
  };
  void run(int governor_priority, std::promise<std::string>* setup_done);
  uint64_t sample_cpu_ns();  // CPU time of the live threads since the previous call
  void apply_all(const ThreadTarget& target);
  void add_error(std::string message);
  void close_all();

  IsoAccounting acc_;
  int ncpus_;
  std::chrono::microseconds interval_;
  std::vector<Watched> watched_;
  ThreadTarget promoted_, demoted_;
  IsoReport report_;
  std::thread thread_;
  std::atomic<bool> stop_requested_{false};
  std::atomic<double> share_snapshot_{0.0};
  uint64_t t0_ns_ = 0;  // CLOCK_MONOTONIC at start()
  bool started_ = false;
};

}  // namespace xrunlab
