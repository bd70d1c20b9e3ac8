// SPDX-License-Identifier: GPL-2.0-or-later
// One run: run_measurement() makes a Runner (engine/run/runner.hpp) and runs its steps in the
// order of engine/run/run_sequence.hpp. This file holds the Runner's first and last steps: the
// preflight that finds everything before anything starts, the run folder and its starting
// checkpoint, and the one finishing path that writes the run folder's final files.
#include "engine/run/run.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "engine/backend/alsa_cards.hpp"
#include "engine/base/file.hpp"
#include "engine/jack/jack_registry.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/ping/ping_network.hpp"
#include "engine/report/plots.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/result/run_identity.hpp"
#include "engine/result/run_json.hpp"
#include "engine/run/run_dir.hpp"
#include "engine/run/run_warnings.hpp"
#include "engine/run/runner.hpp"
#include "engine/system/host_context.hpp"
#include "engine/wire/version.hpp"

namespace xrunlab {
namespace run_steps {
namespace {

std::string dirname_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

Runner::Runner(const RunOptions& o, const std::vector<std::string>& command_line,
               const std::string& self_exe, const std::atomic<bool>& stop)
    : o_(o),
      progress_mode_(progress_mode(o.quiet, STDERR_FILENO)),
      progress_(stderr, progress_mode_ != ProgressMode::kOff),
      self_exe_(self_exe),
      stop_(stop),
      backend_(make_backend(*o.backend)),
      policy_(o),
      traces_(journal_, o.explain, o.trace_on_xrun),
      session_(*backend_),
      xrun_source_(session_, tap_),
      xruns_(xrun_source_) {
  RunResult& r = live_.owned();
  r.schema_version = kSchemaVersion;
  r.xrunlab_version = kVersion;
  r.command_line = command_line;
  r.spec = run_spec(o);
  r.clients = o.clients;
  r.ports = o.ports;
  r.frames = o.period;
  r.rate = o.rate;
  r.policy_spec = o.policy.text;
  r.scheduling = policy_.label();
}

void Runner::prepare() {
  t_begin_us_ = mono_raw_us();
  live_.owned().started_utc = utc_now_iso();
  live_.owned().run_id = new_run_id();
  preflight();
  live_.owned().host = collect_host_context();
  // run.json and summary.txt marked "incomplete" as soon as the folder exists: a full disk is
  // found before anything starts.
  checkpoints_.start(run_dir_, live_.owned());
}

void Runner::preflight() {
  const std::string exe_dir = dirname_of(self_exe_);
  programs_ = find_run_programs(
      o_, backend_->launches_server() && backend_->server_program() == "jackd", exe_dir);
  // --cpus / --load-cpus on this machine's CPUs (and SCHED_DEADLINE's root domain).
  check_cpus(o_, read_cpu_facts());
  policy_.check_permitted(o_.clients);
  traces_.check_available();
  // Held from here to the Runner's end (every exit path; the kernel drops it on a crash).
  if (o_.dma_latency) dma_latency_.emplace(kDmaLatencyDevice, 0);
  if (!programs_.cyclictest.empty()) {
    // The clients' priority (JACK2 runs them 5 below the server), or SCHED_OTHER without one;
    // one wake-up per period.
    baseline_.configure(programs_.cyclictest, std::max(0, o_.server_priority() - 5),
                        static_cast<int>(std::lround(static_cast<double>(o_.period) * 1e6 /
                                                     static_cast<double>(o_.rate))));
  }
  if (o_.ping) {
    const std::optional<std::string> status = read_file("/proc/self/status");
    const std::string problem = ping_permission_problem(status.value_or(""));
    if (!problem.empty()) throw Error(ExitCode::kPermission, problem);
    ping_.configure({programs_.ip, programs_.nft, o_.ping_rate, o_.ping_drop_every});
  }
  setup_.exe_dir = exe_dir;
  setup_.rate = o_.rate;
  setup_.frames = o_.period;
  setup_.ports = o_.ports;
  setup_.nperiods = o_.nperiods;
  setup_.server_priority = policy_.realtime() ? policy_.server_priority() : 0;
  backend_->check(setup_);  // a missing or busy device fails before a run folder exists
  // Started before anything the run makes: every child spawned from here on announces itself.
  janitor_.start(programs_.janitor, journal_.journal_path());
  run_dir_ = create_run_dir(o_.output, o_.label);
  janitor_.tell("dir " + run_dir_);
  // A run that crashed earlier may have left system settings changed (rt-throttle's cgroup):
  // put them back first, and say so.
  for (const std::string& line : journal_.recover_stale()) {
    say(line);
    warn(line);
  }
  // Runs killed earlier may hold JACK registry slots (8 in all) and semaphore files: free them
  // before jackd needs a slot.
  const ReclaimResult stale = reclaim_stale_xrunlab_servers();
  // JACK's registry lock held by another process: jackd and every JACK client would wait for it
  // for ever (libjack takes it without a time limit), so the run ends here, naming the holder.
  // PipeWire's libjack does not use it.
  if (stale.lock_timed_out && backend_->name() != "pipewire") {
    throw Error(ExitCode::kServerFailed, stale.warning);
  }
  warn_all(reclaim_warnings(stale));
  // Left by a JACK program killed inside it, JACK's metadata database would hang our first
  // jack_client_open for ever; removed when no process has it open (jackd removes it at exit).
  if (const std::string db = remove_unused_jack_metadata_db("/dev/shm", ::getuid()); !db.empty()) {
    say("removed JACK's metadata database " + db + ", which no process had open");
  }
  setup_.run_dir = run_dir_;
  setup_.server_name = private_server_name();
  name_prefix_ = setup_.server_name + "-";
  if (backend_->launches_server()) janitor_.tell("server " + setup_.server_name);
}

void Runner::note_disk_full(RunResult& r) const {
  const std::string log = tap_.write_warning();
  if (!log.empty()) r.warnings.push_back(log);
  // The children write their logs themselves: what they could not write is not known here.
  const std::optional<uint64_t> free = free_bytes(run_dir_);
  if (!disk_full_.empty() || tap_.disk_full() || (free && *free < kDiskNearlyFullBytes)) {
    r.warnings.push_back(fmt::format(
        "the disk holding the run folder was full ({} KiB free at the end): the logs the "
        "clients, loads and tools write themselves (clients/*.log, loads/*.log, ...) may end "
        "early",
        free ? fmt::format("{}", *free / 1024) : std::string("?")));
  }
}

void Runner::fill_dma_latency(RunResult& r) const {
  if (!dma_latency_) return;
  const std::optional<int32_t> back = dma_latency_->read_back_us();
  r.dma_latency = DmaLatencyRecord{dma_latency_->device(), dma_latency_->requested_us(), back};
  if (back && *back != dma_latency_->requested_us()) {
    r.warnings.push_back(fmt::format(
        "--dma-latency: {} read back {} us after writing {} (another holder asked for less)",
        dma_latency_->device(), *back, dma_latency_->requested_us()));
  }
}

void Runner::finish(const std::exception* failure) {
  // From here on no other thread touches the result (stop_all() stopped them).
  RunResult& r = live_.owned();
  if (failure != nullptr) {
    // Nothing measured yet (or the setup broke): the logs are kept and the failure reported.
    const auto* err = dynamic_cast<const Error*>(failure);
    r.status = err != nullptr && err->code() == ExitCode::kInterrupted ? RunStatus::kInterrupted
                                                                       : RunStatus::kFailed;
    r.status_detail = failure->what();
    // What main() exits with for this error (its catch blocks): an Error's code, else 1.
    r.exit_code = static_cast<int>(err != nullptr ? err->code() : ExitCode::kRunFailed);
  } else {
    fleet_.name_abnormal_ends(r);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    r.exit_code = static_cast<int>(failure_code_);
    r.engine_peak_rss_kib = ru.ru_maxrss;  // before the rows are read back for the last files
  }
  if (const std::string gone = janitor_.ended(); !gone.empty()) {
    r.warnings.push_back(fmt::format(
        "the janitor ended during the run: {}; had the engine died after that, its clean-up "
        "would have waited for the next xrunlab start",
        gone));
  }
  r.ended_utc = utc_now_iso();
  r.logs = log_counts();
  checkpoints_.collect_seconds(r);
  if (failure == nullptr) {
    for (std::string& w : count_warnings(r)) r.warnings.push_back(std::move(w));
  }
  finalize(r);
  baseline_.fill(r);
  ping_.fill(r);
  fill_dma_latency(r);
  r.affinity = affinity_record(o_.cpus, o_.load_cpus, r.threads_start, r.threads_end, r.loads);
  if (failure != nullptr) {
    note_disk_full(r);
    try {
      write_run_files(run_dir_, render_run_files(r));
    } catch (const Error&) {
      // The error that ended the run is what main() reports; the files are best effort.
    }
    return;
  }
  for (std::string& w : audio_match_warnings(r)) r.warnings.push_back(std::move(w));
  r.phases_s.emplace_back("results computed",
                          static_cast<double>(mono_raw_us() - t_begin_us_) / 1e6);
  note_disk_full(r);
  // Plots first: a plot that fails is a warning in the files, which are written once.
  write_run_folder(r, run_dir_, o_.plots, find_script_dir(self_exe_), o_.plot_format);
}

RunOutcome Runner::run() {
  run_sequence(*this);
  RunOutcome out;
  out.run_dir = run_dir_;
  out.result = live_.owned();
  out.code = failure_code_;
  return out;
}

}  // namespace run_steps

RunOutcome run_measurement(const RunOptions& options, const std::vector<std::string>& command_line,
                           const std::string& self_exe, const std::atomic<bool>& stop_requested) {
  RunOptions o = options;
  if (!o.backend) o.backend = parse_backend(default_backend(has_sound_card()));
  run_steps::Runner runner(o, command_line, self_exe, stop_requested);
  return runner.run();
}

}  // namespace xrunlab
