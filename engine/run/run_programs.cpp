// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_programs.hpp"

#include <fmt/format.h>

#include "engine/base/errors.hpp"
#include "engine/base/install_layout.hpp"
#include "engine/loads/load_kinds.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {
namespace {

// A helper installed with xrunlab, beside it; `build` says how to get it back.
std::string helper(const std::string& exe_dir, const std::string& name, const std::string& build) {
  std::string path = helper_program_path(exe_dir, name);
  if (!find_program(path)) {
    throw Error(ExitCode::kMissingProgram, name + " not found at '" + path + "': " + build);
  }
  return path;
}

}  // namespace

RunPrograms find_run_programs(const RunOptions& o, bool starts_jackd, const std::string& exe_dir) {
  RunPrograms p;
  if (starts_jackd) {
    const auto jackd = find_program(o.jackd);
    if (!jackd) {
      throw Error(ExitCode::kMissingProgram,
                  "jackd not found ('" + o.jackd +
                      "'): install JACK2 (apt-get install --no-install-recommends jackd2) or pass "
                      "--jackd PATH");
    }
    p.jackd = *jackd;
  }
  p.client =
      o.client_binary.empty() ? helper_program_path(exe_dir, "xrunlab-client") : o.client_binary;
  if (!find_program(p.client)) {
    throw Error(ExitCode::kMissingProgram,
                "xrunlab-client not found at '" + p.client +
                    "': build it (cmake --build build), reinstall xrunlab or pass "
                    "--client-binary PATH");
  }
  if (o.baseline == BaselineTool::kCyclictest) {
    const auto cyclictest = find_program("cyclictest");
    if (!cyclictest) {
      throw Error(ExitCode::kMissingProgram,
                  "--baseline cyclictest: cyclictest not found: install rt-tests (apt-get "
                  "install --no-install-recommends rt-tests) or leave --baseline out");
    }
    p.cyclictest = *cyclictest;
  }
  if (o.ping) {
    auto need = [](const char* program, const char* package, const char* flag) {
      const auto found = find_program(program);
      if (!found) {
        throw Error(ExitCode::kMissingProgram,
                    fmt::format("{}: {} not found: install {} (apt-get install "
                                "--no-install-recommends {}) or leave {} out",
                                flag, program, package, package, flag));
      }
      return *found;
    };
    p.ip = need("ip", "iproute2", "--ping");
    if (o.ping_drop_every > 0) p.nft = need("nft", "nftables", "--ping-drop-every");
  }
  if (!o.loads.empty()) {
    p.load_tool =
        helper(exe_dir, "xrunlab-load", "build it (cmake --build build) or reinstall xrunlab");
    for (const LoadSpec& spec : o.loads) {
      const std::vector<std::string> args(spec.tool_args.begin() + 1, spec.tool_args.end());
      const std::string missing = missing_program_for(spec.tool_args.front(), args);
      if (!missing.empty()) {
        throw Error(ExitCode::kMissingProgram, "--load " + spec.text + ": " + missing);
      }
    }
  }
  p.janitor =
      helper(exe_dir, "xrunlab-janitor", "build it (cmake --build build) or reinstall xrunlab");
  return p;
}

}  // namespace xrunlab
