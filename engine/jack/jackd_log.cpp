// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/jackd_log.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>
#include <utility>

namespace xrunlab {
namespace {

constexpr std::string_view kNotFinishedHead = "JackEngine::XRun: client = ";
constexpr std::string_view kNotFinishedMid = " was not finished, state = ";
constexpr std::string_view kLateHead = "JackEngine::XRun: client ";
constexpr std::string_view kLateTail = " finished after current callback";
constexpr std::string_view kTimedHead = "JackTimedDriver::Process XRun = ";
constexpr std::string_view kTimedTail = " usec";
constexpr std::string_view kAlsaHead = "xrun of at least ";
constexpr std::string_view kAlsaTail = " msecs";

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool is_word(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Parses a delay that must be followed by `tail`; locale-independent. A delay is a finite
// number >= 0: "-234 usec", "inf usec" or "nan usec" are malformed (jackd prints none of them).
bool parse_number_before(std::string_view s, std::string_view tail, double& out) {
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, out);
  if (ec != std::errc() || !std::isfinite(out) || out < 0) return false;
  return std::string_view(ptr, static_cast<size_t>(end - ptr)).substr(0, tail.size()) == tail;
}

bool parse_not_finished(std::string_view line, JackdLine& out) {
  const size_t head = line.find(kNotFinishedHead);
  if (head == std::string_view::npos) return false;
  const std::string_view rest = trim_right(line.substr(head + kNotFinishedHead.size()));
  const size_t mid = rest.rfind(kNotFinishedMid);  // greedy: the name may contain anything
  if (mid == std::string_view::npos || mid == 0) return false;
  const std::string_view state = rest.substr(mid + kNotFinishedMid.size());
  if (!is_word(state)) return false;
  out.kind = JackdLineKind::kClientNotFinished;
  out.client = std::string(rest.substr(0, mid));
  out.state = std::string(state);
  return true;
}

bool parse_finished_late(std::string_view line, JackdLine& out) {
  const size_t head = line.find(kLateHead);
  if (head == std::string_view::npos) return false;
  const std::string_view rest = trim_right(line.substr(head + kLateHead.size()));
  if (!ends_with(rest, kLateTail) || rest.size() == kLateTail.size()) return false;
  out.kind = JackdLineKind::kClientFinishedLate;
  out.client = std::string(rest.substr(0, rest.size() - kLateTail.size()));
  return true;
}

bool parse_driver_xrun(std::string_view line, JackdLine& out) {
  double value = 0;
  size_t pos = line.find(kTimedHead);
  if (pos != std::string_view::npos) {
    if (!parse_number_before(line.substr(pos + kTimedHead.size()), kTimedTail, value)) {
      return false;
    }
    out.kind = JackdLineKind::kDriverXrun;
    out.driver_delay_us = value;
    return true;
  }
  pos = line.find(kAlsaHead);
  if (pos != std::string_view::npos) {
    if (!parse_number_before(line.substr(pos + kAlsaHead.size()), kAlsaTail, value) ||
        !std::isfinite(value * 1000.0)) {
      return false;
    }
    out.kind = JackdLineKind::kDriverXrun;
    out.driver_delay_us = value * 1000.0;
    return true;
  }
  return false;
}

}  // namespace

JackdLine parse_jackd_line(std::string_view line) {
  JackdLine out;
  // The "client = " form is tried first: the "finished late" head is a prefix of it.
  if (parse_not_finished(line, out) || parse_finished_late(line, out) ||
      parse_driver_xrun(line, out)) {
    return out;
  }
  return JackdLine{};
}

JackdXrunCounter::JackdXrunCounter(int64_t gap_us) : gap_us_(gap_us) {}

void JackdXrunCounter::add(std::string_view line, int64_t arrival_us) {
  if (line.find("timed out") != std::string_view::npos) ++timed_out_lines_;
  JackdLine parsed = parse_jackd_line(line);
  switch (parsed.kind) {
    case JackdLineKind::kOther:
      return;
    case JackdLineKind::kDriverXrun:
      ++driver_xruns_;
      note_line({arrival_us, true, {}, false});
      if (parsed.driver_delay_us > driver_max_delay_us_) {
        driver_max_delay_us_ = parsed.driver_delay_us;
      }
      if (events_.size() < kMaxEventsKept) events_.push_back({arrival_us, true, {}});
      return;
    case JackdLineKind::kClientNotFinished:
    case JackdLineKind::kClientFinishedLate:
      break;
  }
  ++client_lines_;
  note_line({arrival_us, false, parsed.client,
             parsed.kind == JackdLineKind::kClientFinishedLate || parsed.state == "Running"});
  const bool new_event = !in_group_ || arrival_us - last_client_arrival_us_ > gap_us_ ||
                         group_.count(parsed.client) != 0;
  if (new_event) {
    ++client_events_;
    group_.clear();
    in_group_ = true;
    current_kept_ = events_.size() < kMaxEventsKept;
    if (current_kept_) {
      events_.push_back({arrival_us, false, {}});
      current_index_ = events_.size() - 1;
    }
  }
  if (current_kept_) events_[current_index_].clients.push_back(parsed.client);
  last_client_arrival_us_ = arrival_us;
  group_.insert(parsed.client);
  late_clients_.insert(std::move(parsed.client));
}

uint64_t JackdXrunCounter::client_events() const {
  return client_events_;
}
uint64_t JackdXrunCounter::client_lines() const {
  return client_lines_;
}
uint64_t JackdXrunCounter::driver_xruns() const {
  return driver_xruns_;
}
double JackdXrunCounter::driver_max_delay_us() const {
  return driver_max_delay_us_;
}
const std::set<std::string>& JackdXrunCounter::late_clients() const {
  return late_clients_;
}

}  // namespace xrunlab
