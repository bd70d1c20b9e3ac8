// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/doctor/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace xrunlab {
namespace {

constexpr int kStatusWidth = 6;     // "STATUS"
constexpr int kMinFoundWidth = 30;  // narrower: FOUND goes under the title
constexpr int kMinRoom = 10;        // what a wrapped text keeps however narrow the terminal

// `text` broken into lines of at most `width` characters at blanks (a longer word is kept
// whole); width <= 0: one line.
std::vector<std::string> wrap(const std::string& text, int width) {
  if (width <= 0 || static_cast<int>(text.size()) <= width) return {text};
  std::vector<std::string> out;
  std::string line;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(' ', i);
    if (j == std::string::npos) j = text.size();
    const std::string word = text.substr(i, j - i);
    if (!line.empty() && static_cast<int>(line.size() + 1 + word.size()) > width) {
      out.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    i = j + 1;
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

// `text` after `first` (the first line's prefix), continuation lines indented by `indent`.
void append_wrapped(std::string& out, const std::string& first, size_t indent,
                    const std::string& text, int width) {
  const int room = width > 0 ? std::max(kMinRoom, width - static_cast<int>(indent)) : 0;
  const auto ls = wrap(text, room);
  for (size_t k = 0; k < ls.size(); ++k) {
    out += (k == 0 ? first : std::string(indent, ' ')) + ls[k] + "\n";
  }
}

// The status word padded to its column, coloured when asked (the padding stays outside the
// escape codes, so the columns line up).
std::string status_cell(CheckStatus s, bool color) {
  const std::string label = status_label(s);
  const std::string pad(kStatusWidth + 2 - label.size(), ' ');
  if (!color) return label + pad;
  const char* code = s == CheckStatus::kOk     ? "32"
                     : s == CheckStatus::kWarn ? "33"
                     : s == CheckStatus::kFail ? "1;31"
                                               : "2";
  return fmt::format("\033[{}m{}\033[0m{}", code, label, pad);
}

}  // namespace

std::string format_doctor_table(const std::vector<CheckResult>& results, int width, bool color) {
  size_t title_w = 5;  // "CHECK"
  for (const CheckResult& r : results) title_w = std::max(title_w, r.title.size());
  const size_t found_col = kStatusWidth + 2 + title_w + 2;
  // A narrow terminal: FOUND goes on a line of its own, under CHECK.
  const bool stacked = width > 0 && width - static_cast<int>(found_col) < kMinFoundWidth;
  const size_t sub = kStatusWidth + 2;  // where CHECK, why and fix start
  std::string out;
  if (stacked) {
    out += fmt::format("{:<{}}  {}\n", "STATUS", kStatusWidth, "CHECK / FOUND");
  } else {
    out += fmt::format("{:<{}}  {:<{}}  {}\n", "STATUS", kStatusWidth, "CHECK", title_w, "FOUND");
  }
  std::map<CheckStatus, int> n;
  for (const CheckResult& r : results) {
    ++n[r.status];
    const std::string status = status_cell(r.status, color);
    if (stacked) {
      append_wrapped(out, status, sub, r.title, width);
      append_wrapped(out, std::string(sub + 2, ' '), sub + 2, r.found, width);
    } else {
      append_wrapped(out, status + fmt::format("{:<{}}  ", r.title, title_w), found_col, r.found,
                     width);
    }
    // OK and not applicable need no explanation in the table (--json has every why).
    if (r.status == CheckStatus::kOk || r.status == CheckStatus::kSkipped) continue;
    append_wrapped(out, std::string(sub, ' ') + "why: ", sub + 5, r.why, width);
    if (!r.fix.empty()) append_wrapped(out, std::string(sub, ' ') + "fix: ", sub + 5, r.fix, width);
  }
  const int code = static_cast<int>(doctor_exit_code(results));
  out += "\n";
  append_wrapped(
      out, "", 0,
      fmt::format("{} checks: {} OK, {} WARN, {} FAIL, {} need root, {} skipped (not "
                  "applicable); exit code {}",
                  results.size(), n[CheckStatus::kOk], n[CheckStatus::kWarn], n[CheckStatus::kFail],
                  n[CheckStatus::kNeedsRoot], n[CheckStatus::kSkipped], code),
      width);
  return out;
}

nlohmann::ordered_json doctor_json(const std::vector<CheckResult>& results) {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  std::map<CheckStatus, int> n;
  for (const CheckResult& r : results) {
    ++n[r.status];
    checks.push_back({{"id", r.id},
                      {"title", r.title},
                      {"status", status_key(r.status)},
                      {"found", r.found},
                      {"why", r.why},
                      {"fix", r.fix}});
  }
  return {{"schema_version", 1},
          {"checks", std::move(checks)},
          {"summary",
           {{"ok", n[CheckStatus::kOk]},
            {"warn", n[CheckStatus::kWarn]},
            {"fail", n[CheckStatus::kFail]},
            {"needs_root", n[CheckStatus::kNeedsRoot]},
            {"skipped", n[CheckStatus::kSkipped]},
            {"worst", status_key(worst_status(results))},
            {"exit_code", static_cast<int>(doctor_exit_code(results))}}}};
}

ExitCode doctor_exit_code(const std::vector<CheckResult>& results) {
  switch (worst_status(results)) {
    case CheckStatus::kFail:
      return ExitCode::kDoctorFail;
    case CheckStatus::kWarn:
      return ExitCode::kDoctorWarn;
    default:
      return ExitCode::kOk;
  }
}

}  // namespace xrunlab
