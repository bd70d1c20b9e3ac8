// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What run.json keeps of one background load (--load): its spec, its supervisor, when it ran
// and what it reported (engine/loads/loads.hpp load_record()).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

// bugprone-exception-escape: clang-tidy 14 flags every struct holding a nlohmann::json, in a
// member or its own (what it takes for a throw is inside the library's noexcept members).
// NOLINTNEXTLINE(bugprone-exception-escape)
struct LoadRecord {
  std::string spec;  // --load's text
  std::string kind;
  int nice = 0;
  std::vector<std::string> argv;  // the load's arguments to xrunlab-load
  int64_t pid = 0;                // its supervisor
  // The supervisor's CPU affinity read back after it started; not known when unreadable.
  std::optional<std::vector<int>> cpus;
  // Seconds from the measurement window's start; not known when it did not start or stop.
  std::optional<double> start_s, stop_s;
  // xrunlab-load's own report, as that program wrote it (null when it wrote none): its shape
  // belongs to xrunlab-load (engine/loads/load_tool.cpp), run.json keeps it whole.
  nlohmann::json report;
  std::string error;  // why it ended early or reported nothing
  std::string log;    // its log file
};

}  // namespace xrunlab
