// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Every program a run will start, found before anything starts: a missing one is a one-line
// error naming it and what to do (exit code kMissingProgram), not a half-started run. The
// helpers (xrunlab-client, -load, -janitor) are looked up beside the running xrunlab (the build
// folder's bin/, or the installed libexec/xrunlab: engine/base/install_layout.hpp). Non-realtime.
#include <string>

#include "engine/run/run_options.hpp"

namespace xrunlab {

struct RunPrograms {
  std::string jackd;       // "" when the backend starts no jackd (attach, pipewire)
  std::string client;      // xrunlab-client (or --client-binary)
  std::string load_tool;   // xrunlab-load; "" without --load
  std::string janitor;     // xrunlab-janitor
  std::string cyclictest;  // "" without --baseline cyclictest
  std::string ip;          // iproute2's ip: "" without --ping
  std::string nft;         // nftables' nft: "" without --ping-drop-every
};

// `starts_jackd`: the backend launches a jackd of its own; `exe_dir` is the running xrunlab's
// folder. Also checks that every program each --load needs is there. Throws Error.
RunPrograms find_run_programs(const RunOptions& o, bool starts_jackd, const std::string& exe_dir);

}  // namespace xrunlab
