// The run folder: one writer per format, all reading the same RunResult.
#include "engine/report/run_folder.hpp"

#include <fmt/core.h>

#include "engine/report/plots.hpp"
#include "engine/report/report_csv.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {

std::vector<std::string> write_run_folder(const RunResult& r, const std::string& run_dir,
                                          bool plots, const std::string& scripts_dir) {
  std::vector<std::string> warnings;
  write_file_atomic(run_dir + "/run.json", to_json(r).dump(2) + "\n");
  write_file_atomic(run_dir + "/timeseries.csv", format_timeseries_csv(r));
  write_file_atomic(run_dir + "/histogram.csv", format_histogram_csv(r));
  write_file_atomic(run_dir + "/summary.txt", format_summary(r));
  if (plots) {
    PlotOptions po;
    po.title = fmt::format("{}: {} clients x {} ports, {} frames @ {} Hz, {}, {}",
                           r.spec.value("label", std::string("run")), r.clients, r.ports, r.frames,
                           r.rate, r.backend.value("name", std::string("dummy")), r.status);
    po.period_us = r.period_us;
    const PlotResult p = write_plots(run_dir, scripts_dir, po);
    if (!p.error.empty()) warnings.push_back("plots: " + p.error);
  }
  return warnings;
}

}  // namespace xrunlab
