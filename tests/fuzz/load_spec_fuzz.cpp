// SPDX-License-Identifier: GPL-2.0-or-later
// parse_load (--load SPEC) and split_words: a rejected spec says why; an accepted one has a
// known kind, a nice value in range and an argv for xrunlab-load, and written back in the
// grammar (KIND[:N], or KIND:WORDS with every word escaped, then @nice=N) it parses to the same
// argv and nice value.
#include <string>
#include <vector>

#include "engine/loads/load_spec.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

// One word for split_words, every character that means something to it (or to the @nice=
// suffix) escaped with a backslash; an empty word as ''.
std::string escaped(const std::string& w) {
  if (w.empty()) return "''";
  std::string out;
  for (const char c : w) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\'' || c == '"' || c == '\\' || c == '@') {
      out.push_back('\\');
    }
    out.push_back(c);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  {
    std::string why;
    const auto words = xrunlab::split_words(text, &why);
    if (!words) FUZZ_CHECK(!why.empty());
  }
  std::string why;
  const auto spec = xrunlab::parse_load(text, 2, &why);
  if (!spec) {
    FUZZ_CHECK(!why.empty());
    return 0;
  }
  FUZZ_CHECK(spec->text == text);
  FUZZ_CHECK(spec->nice >= -20 && spec->nice <= 19);
  FUZZ_CHECK(!spec->tool_args.empty());

  std::string again;
  if (spec->kind == "stress-ng" || spec->kind == "cmd") {
    const size_t skip = spec->kind == "stress-ng" ? 3 : 2;  // exec -- [stress-ng]
    FUZZ_CHECK(spec->tool_args.size() > skip);
    FUZZ_CHECK(spec->tool_args[0] == "exec" && spec->tool_args[1] == "--");
    std::string arg;
    for (size_t i = skip; i < spec->tool_args.size(); ++i) {
      if (!arg.empty()) arg += ' ';
      arg += escaped(spec->tool_args[i]);
    }
    // One empty word alone is '' : the outer quotes of the grammar's cmd:"ARGV", so nothing.
    if (arg == "''") return 0;
    again = spec->kind + ":" + arg;
  } else if (spec->kind == "net" || spec->kind == "top") {  // kinds without an argument
    FUZZ_CHECK(spec->tool_args.size() == 1 && spec->tool_args[0] == spec->kind);
    again = spec->kind;
  } else {
    FUZZ_CHECK(spec->tool_args.size() == 2 && spec->tool_args[0] == spec->kind);
    again = spec->kind + ":" + spec->tool_args[1];
  }
  again += "@nice=" + std::to_string(spec->nice);
  std::string why2;
  const auto back = xrunlab::parse_load(again, 2, &why2);
  if (!back) std::fprintf(stderr, "'%s' does not parse: %s\n", again.c_str(), why2.c_str());
  FUZZ_CHECK(back.has_value());
  if (back->tool_args != spec->tool_args) {
    std::fprintf(stderr, "'%s' parses to another argv than '%s'\n", again.c_str(),
                 spec->text.c_str());
  }
  FUZZ_CHECK(back->tool_args == spec->tool_args);
  FUZZ_CHECK(back->nice == spec->nice);
  FUZZ_CHECK(back->kind == spec->kind);
  return 0;
}
