#pragma once
// The run folder: one writer per format, all reading the same RunResult.
#include <string>
#include <vector>

#include "engine/result/result.hpp"

namespace xrunlab {

// Writes summary.txt, run.json, timeseries.csv, histogram.csv (atomically) and, when asked,
// plots/*.png into run_dir. Returns warnings (e.g. plots that could not be drawn).
std::vector<std::string> write_run_folder(const RunResult& r, const std::string& run_dir,
                                          bool plots, const std::string& scripts_dir);

}  // namespace xrunlab
