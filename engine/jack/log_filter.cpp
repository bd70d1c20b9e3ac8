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

}  // namespace

LogLineKind classify_jack_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.find("timed out") != std::string_view::npos || contains_xrun(line) ||
      parse_jackd_line(line).kind != JackdLineKind::kOther) {
    return {"xrun", true};
  }
  if (line.substr(0, kDebugPrefix.size()) != kDebugPrefix) return {"message", true};
  std::string_view word = line.substr(kDebugPrefix.size());
  word = word.substr(0, word.find(' '));
  while (!word.empty() && word.back() == ':') word.remove_suffix(1);
  return {std::string(kDebugPrefix) + std::string(word), false};
}

LogFilter::Verdict LogFilter::add(std::string_view line) {
  ++lines_;
  LogLineKind k = classify_jack_line(line);
  Verdict v;
  v.kind = std::move(k.kind);
  if (keep_all_ || startup_ || k.always_kept) {
    v.keep = true;
  } else {
    auto it = seen_.find(v.kind);
    if (it == seen_.end() && seen_.size() >= kMaxKinds) {
      v.kind = std::string(kDebugPrefix) + "(other)";
      it = seen_.find(v.kind);
    }
    if (it == seen_.end()) it = seen_.emplace(v.kind, 0).first;
    const uint64_t n = ++it->second;
    v.keep = n <= keep_per_kind_;
    v.last_of_kind = n == keep_per_kind_;
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

nlohmann::json LogFilter::to_json() const {
  nlohmann::json dropped = nlohmann::json::object();
  for (const auto& [kind, n] : dropped_) dropped[kind] = n;
  return {{"lines", lines_}, {"kept", kept_}, {"dropped", dropped}, {"full_log", keep_all_},
          {"examples_per_kind", keep_per_kind_}};
}

}  // namespace xrunlab
