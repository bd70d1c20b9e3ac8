#include "engine/jack/jack_server.hpp"

#include <unistd.h>

#include <atomic>

namespace xrunlab {

std::string private_server_name() {
  static std::atomic<int> counter{0};
  return "xrunlab-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

int port_max_for(int clients, int ports) {
  const int needed = clients * (ports * 2 + 1) + ports * 2 + 1 + 16;
  int p = 64;
  while (p < needed) p *= 2;
  return p;
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
