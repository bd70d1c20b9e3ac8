#include "engine/jack/jack_server.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>

namespace xrunlab {

std::string private_server_name() {
  static std::atomic<int> counter{0};
  return "xrunlab-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

int port_max_for(int clients, int ports) {
  // Exactly what is needed plus 16, not the next power of two: each port costs ~34 KB of the
  // segment (38 MB + 34 KB x port-max, measured on JACK2 1.9.21), so 253 x 4 clients take
  // 2318 ports (116 MB) where 4096 would take 176 MB.
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
