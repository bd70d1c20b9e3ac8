// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_spec.hpp"

#include <algorithm>
#include <charconv>

namespace xrunlab {
namespace {

bool parse_int(std::string_view s, int lo, int hi, int* out) {
  if (s.empty() || s[0] == '+') return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size() && *out >= lo && *out <= hi;
}

// Strips one pair of surrounding double or single quotes (the shell that ran xrunlab may have
// left them when the user wrote --load 'stress-ng:"--cpu 2"'): only when they are one quoted
// span around the whole text, the first quote closing at the last character (read as
// split_words reads quotes). 'a' 'b' or '' x\' start and end with a quote but are two
// words each and keep their quotes.
std::string_view unquote_outer(std::string_view s) {
  if (s.size() < 2 || (s.front() != '"' && s.front() != '\'')) return s;
  const char quote = s.front();
  size_t i = 1;
  for (; i < s.size() && s[i] != quote; ++i) {
    const bool escape =
        quote == '"' && s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\');
    if (escape) ++i;
  }
  return i == s.size() - 1 ? s.substr(1, s.size() - 2) : s;
}

// The position of a trailing "@nice=" outside quotes, or npos.
size_t nice_suffix(std::string_view s) {
  char quote = 0;
  size_t found = std::string_view::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == '\\' && quote == '"' && i + 1 < s.size()) {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '\\') {
      ++i;
    } else if (s.substr(i, 6) == "@nice=") {
      found = i;
    }
  }
  return found;
}

}  // namespace

const char* load_help() {
  return "Run a background load during the measurement (repeatable): compile[:JOBS|:J/cpu], "
         "hackbench[:GROUPS], cpu:N, io-write[:MIB], io-read[:MIB], io-copy[:MIB], net, x11[:N], "
         "top, bench[:N], stress-ng:\"ARGS\", cmd:\"ARGV\"; append @nice=N for a nice value.";
}

std::optional<std::vector<std::string>> split_words(std::string_view text, std::string* why) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
    } else if (c == '\'') {
      const size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos) {
        if (why != nullptr) *why = "unterminated ' quote";
        return std::nullopt;
      }
      cur.append(text.substr(i + 1, end - i - 1));
      in_word = true;
      i = end;
    } else if (c == '"') {
      size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) {
          ++j;
        }
        cur.push_back(text[j]);
      }
      if (j >= text.size()) {
        if (why != nullptr) *why = "unterminated \" quote";
        return std::nullopt;
      }
      in_word = true;
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= text.size()) {
        if (why != nullptr) *why = "a trailing backslash escapes nothing";
        return std::nullopt;
      }
      cur.push_back(text[++i]);
      in_word = true;
    } else {
      cur.push_back(c);
      in_word = true;
    }
  }
  if (in_word) words.push_back(cur);
  return words;
}

std::optional<LoadSpec> parse_load(std::string_view text, int ncpus, std::string* why) {
  auto fail = [&](const std::string& msg) -> std::optional<LoadSpec> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  LoadSpec spec;
  spec.text = std::string(text);
  std::string_view body = text;
  if (const size_t at = nice_suffix(text); at != std::string_view::npos) {
    if (!parse_int(text.substr(at + 6), -20, 19, &spec.nice)) {
      return fail("@nice=N needs one signed number -20..19, e.g. compile@nice=10");
    }
    body = text.substr(0, at);
  }
  const size_t colon = body.find(':');
  spec.kind = std::string(body.substr(0, colon));
  const bool has_arg = colon != std::string_view::npos;
  const std::string_view arg = has_arg ? body.substr(colon + 1) : std::string_view();
  int n = 0;
  auto numeric = [&](const char* form, int lo, int hi, int dflt) -> bool {
    if (!has_arg) {
      n = dflt;
    } else if (!parse_int(arg, lo, hi, &n)) {
      if (why != nullptr) {
        *why = std::string("'") + std::string(arg) + "' is not a whole number " +
               std::to_string(lo) + ".." + std::to_string(hi) + "; use " + form;
      }
      return false;
    }
    spec.tool_args = {spec.kind, std::to_string(n)};
    return true;
  };
  if (spec.kind == "compile") {
    if (has_arg && arg.size() > 4 && arg.substr(arg.size() - 4) == "/cpu") {
      // J jobs a CPU (2007's make -j128 on 2 to 4 CPUs was 32 to 64 a CPU), at most as many as
      // the tree has files: make could not run more compilers at once.
      const std::string_view per = arg.substr(0, arg.size() - 4);
      int j = 0;
      if (!parse_int(per, 1, 64, &j)) {
        return fail("'" + std::string(per) +
                    "' is not a whole number 1..64; use compile:J/cpu, e.g. compile:32/cpu");
      }
      n = std::min(j * std::max(ncpus, 1), kCompileJobsMax);
      spec.tool_args = {spec.kind, std::to_string(n)};
    } else if (!numeric("compile[:JOBS|:J/cpu]", 1, kCompileJobsMax,
                        std::clamp(ncpus, 1, kCompileJobsMax))) {
      return std::nullopt;
    }
  } else if (spec.kind == "hackbench") {
    if (!numeric("hackbench[:GROUPS]", 1, 64, 4)) return std::nullopt;
  } else if (spec.kind == "cpu") {
    if (!has_arg) return fail("cpu needs the number of busy loops; use cpu:N, e.g. cpu:2");
    if (!numeric("cpu:N", 1, 256, 0)) return std::nullopt;
  } else if (spec.kind == "io-write" || spec.kind == "io-read" || spec.kind == "io-copy") {
    if (!numeric((spec.kind + "[:MIB]").c_str(), 1, 4096, 256)) return std::nullopt;
  } else if (spec.kind == "net") {
    if (has_arg) return fail("net takes no argument");
    spec.tool_args = {"net"};
  } else if (spec.kind == "x11") {
    if (!numeric("x11[:N]", 1, 64, 1)) return std::nullopt;
  } else if (spec.kind == "top") {
    if (has_arg) return fail("top takes no argument");
    spec.tool_args = {"top"};
  } else if (spec.kind == "bench") {
    if (!numeric("bench[:N]", 1, 256, 1)) return std::nullopt;
  } else if (spec.kind == "stress-ng" || spec.kind == "cmd") {
    std::string split_why;
    const auto words = split_words(unquote_outer(arg), &split_why);
    if (!words) return fail(split_why);
    if (words->empty()) {
      return fail(spec.kind == "cmd" ? "cmd needs a command; use cmd:\"PROGRAM ARGS...\""
                                     : "stress-ng needs its arguments; use stress-ng:\"--cpu 2\"");
    }
    spec.tool_args = {"exec", "--"};
    if (spec.kind == "stress-ng") spec.tool_args.push_back("stress-ng");
    spec.tool_args.insert(spec.tool_args.end(), words->begin(), words->end());
  } else {
    return fail("unknown load '" + spec.kind +
                "'; use compile[:JOBS|:J/cpu], hackbench[:GROUPS], cpu:N, io-write[:MIB], "
                "io-read[:MIB], io-copy[:MIB], net, x11[:N], top, bench[:N], stress-ng:\"ARGS\" or "
                "cmd:\"ARGV\"");
  }
  return spec;
}

}  // namespace xrunlab
