// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_sequence.hpp"

namespace xrunlab {

void run_sequence(RunSteps& s) {
  s.prepare();
  s.mark("preflight");
  try {
    s.start_server();
    s.mark("server");
    s.start_clients();
    s.mark("clients active");
    s.wire();
    s.mark("wired");
    s.start_loads();
    s.start_baseline();
    s.measure();
  } catch (const std::exception& e) {
    s.stop_all();
    s.finish(&e);
    throw;
  }
  s.stop_all();
  s.mark("stopped");
  s.finish(nullptr);
}

}  // namespace xrunlab
