// SPDX-License-Identifier: GPL-2.0-or-later
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
// Lines that are kept are still bounded when they repeat without end (a client late in every
// fourth cycle: 47 "was not finished" lines and 47 "Process error" messages a second, 34 MB of
// log in 40 minutes): after the start-up, each repeat kind keeps its first keep_repeats lines
// (10000, as run.json keeps the first 10000 xrun events), the rest counted. A repeat kind is
// "xrun: " and what the line reports (client not finished, client finished late, driver,
// timed out, other) or "message: " and the line's first word. The xrun counter reads every
// line before the filter does, so no count depends on what the file keeps.
// Non-realtime: the hub's thread (add), the run's thread (the counts, after the hub stopped).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "engine/result/run_records.hpp"

namespace xrunlab {

struct LogLineKind {
  std::string kind;          // "xrun", "message", or "Jack: <first word>"
  bool always_kept = false;  // xrun lines and messages: kept up to keep_repeats per repeat kind
  std::string repeat_kind;   // always_kept lines: "xrun: client not finished", "message: Word"
};

// Pure: the kind of one line (trailing "\r\n" tolerated).
LogLineKind classify_jack_line(std::string_view line);

class LogFilter {
 public:
  static constexpr size_t kKeepPerKind = 20;
  static constexpr size_t kKeepRepeats = 10000;
  // More debug kinds count under "Jack: (other)", more message kinds under "message: (other)".
  static constexpr size_t kMaxKinds = 200;

  // keep_all: --full-log, every line kept (and still counted).
  explicit LogFilter(bool keep_all = false, size_t keep_per_kind = kKeepPerKind,
                     size_t keep_repeats = kKeepRepeats)
      : keep_all_(keep_all), keep_per_kind_(keep_per_kind), keep_repeats_(keep_repeats) {}

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
  size_t keep_repeats() const { return keep_repeats_; }
  // What it kept and dropped, for run.json's "logs".
  LogCounts counts() const;

 private:
  uint64_t count_seen(std::map<std::string, uint64_t>& seen, std::string& kind,
                      const std::string& other);

  bool keep_all_;
  size_t keep_per_kind_;
  size_t keep_repeats_;
  bool startup_ = true;
  uint64_t lines_ = 0, kept_ = 0;
  std::map<std::string, uint64_t> seen_;     // debug lines per kind after the start-up
  std::map<std::string, uint64_t> repeats_;  // xrun lines and messages per repeat kind
  std::map<std::string, uint64_t> dropped_;
};

}  // namespace xrunlab
