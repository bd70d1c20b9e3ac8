#pragma once
// What of a JACK log is kept: jackd's output (jackd.log) and each client's (clients/cNN.log).
// With -v, JACK2 prints a "Jack: " debug line for every notification, connection and port
// operation (a 10 s run of 64 clients: 180,000 lines, 118,000 of them
// "JackEngine::ClientNotify: no callback for notification"), and libjack in every client
// prints its own share. Nothing reads those lines; the ones that are read must stay:
//   * xrun lines: what the xrun counter (jackd_log.hpp) parses, lines with "timed out"
//     (jack_test's Timeout Count) and any other line naming an xrun;
//   * every line that is not a "Jack: " debug line: errors, warnings, jackd's banner and
//     configuration ("creating alsa driver ...", "configuring for ..."), ALSA's messages, the
//     client's own lines (its set-up and totals);
//   * every line of the start-up, until end_startup() (jackd: until the monitor is connected).
// A "Jack: " debug line's kind is its first word ("Jack: JackEngine::ClientNotify"); the
// first keep_per_kind lines of each kind are kept as examples, the rest counted.
// Non-realtime: the hub's thread (add), the run's thread (the counts, after the hub stopped).
#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace xrunlab {

struct LogLineKind {
  std::string kind;          // "xrun", "message", or "Jack: <first word>"
  bool always_kept = false;  // never dropped (xrun lines and messages)
};

// Pure: the kind of one line (trailing "\r\n" tolerated).
LogLineKind classify_jack_line(std::string_view line);

class LogFilter {
 public:
  static constexpr size_t kKeepPerKind = 20;
  static constexpr size_t kMaxKinds = 200;  // more debug kinds count under "Jack: (other)"

  // keep_all: --full-log, every line kept (and still counted).
  explicit LogFilter(bool keep_all = false, size_t keep_per_kind = kKeepPerKind)
      : keep_all_(keep_all), keep_per_kind_(keep_per_kind) {}

  struct Verdict {
    bool keep = false;
    // This was the last line of its kind kept: the log gets note() after it.
    bool last_of_kind = false;
    std::string kind;
  };
  Verdict add(std::string_view line);
  // Everything after this is filtered; before it, every line is kept (the start-up).
  void end_startup() { startup_ = false; }

  // The line the log gets where a kind's examples end.
  static std::string note(const std::string& kind);

  uint64_t lines() const { return lines_; }
  uint64_t kept() const { return kept_; }
  uint64_t dropped() const { return lines_ - kept_; }
  const std::map<std::string, uint64_t>& dropped_by_kind() const { return dropped_; }
  bool keep_all() const { return keep_all_; }
  // Adds another log's counts (the clients' logs are reported together).
  void merge(const LogFilter& other);
  size_t keep_per_kind() const { return keep_per_kind_; }
  // {"lines": N, "kept": K, "dropped": {kind: n}, "full_log": bool, "examples_per_kind": 20}
  nlohmann::json to_json() const;

 private:
  bool keep_all_;
  size_t keep_per_kind_;
  bool startup_ = true;
  uint64_t lines_ = 0, kept_ = 0;
  std::map<std::string, uint64_t> seen_;  // debug lines per kind after the start-up
  std::map<std::string, uint64_t> dropped_;
};

}  // namespace xrunlab
