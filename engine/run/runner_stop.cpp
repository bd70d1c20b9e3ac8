// SPDX-License-Identifier: GPL-2.0-or-later
// The Runner's one exit path (engine/run/runner.hpp): every step runs even if an earlier one
// failed (engine/run/teardown.hpp), in the order that stops a run of hundreds of clients within
// seconds, then the system is restored and what dead servers left is freed.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>

#include "engine/jack/jack_registry.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/run/run_warnings.hpp"
#include "engine/run/runner.hpp"
#include "engine/run/teardown.hpp"

namespace xrunlab::run_steps {

using std::chrono::milliseconds;

void Runner::stop_loads_into_result(uint64_t t0_us) {
  if (loads_.empty() || loads_recorded_) return;
  loads_recorded_ = true;
  loads_.stop();
  std::vector<LoadRecord> out;
  std::vector<std::string> problems;
  for (const LoadResult& l : loads_.results()) {
    out.push_back(load_record(l, t0_us));
    if (!l.error.empty()) problems.push_back("load '" + l.spec.text + "': " + l.error);
  }
  live_.with([&](RunResult& r) {
    r.warnings.insert(r.warnings.end(), problems.begin(), problems.end());
    r.loads = std::move(out);
  });
}

void Runner::collect_backend() {
  backend_->poll();
  live_.with([&](RunResult& r) {
    std::optional<ServerSettings> settings = std::move(r.backend.server_settings);
    r.backend = backend_->describe();
    r.backend.server_settings = std::move(settings);
    r.xruns.card_xruns = backend_->card_xruns_in_window();
    for (const std::string& w : backend_->warnings()) r.warnings.push_back(w);
  });
  backend_->cleanup();
}

void Runner::reclaim_after_stop(pid_t jackd_pid) {
  if (session_.name().empty() || !backend_->launches_server()) return;
  ReclaimResult rr = reclaim_stale_xrunlab_servers("/dev/shm", session_.name());
  // This run's own files are no news: jackd's clean shutdown (JackEngine::Close) leaves its
  // clients' semaphores behind. Only what dead runs left is reported.
  const auto ours = [&](const std::string& file) {
    return xrunlab_server_of_file(file, ::getuid()) == session_.name();
  };
  rr.removed_files.erase(std::remove_if(rr.removed_files.begin(), rr.removed_files.end(), ours),
                         rr.removed_files.end());
  rr.reclaimed.erase(std::remove(rr.reclaimed.begin(), rr.reclaimed.end(), session_.name()),
                     rr.reclaimed.end());
  warn_all(reclaim_warnings(rr));
  // A jackd that died - killed in the window, or while stopping - left its JACK segments and
  // JACK's metadata database (it removes both at its exit): freed here, as the janitor does
  // after a killed run. After a clean exit there is nothing left, and nothing is said.
  if (jackd_pid <= 0) return;
  const ReclaimResult own = reclaim_dead_server("/dev/shm", session_.name(), {jackd_pid});
  if (!own.removed_files.empty()) {
    say(fmt::format("removed what the dead jackd left in /dev/shm: {}",
                    fmt::join(own.removed_files, ", ")));
  }
  if (!own.warning.empty()) warn(own.warning);
  if (const std::string db = remove_unused_jack_metadata_db("/dev/shm", ::getuid()); !db.empty()) {
    say("removed JACK's metadata database " + db + " (no process had it open)");
  }
}

void Runner::stop_all() noexcept {
  if (stopped_) return;
  stopped_ = true;
  // A failed window ends here, before main() prints the error.
  progress_.clear();
  Teardown t;
  t.add("loads", [&] { stop_loads_into_result(window_start_us_.load()); });
  t.add("baseline", [&] { baseline_.stop(); });
  t.add("ping", [&] { ping_.stop(); });
  // Our own server goes first: it closes its clients in one pass (JackEngine::Close), and each
  // client, its final report sent, then ends without a server to talk to. Clients leaving a
  // running server one by one cost it a graph change and a notification to every remaining
  // client each: O(N^2), 14 s for 64 clients on a 2-core VM. A server that is not ours (attach)
  // keeps running: our clients leave it cleanly first, then the monitor.
  const bool own_server = backend_->launches_server();
  const pid_t jackd_pid = session_.jackd_pid();
  // Stopped before the window (interrupted in its start-up, or it failed): nobody has measured
  // anything, and a run of 254 clients must still stop within 2 s.
  const bool before_window = window_start_us_.load() == 0;
  // jackd's clean exit is worth little then, and with hundreds of clients joining it takes over
  // a second: SIGKILL comes sooner, and this run removes what jackd leaves in /dev/shm anyway.
  const milliseconds jackd_grace = before_window ? milliseconds(300) : milliseconds(1000);
  auto stop_server = [&] {
    if (const std::string problem = session_.stop(jackd_grace); !problem.empty()) {
      say("warning: " + problem);
      warn(problem);
    }
  };
  // The clients have nothing to report then: they die at once, in parallel with jackd's exit
  // rather than after it (each one's teardown unmaps JACK's mlocked graph segment: about a
  // second for 253 of them on 2 cores, which after jackd's second made 2.5 s).
  if (before_window) t.add("clients killed", [&] { fleet_.kill_all(); });
  if (own_server) t.add("server", stop_server);
  t.add("clients", [&] { fleet_.stop(before_window ? milliseconds(0) : milliseconds(500)); });
  t.add("governor", [&] { policy_.stop_governor(); });
  if (!own_server) t.add("server", stop_server);
  t.add("card", [&] { collect_backend(); });
  // Our own cycle table, before the registry step: that step removes what dead runs left, and
  // would otherwise find this run's table still there and report it as left behind.
  t.add("cycle table", [&] {
    cycle_reader_.reset();
    cycle_table_.reset();
  });
  // The trace's reader closes its pipe first: the instance cannot be removed while it is open.
  t.add("trace", [&] { traces_.stop(); });
  t.add("system settings", [&] {
    for (const std::string& problem : journal_.restore_all()) {
      say("warning: " + problem);
      warn(problem);
    }
  });
  // A jackd that died uncleanly (or had to be killed) leaves its registry slot and semaphores.
  t.add("JACK registry", [&] { reclaim_after_stop(jackd_pid); });
  t.add("pipes", [&] { hub_.stop(); });
  t.add("jackd.log", [&] { tap_.close(); });
  // Each step's end goes into measurement.phases ("stop: server", ...): where the stop went.
  for (const std::string& failure :
       t.run([&](const std::string& what) { mark("stop: " + what); })) {
    say("warning: " + failure);
    try {
      warn(failure);
    } catch (...) {
    }
  }
}

}  // namespace xrunlab::run_steps
