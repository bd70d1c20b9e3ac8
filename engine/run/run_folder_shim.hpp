#pragma once
// TEMPORARY (issue 11, until the report branch lands its one writer in
// engine/report/run_folder.hpp): the same API on top of today's write_run_folder.
#include <string>
#include <vector>

#include "engine/result/result.hpp"

namespace xrunlab {

struct RunFile {
  std::string name;
  std::string bytes;
};
std::vector<RunFile> render_run_files(const RunResult& r);
void write_run_files(const std::string& run_dir, const std::vector<RunFile>& files);
void write_run_folder(RunResult& r, const std::string& run_dir, bool plots,
                      const std::string& scripts_dir);

}  // namespace xrunlab
