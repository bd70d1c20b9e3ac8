// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/janitor/janitor_plan.hpp"

#include <algorithm>
#include <charconv>

namespace xrunlab {

bool apply_janitor_line(JanitorPlan& plan, std::string_view line, std::string* why) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty()) return true;
  const auto space = line.find(' ');
  const std::string_view word = line.substr(0, space);
  const std::string_view value = space == std::string_view::npos ? "" : line.substr(space + 1);
  auto fail = [&](const std::string& w) {
    if (why != nullptr) *why = w;
    return false;
  };
  if (word == "done") {
    if (!value.empty()) return fail("'done' takes no value");
    plan.done = true;
    return true;
  }
  if (value.empty()) return fail("'" + std::string(word) + "' needs a value");
  if (word == "dir" || word == "server") {
    if (word == "dir" && value.front() != '/') return fail("dir must be an absolute path");
    if (word == "server" && value.find('/') != std::string_view::npos) {
      return fail("a server name has no '/'");
    }
    (word == "dir" ? plan.run_dir : plan.server) = std::string(value);
    return true;
  }
  if (word == "child") {
    int pid = 0;
    uint64_t start = 0;
    const char* const last = value.data() + value.size();
    const auto [gap, ec] = std::from_chars(value.data(), last, pid);
    if (ec != std::errc() || pid <= 1) return fail("child needs a pid above 1");
    if (gap == last || *gap != ' ') return fail("child needs a pid and its start time");
    const auto [end, ec2] = std::from_chars(gap + 1, last, start);
    if (ec2 != std::errc() || end != last) return fail("child needs a pid and its start time");
    const AnnouncedChild c{static_cast<pid_t>(pid), start};
    if (std::find(plan.children.begin(), plan.children.end(), c) == plan.children.end()) {
      plan.children.push_back(c);
    }
    return true;
  }
  return fail("unknown line '" + std::string(line.substr(0, 60)) + "'");
}

void apply_janitor_input(JanitorPlan& plan, std::string& pending, std::string_view chunk,
                         std::vector<std::string>* bad) {
  pending.append(chunk);
  size_t start = 0;
  for (size_t nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n', start)) {
    std::string why;
    if (!apply_janitor_line(plan, std::string_view(pending).substr(start, nl - start), &why) &&
        bad != nullptr) {
      bad->push_back(why);
    }
    start = nl + 1;
  }
  pending.erase(0, start);
}

}  // namespace xrunlab
