// SPDX-License-Identifier: GPL-2.0-or-later
// The client's argv contract (engine/wire/client_args.hpp) and the two specs inside it:
//  * the whole input as --inject-overrun's USEC:EVERY_N_CYCLES (parse_inject_spec): an
//    accepted spec is positive and format_inject_spec reads back to it;
//  * the whole input as --sched-target's TARGET (parse_target): format_target reads back to it;
//  * the input split at NUL bytes as xrunlab-client's argv (parse_client_args): a rejection is
//    exit code 2 with a message; accepted arguments written back with to_argv parse to the same
//    arguments (--dsp-load to its six decimals, the one rounding to_argv documents).
#include <cmath>
#include <string>
#include <vector>

#include "engine/wire/client_args.hpp"
#include "engine/wire/sched_target.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

std::optional<xrunlab::ClientArgs> parse(const std::vector<std::string>& args, std::string* error,
                                         int* code) {
  std::vector<const char*> argv = {"xrunlab-client"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return xrunlab::parse_client_args(static_cast<int>(argv.size()), argv.data(), error, code);
}

void print_argv(const char* what, const std::vector<std::string>& args) {
  std::fprintf(stderr, "%s:", what);
  for (const std::string& a : args) std::fprintf(stderr, " [%s]", a.c_str());
  std::fprintf(stderr, "\n");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  {
    std::string why;
    const auto spec = xrunlab::parse_inject_spec(std::string(text), &why);
    if (!spec) {
      FUZZ_CHECK(!why.empty());
    } else {
      FUZZ_CHECK(spec->usec > 0 && spec->every > 0);
      const auto back = xrunlab::parse_inject_spec(xrunlab::format_inject_spec(*spec), nullptr);
      FUZZ_CHECK(back.has_value() && *back == *spec);
    }
  }
  {
    std::string why;
    const auto t = xrunlab::parse_target(text, &why);
    if (!t) {
      FUZZ_CHECK(!why.empty());
    } else {
      const auto back = xrunlab::parse_target(xrunlab::format_target(*t), nullptr);
      FUZZ_CHECK(back.has_value() && *back == *t);
    }
  }

  std::vector<std::string> args;
  size_t start = 0;
  while (start <= text.size() && args.size() < 64) {
    const size_t nul = text.find('\0', start);
    const size_t end = nul == std::string_view::npos ? text.size() : nul;
    args.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (size == 0) args.clear();
  std::string error;
  int code = -1;
  const auto a = parse(args, &error, &code);
  if (!a) {
    FUZZ_CHECK(code == 0 || code == 2);
    if (code == 2) FUZZ_CHECK(!error.empty());
    return 0;
  }
  FUZZ_CHECK(code == 0 && error.empty());
  FUZZ_CHECK(a->ports >= 1 && a->ports <= 256);
  FUZZ_CHECK(a->index >= 1);
  FUZZ_CHECK(a->dsp_load_pct >= 0 && a->dsp_load_pct <= 100);
  FUZZ_CHECK(std::isfinite(a->duration_s) && a->duration_s >= 0);

  const std::vector<std::string> again = xrunlab::to_argv(*a);
  const auto b = parse(again, &error, &code);
  if (!b) {
    print_argv("input", args);
    print_argv("to_argv", again);
    std::fprintf(stderr, "does not parse: %s\n", error.c_str());
  }
  FUZZ_CHECK(b.has_value());
  xrunlab::ClientArgs rounded = *a;
  rounded.dsp_load_pct = b->dsp_load_pct;
  FUZZ_CHECK(std::fabs(b->dsp_load_pct - a->dsp_load_pct) <= 5e-7);
  if (rounded != *b) {
    print_argv("input", args);
    print_argv("to_argv", again);
  }
  FUZZ_CHECK(rounded == *b);
  // Once rounded, exact.
  const auto c = parse(xrunlab::to_argv(*b), &error, &code);
  FUZZ_CHECK(c.has_value() && *c == *b);
  return 0;
}
