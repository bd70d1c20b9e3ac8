// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// One file of a run folder as bytes: what the exporters (run.json, CSV, summary, plots) make
// and write_run_files (engine/report/run_folder.hpp) writes. Non-realtime.
#include <string>

namespace xrunlab {

struct RunFile {
  std::string name;   // relative to the run folder ("run.json", "plots/timeline.png")
  std::string bytes;  // the whole content
};

}  // namespace xrunlab
