// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/report/json_members.hpp"

#include <algorithm>

namespace xrunlab {
namespace {

// Scans the top-level object without building it, only matching brackets and strings, and
// parses just the kept members: a fraction of the cost of a full parse, which builds every
// per-client and per-second array. Returns false on anything unexpected (the caller then
// parses the whole text).
class TopLevelScanner {
 public:
  TopLevelScanner(std::string_view t, const std::vector<std::string_view>& keep)
      : t_(t), keep_(keep) {}

  bool run(nlohmann::json& out) {
    std::string kept = "{";
    skip_space();
    if (!eat('{')) return false;
    skip_space();
    if (eat('}')) return finish(kept, out);
    for (;;) {
      skip_space();
      const size_t key_start = i_;
      if (!skip_string()) return false;
      const std::string_view key = t_.substr(key_start + 1, i_ - key_start - 2);
      skip_space();
      if (!eat(':')) return false;
      skip_space();
      const size_t value_start = i_;
      if (!skip_value()) return false;
      if (key.find('\\') == std::string_view::npos && is_kept(key)) {
        if (kept.size() > 1) kept += ',';
        kept.append(t_.substr(key_start, value_start - key_start));
        kept.append(t_.substr(value_start, i_ - value_start));
      }
      skip_space();
      if (eat(',')) continue;
      if (eat('}')) break;
      return false;
    }
    skip_space();
    if (i_ != t_.size()) return false;
    return finish(kept, out);
  }

 private:
  static bool finish(std::string& kept, nlohmann::json& out) {
    kept += '}';
    out = nlohmann::json::parse(kept, nullptr, /*allow_exceptions=*/false);
    return !out.is_discarded();
  }
  void skip_space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
      ++i_;
  }
  bool eat(char c) {
    if (i_ < t_.size() && t_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // At '"': moves past the closing quote.
  bool skip_string() {
    if (!eat('"')) return false;
    while (i_ < t_.size()) {
      const char c = t_[i_++];
      if (c == '"') return true;
      if (c == '\\') ++i_;
    }
    return false;
  }
  bool skip_value() {
    if (i_ >= t_.size()) return false;
    const char c = t_[i_];
    if (c == '"') return skip_string();
    if (c == '{' || c == '[') {
      size_t depth = 0;
      while (i_ < t_.size()) {
        const char d = t_[i_];
        if (d == '"') {
          if (!skip_string()) return false;
          continue;
        }
        ++i_;
        if (d == '{' || d == '[') {
          ++depth;
        } else if (d == '}' || d == ']') {
          if (--depth == 0) return true;
        }
      }
      return false;
    }
    const size_t start = i_;
    while (i_ < t_.size() && t_[i_] != ',' && t_[i_] != '}' && t_[i_] != ' ' && t_[i_] != '\n' &&
           t_[i_] != '\r' && t_[i_] != '\t')
      ++i_;
    return i_ > start;
  }

  bool is_kept(std::string_view key) const {
    return std::find(keep_.begin(), keep_.end(), key) != keep_.end();
  }

  std::string_view t_;
  const std::vector<std::string_view>& keep_;
  size_t i_ = 0;
};

}  // namespace

std::optional<nlohmann::json> parse_json_members(std::string_view text,
                                                 const std::vector<std::string_view>& keep,
                                                 std::string* why) {
  nlohmann::json j;
  if (TopLevelScanner(text, keep).run(j)) return j;
  // Not the plain layout the scanner expects (or broken): the full parser, which also says
  // what is wrong.
  const nlohmann::json::parser_callback_t filter =
      [&keep](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
        if (ev != nlohmann::json::parse_event_t::key || depth != 1) return true;
        const std::string& key = parsed.get_ref<const std::string&>();
        return std::find(keep.begin(), keep.end(), key) != keep.end();
      };
  try {
    return nlohmann::json::parse(text, filter);
  } catch (const nlohmann::json::exception& e) {
    if (why != nullptr) *why = std::string("not valid JSON (") + e.what() + ")";
    return std::nullopt;
  }
}

}  // namespace xrunlab
