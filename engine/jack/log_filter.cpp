// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/jack/log_filter.hpp"

#include <cctype>

#include "engine/jack/jackd_log.hpp"

namespace xrunlab {
namespace {

constexpr std::string_view kDebugPrefix = "Jack: ";

// "xrun" in any case, as a word of its own or a part of one (XRun, NotifyXRun, xruns).
bool contains_xrun(std::string_view line) {
  for (size_t i = 0; i + 4 <= line.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(line[i])) == 'x' &&
        std::tolower(static_cast<unsigned char>(line[i + 1])) == 'r' &&
        std::tolower(static_cast<unsigned char>(line[i + 2])) == 'u' &&
        std::tolower(static_cast<unsigned char>(line[i + 3])) == 'n' &&
        line.substr(i + 4, 3) != "lab") {  // not our own names (xrunlab-c01, xrunlab_vcard)
      return true;
    }
  }
  return false;
}

// The first word of a line, without a trailing ':' ("" for an empty line).
std::string_view first_word(std::string_view line) {
  const size_t start = line.find_first_not_of(' ');
  if (start == std::string_view::npos) return {};
  std::string_view word = line.substr(start);
  word = word.substr(0, word.find(' '));
  while (!word.empty() && word.back() == ':') word.remove_suffix(1);
  return word;
}

}  // namespace

LogLineKind classify_jack_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  const JackdLineKind parsed = parse_jackd_line(line).kind;
  const bool timed_out = line.find("timed out") != std::string_view::npos;
  if (timed_out || contains_xrun(line) || parsed != JackdLineKind::kOther) {
    const char* what = parsed == JackdLineKind::kClientNotFinished    ? "client not finished"
                       : parsed == JackdLineKind::kClientFinishedLate ? "client finished late"
                       : parsed == JackdLineKind::kDriverXrun         ? "driver"
                       : timed_out                                    ? "timed out"
                                                                      : "other";
    return {"xrun", true, std::string("xrun: ") + what};
  }
  if (line.substr(0, kDebugPrefix.size()) != kDebugPrefix) {
    return {"message", true, "message: " + std::string(first_word(line))};
  }
  std::string_view word = line.substr(kDebugPrefix.size());
  word = word.substr(0, word.find(' '));
  while (!word.empty() && word.back() == ':') word.remove_suffix(1);
  return {std::string(kDebugPrefix) + std::string(word), false, ""};
}

// How many lines of `kind` have been seen, this one included; a kind beyond kMaxKinds counts
// as `other` (and `kind` becomes it). Bounded: at most kMaxKinds + 1 entries.
uint64_t LogFilter::count_seen(std::map<std::string, uint64_t>& seen, std::string& kind,
                               const std::string& other) {
  auto it = seen.find(kind);
  if (it == seen.end() && seen.size() >= kMaxKinds) {
    kind = other;
    it = seen.find(kind);
  }
  if (it == seen.end()) it = seen.emplace(kind, 0).first;
  return ++it->second;
}

LogFilter::Verdict LogFilter::add(std::string_view line) {
  ++lines_;
  LogLineKind k = classify_jack_line(line);
  Verdict v;
  if (keep_all_ || startup_) {
    v.kind = std::move(k.kind);
    v.keep = true;
  } else {
    const bool repeat = k.always_kept;
    v.kind = repeat ? std::move(k.repeat_kind) : std::move(k.kind);
    const size_t limit = repeat ? keep_repeats_ : keep_per_kind_;
    const uint64_t n = repeat ? count_seen(repeats_, v.kind, "message: (other)")
                              : count_seen(seen_, v.kind, std::string(kDebugPrefix) + "(other)");
    v.keep = n <= limit;
    v.last_of_kind = n == limit;
    if (!v.keep) ++dropped_[v.kind];
  }
  if (v.keep) ++kept_;
  return v;
}

std::string LogFilter::note(const std::string& kind) {
  return "xrunlab: further '" + kind +
         "' lines are counted, not kept (run.json logs; --full-log keeps every line)";
}

void LogFilter::merge(const LogFilter& other) {
  lines_ += other.lines_;
  kept_ += other.kept_;
  for (const auto& [kind, n] : other.dropped_) dropped_[kind] += n;
  keep_all_ = keep_all_ && other.keep_all_;
}

LogCounts LogFilter::counts() const {
  return {lines_, kept_, dropped_, keep_all_, keep_per_kind_, keep_repeats_};
}

}  // namespace xrunlab
