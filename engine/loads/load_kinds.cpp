// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_kinds.hpp"

#include <fmt/format.h>

#include <utility>

#include "engine/loads/load_spec.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {
namespace load_tool {
namespace {

constexpr KindInfo kKinds[] = {
    {"compile", Kind::kCompile, "JOBS", 1, kCompileJobsMax},
    {"hackbench", Kind::kHackbench, "GROUPS", 1, 64},
    {"cpu", Kind::kCpu, "N", 1, 256},
    {"io-write", Kind::kIoWrite, "MIB", 1, 4096},
    {"io-read", Kind::kIoRead, "MIB", 1, 4096},
    {"io-copy", Kind::kIoCopy, "MIB", 1, 4096},
    {"net", Kind::kNet, nullptr, 0, 0},
    {"x11", Kind::kX11, "N", 1, 64},
    {"top", Kind::kTop, nullptr, 0, 0},
    {"bench", Kind::kBench, "N", 1, 256},
    {"exec", Kind::kExec, nullptr, 0, 0},
};

const KindInfo* find_kind(const std::string& name) {
  for (const auto& k : kKinds) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

std::optional<long> parse_whole(const std::string& s) {
  if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stol(s);
}

const char* debian_package_for(const std::string& program) {
  const std::string base = program.substr(program.rfind('/') + 1);
  static const std::pair<const char*, const char*> kPackages[] = {
      {"make", "make"},
      {"cc", "gcc"},
      {"gcc", "gcc"},
      {"hackbench", "rt-tests"},
      {"cyclictest", "rt-tests"},
      {"stress-ng", "stress-ng"},
      {"Xvfb", "xvfb"},
      {"glxgears", "mesa-utils"},
      {"top", "procps"},
  };
  for (const auto& [name, package] : kPackages) {
    if (base == name) return package;
  }
  return nullptr;
}

// "program 'P' not found in PATH (install the Debian package D)".
std::string missing_part(const std::string& program) {
  std::string line = "program '" + program + "' " +
                     (program.find('/') != std::string::npos ? "not found or not executable"
                                                             : "not found in PATH");
  if (const char* package = debian_package_for(program)) {
    line += fmt::format(" (install the Debian package {})", package);
  }
  return line;
}

}  // namespace

std::vector<std::string> exec_argv(const std::vector<std::string>& args) {
  if (!args.empty() && args.front() == "--") return {args.begin() + 1, args.end()};
  return args;
}

std::optional<LoadArgs> parse_load_args(const std::string& kind,
                                        const std::vector<std::string>& args, std::string* error) {
  auto fail = [&](std::string why) -> std::optional<LoadArgs> {
    *error = std::move(why);
    return std::nullopt;
  };
  LoadArgs out;
  out.kind = find_kind(kind);
  if (out.kind == nullptr) {
    return fail("unknown load kind '" + kind +
                "' (expected compile, hackbench, cpu, io-write, io-read, io-copy, net, x11, top, "
                "bench or exec)");
  }
  const KindInfo& k = *out.kind;
  if (k.kind == Kind::kExec) {
    const auto argv = exec_argv(args);
    if (argv.empty() || argv.front().empty()) {
      return fail("exec needs a command: exec -- PROGRAM [ARGS...]");
    }
    return out;
  }
  if (k.arg == nullptr) {
    if (!args.empty()) return fail(std::string(k.name) + " takes no arguments");
    return out;
  }
  const std::string expect =
      fmt::format("{} takes {}, a whole number from {} to {}", k.name, k.arg, k.min, k.max);
  if (args.size() != 1) return fail(expect);
  const auto v = parse_whole(args.front());
  if (!v || *v < k.min || *v > k.max) return fail(expect + " (got '" + args.front() + "')");
  out.value = *v;
  return out;
}

}  // namespace load_tool

std::string check_load_args(const std::string& kind, const std::vector<std::string>& args) {
  std::string error;
  load_tool::parse_load_args(kind, args, &error);
  return error;
}

std::string missing_program_for(const std::string& kind, const std::vector<std::string>& args) {
  std::vector<std::string> programs;
  if (kind == "compile") {
    programs = {"make", "cc"};
  } else if (kind == "hackbench") {
    programs = {"hackbench"};
  } else if (kind == "x11") {
    programs = {"Xvfb", "glxgears"};
  } else if (kind == "top") {
    programs = {"top"};
  } else if (kind == "exec") {
    const auto argv = load_tool::exec_argv(args);
    if (!argv.empty() && !argv.front().empty()) programs = {argv.front()};
  }
  std::string missing;
  for (const auto& p : programs) {
    if (!find_program(p)) missing += (missing.empty() ? "" : "; ") + load_tool::missing_part(p);
  }
  return missing.empty() ? "" : "load " + kind + ": " + missing;
}

}  // namespace xrunlab
