// SPDX-License-Identifier: GPL-2.0-or-later
// The stand-in for `xrunlab run` in campaign_bench: called as `campaign_bench_child run ...
// --label L --output OUT -q`, it copies the run.json named by XRUNLAB_BENCH_RUN_JSON to
// OUT/L/20261201T000000Z/run.json and exits 0, at once. So a campaign of it costs the
// campaign's own work per run (plan, campaign.json, spawn, reading each run.json, the report,
// the plot) plus this copy. Exit 2 on bad arguments, 1 when the copy fails.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  std::string label, output;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--label") label = argv[i + 1];
    if (a == "--output") output = argv[i + 1];
  }
  const char* source = std::getenv("XRUNLAB_BENCH_RUN_JSON");
  if (argc < 2 || std::string(argv[1]) != "run" || label.empty() || output.empty() ||
      source == nullptr) {
    std::fprintf(stderr,
                 "campaign_bench_child: want `run ... --label L --output OUT` and "
                 "XRUNLAB_BENCH_RUN_JSON\n");
    return 2;
  }
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(output) / label / "20261201T000000Z";
  fs::create_directories(dir, ec);
  if (!ec) fs::copy_file(source, dir / "run.json", fs::copy_options::overwrite_existing, ec);
  if (ec) {
    std::fprintf(stderr, "campaign_bench_child: %s: %s\n", dir.c_str(), ec.message().c_str());
    return 1;
  }
  return 0;
}
