// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The run's N xrunlab-client processes: their command lines, starting them, waiting until each
// is active in the graph, the start/stop commands, and stopping them. Each client's telemetry
// pipe goes to the hub, which applies its lines to the run's result (client_telemetry.hpp).
// Non-realtime: the run's thread.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/jack/log_filter.hpp"
#include "engine/run/filtered_log.hpp"
#include "engine/run/line_hub.hpp"
#include "engine/run/live_result.hpp"
#include "engine/system/process.hpp"
#include "engine/wire/client_args.hpp"
#include "engine/wire/sched_target.hpp"

namespace xrunlab {

// A client sees its server die (its socket closes) a moment before the server's process can be
// reaped: before a client's end is blamed on the client, the server is asked again for up to
// `grace`. Its end (server_ended's line) when it comes, else "".
std::string server_end_within(const std::function<std::string()>& server_ended,
                              std::chrono::milliseconds grace = std::chrono::milliseconds(200));

struct FleetSpec {
  std::string binary;       // xrunlab-client
  std::string name_prefix;  // "<private server name>-", e.g. "xrunlab-8790-0-"
  std::string run_dir;      // logs go to RUN_DIR/clients/cNN.log
  bool full_log = false;    // --full-log: every line of them (else filtered: filtered_log.hpp)
  int clients = 0;
  double dsp_load_pct = 0;            // all clients together; split evenly
  bool audio_check = false;           // port 1 carries the test signal from client 1 to client N
  std::string record_dir;             // the tail records what it received here ("" = no recording)
  std::string record_format = "wav";  // wav or flac
  std::string source_file;  // --source FILE: the head plays it, the tail checks against it
  // What every client shares: server, ports, scheduling, reference, the backend's arguments.
  // client_args() fills in each one's name, index, DSP share, role in the chain, injection.
  ClientArgs common;
  // --ramp, all clients together (% of the period): each client gets its share, 1/clients.
  std::optional<DspRampSpec> ramp;
  std::optional<InjectSpec> inject;  // one client overruns on purpose
  int inject_client = 1;
  std::string cgroup_procs;  // start every client inside this cgroup ("" = where we are)
  std::vector<int> cpus;     // --cpus: every client's CPU affinity, set before exec (empty = ours)
  std::vector<ChildLimit> limits;  // every client's resource limits (RLIMIT_RTTIME), before exec
};

// "xrunlab-8790-0-c07" for prefix "xrunlab-8790-0-" and index 7.
std::string client_name(const std::string& prefix, int index);

// The arguments of client `index` (1-based). Pure.
ClientArgs client_args(const FleetSpec& f, int index);
// Its full argv: the binary, then to_argv(client_args(f, index)).
std::vector<std::string> client_argv(const FleetSpec& f, int index);

// The DSP stage's cost in ns, measured once before the clients start by `f.binary --calibrate`
// in their cgroup and on their CPUs (at `rate` and `frames`): every client then does the same
// work, and N clients do not calibrate at once on a few CPUs (each slowed by the others: 2x
// apart on 64 clients, and 3 s of CPU). 0 when there is no DSP work (and no ramp); 0 and `problem`
// set when the calibration failed (each client then calibrates itself).
double calibrate_dsp(const FleetSpec& f, uint32_t rate, uint32_t frames, std::string* problem);

class ClientFleet {
 public:
  // Spawns every client (its output through the hub and the log filter into
  // RUN_DIR/clients/cNN.log) and registers its telemetry pipe with the hub. The result gets one
  // ClientResult per client (index, name, pid); glitch times are taken relative to
  // `window_start_us` (0 until the window opens). Stops spawning once `stop` is set (a signal:
  // 254 spawns take seconds) and returns how many it spawned.
  size_t spawn(const FleetSpec& f, LineHub& hub, LiveResult& live,
               const std::atomic<uint64_t>& window_start_us, const std::atomic<bool>& stop);

  // Waits until every client has said hello (it is active in the graph and has set its
  // thread's scheduling), for at most 15 s + 0.5 s per client (JACK2 activates about one
  // client per graph cycle). Throws Error: kClientsFailed naming the client that failed or
  // ended, kServerFailed when `server_ended()` says why the server is gone, kInterrupted when
  // `stop` is set, kPermission for a client that could not set its scheduling; kClientsFailed
  // with `runaway()`'s reason as soon as it gives one (runaway_watchdog.hpp).
  void wait_active(LiveResult& live, const std::function<std::string()>& server_ended,
                   const std::atomic<bool>& stop,
                   const std::function<std::string()>& runaway = nullptr);

  // One command line to every client's stdin ("start <usecs>\n", "stop <usecs>\n").
  void send(const std::string& line);
  // Client i (0-based) gets text[i] on its stdin (nothing when it is empty).
  void send_each(const std::vector<std::string>& text);
  // "" while every client runs; else "<name> exited with status 1" for the first one that ended.
  std::string first_ended();
  size_t size() const { return children_.size(); }
  // Client k's (0-based) raw wait status once it has ended (it is reaped here); else nullopt.
  std::optional<int> wait_status(size_t k);
  // SIGKILL to client k's process group (a runaway); it is reaped later. Never throws.
  void kill(size_t k) noexcept;
  // Every client either sent its totals or ended.
  bool all_done(LiveResult& live);
  // Clients that ended without their totals are named in the result: "no final report (...)".
  void name_abnormal_ends(RunResult& r) const;
  // Every client log's counts together (run the hub's stop() first).
  LogFilter log_counts() const;
  // Closes their stdin (a clean stop), waits up to `clean` for all of them at once (they send
  // their final reports), then SIGTERM, 400 ms, SIGKILL. Never throws.
  void stop(std::chrono::milliseconds clean = std::chrono::milliseconds(500)) noexcept;
  // SIGKILL to every client, without waiting (stop() reaps them): for a run stopped in its
  // start-up, whose clients have nothing to report yet.
  void kill_all() noexcept;

 private:
  std::vector<Child> children_;
  std::vector<std::unique_ptr<FilteredLog>> logs_;  // one per client, fed by the hub
  bool full_log_ = false;
  std::vector<std::string> names_;
  std::string run_dir_;
};

}  // namespace xrunlab
