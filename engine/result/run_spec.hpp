// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// run.json's "spec": the options of `xrunlab run` as the user would write them (engine/run/
// run_options.hpp run_spec()). Each option keeps the form it is given in: a policy, a load, a
// backend or a CPU list is its text, so a reader sees what was asked for without parsing it.
#include <cstdint>
#include <string>
#include <vector>

namespace xrunlab {

struct RunSpec {
  int clients = 0;
  int ports = 0;
  uint32_t period_frames = 0;  // an attached server's, once the run knows it
  uint32_t rate_hz = 0;        // likewise
  double duration_s = 0;
  double dsp_load_pct = 0;
  std::string label;
  std::string output;
  int priority = 0;
  std::string policy;              // --policy's text
  std::vector<std::string> loads;  // each --load's text
  std::string baseline;            // "none" | "cyclictest"
  int ping_rate_hz = 0;            // --ping at --ping-rate (0: no --ping)
  int ping_drop_every = 0;         // --ping-drop-every (0: none)
  bool dma_latency = false;
  std::string cpus;       // --cpus as a CPU list ("0-1,3"; "" when not given)
  std::string load_cpus;  // --load-cpus, likewise
  int explain = 0;
  bool trace_on_xrun = false;
  bool full_log = false;
  std::string inject;  // --inject's text ("" without)
  int inject_client = 0;
  std::string ramp;  // --ramp's text ("" without)
  std::string jackd;
  std::string client_binary;
  double server_timeout_s = 0;
  bool plots = false;
  std::string plot_format;  // "png" | "svg" ("" in a hand-made model: png)
  std::string backend;      // --backend's text ("" when the run chose it)
  int nperiods = 0;
  bool audio_check = false;
  bool record = false;
  std::string record_format;
  std::string source;
};

}  // namespace xrunlab
