#include "engine/run/run_folder_shim.hpp"

#include "engine/report/report_csv.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/report/run_folder.hpp"
#include "engine/result/run_json.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {

std::vector<RunFile> render_run_files(const RunResult& r) {
  return {{"run.json", to_json(r).dump(2) + "\n"},
          {"timeseries.csv", format_timeseries_csv(r)},
          {"histogram.csv", format_histogram_csv(r)},
          {"summary.txt", format_summary(r)}};
}

void write_run_files(const std::string& run_dir, const std::vector<RunFile>& files) {
  for (const RunFile& f : files) write_file_atomic(run_dir + "/" + f.name, f.bytes);
}

void write_run_folder(RunResult& r, const std::string& run_dir, bool plots,
                      const std::string& scripts_dir) {
  const RunResult& cr = r;
  const std::vector<std::string> w = write_run_folder(cr, run_dir, plots, scripts_dir);
  if (!w.empty()) {
    r.warnings.insert(r.warnings.end(), w.begin(), w.end());
    write_run_files(run_dir, render_run_files(r));
  }
}

}  // namespace xrunlab
