// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/jack_server.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace xrunlab {

std::string jackd_stop_problem(int wait_status, int grace_ms) {
  if (!WIFSIGNALED(wait_status) || WTERMSIG(wait_status) == SIGTERM) return "";
  const int sig = WTERMSIG(wait_status);
  const char* name = ::strsignal(sig);
  const std::string what = "signal " + std::to_string(sig) + " (" + (name ? name : "?") + ")";
  if (sig == SIGKILL) {
    const std::string grace = grace_ms % 1000 == 0 ? std::to_string(grace_ms / 1000) + " s"
                                                   : std::to_string(grace_ms) + " ms";
    return "jackd was killed by " + what + " while stopping: it had not ended " + grace +
           " after SIGTERM (or something else killed it); the run removes the shared memory it "
           "left";
  }
  return "jackd died of " + what +
         " while stopping (after the results were in): the run removes the shared memory and "
         "JACK's metadata database it left";
}

std::string private_server_name() {
  static std::atomic<int> counter{0};
  return "xrunlab-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

int port_max_for(int clients, int ports) {
  // Exactly what is needed plus 16, not the next power of two: each port costs ~34 KB of the
  // segment (38 MB + 34 KB x port-max, measured on JACK2 1.9.21), so 253 x 4 clients take
  // 2302 ports (116 MB) where 4096 would take 176 MB.
  const int needed = clients * (ports * 2 + 1) + ports * 2 + 1 + 16;
  return std::max(64, needed);
}

std::vector<std::string> jackd_argv(const ServerSpec& s) {
  std::vector<std::string> argv = {s.jackd, "-n", s.name};
  if (s.priority > 0) {
    argv.insert(argv.end(), {"-R", "-P", std::to_string(s.priority)});
  } else {
    argv.push_back("-r");  // no realtime
  }
  if (s.verbose) argv.push_back("-v");
  argv.insert(argv.end(), {"-p", std::to_string(port_max_for(s.clients, s.ports))});
  argv.insert(argv.end(), s.driver.begin(), s.driver.end());
  return argv;
}

}  // namespace xrunlab
