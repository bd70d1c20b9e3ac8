// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// summary.txt: the text summary of one run, and a reader of jack_test-style summary blocks.
//
// The file leads with its answer (engine/report/run_answer.hpp: the verdict, the few figures
// it rests on with their definitions, how the other xrun witnesses compare, the worst cycle).
// jack_test 4.1's block follows, byte for byte in its layout (a leading space, the same labels
// and dot leaders, ':' in column 32, integers right-aligned in 6 characters, loads and rates as
// "%8.1f"), so scripts written for the 2004-2005 results still read it; the answer block has no
// such lines, so jack_test's block is where parse_summary finds its fields. xrunlab's own block
// follows in the same style, then the per-client, hop and xrun tables, the audio threads (one
// line each, start and end) and the warnings:
//
//    Result: clean: 0 xrun events in 300 s at 64 frames (1.33 ms), worst slack 212 us
//      xrun events      0   runs of consecutive cycles ...
//      ...
//    Policy: SCHED_FIFO 70 (server) / 65 (clients) (--policy fifo)
//
//    ************* SUMMARY RESULT ****************
//    Total seconds ran . . . . . . :   300
//    ...
//    *********************************************
//    ************* XRUNLAB RESULT ****************
//    Status  . . . . . . . . . . . : completed
//    ...
//    Audio threads (start; end when it differs):
//      server  pid 8785 tid 8792 jackd/jackd  SCHED_FIFO prio 70 nice 0 cpus 0-1  end: same
//
//   warning: ...
//
// Non-realtime: used by the engine after (or during) a run.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/report/run_answer.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// 0-based position of ':' in a jack_test summary line (column 32 when counting from 1).
inline constexpr size_t kSummaryColonIndex = 31;

// The whole summary.txt. Inexact percentiles (see Percentile) are printed as ">=N";
// missing values as "n/a" (the jack_test block prints 0 for a missing maximum, as jack_test did).
std::string format_summary(const RunResult& r);

enum class Verbosity {
  kQuiet,    // -q: the verdict line and the folder
  kNormal,   // the answer: verdict, jack_test's figures, worst cycle, floor, warnings, folder
  kVerbose,  // -v: the whole summary.txt, then the folder
};

// What `xrunlab run` prints when the run is over. `dir`: the run folder.
std::string terminal_result(const RunResult& r, const std::string& dir, Verbosity v);

// At most this many warnings on the terminal; the rest are counted ("and N more in
// summary.txt").
inline constexpr size_t kTerminalWarnings = 4;

// The Status line's value: " status (detail)", each made one line.
std::string summary_status_text(const RunResult& r);
// The same for a status and detail given as text (a run.json read only in part).
std::string summary_status_text(const std::string& status, const std::string& detail);

// One "label . . . : value" line with a leading space and '\n': the label, one space, then
// ". " leaders up to the colon column. A label too long for the column gets " :" right after
// it. `value` is written verbatim after the ':' (jack_test values start with their padding).
std::string summary_field_line(std::string_view label, std::string_view value);

// One line of a jack_test-style text that parse_summary_lines recognised: a field, a header
// or a title.
struct SummaryLine {
  // The field's label without its leader ("Delay Maximum"); "#" for a "# case" header, "==>"
  // for a `==> file <==` header of `head`, "***" for a title between stars
  // ("************* SUMMARY RESULT ****************").
  std::string label;
  // A field's value as parse_summary gives it ("18" for ":    18   usecs"); a header's case or
  // file name; a title's words ("SUMMARY RESULT").
  std::string value;
  // A field's whole text after the ':', trimmed: every column and unit ("12    30     7",
  // "(    0)", "150   usecs"). Empty for headers and titles.
  std::string text;
  size_t line = 0;  // 1-based line number in the text (for messages naming the line)
};

// Reads every "label . . . : value" line of a jack_test-style text: summary.txt, the blocks
// posted to linux-kernel (with or without the leading space, CRLF or LF, among `==> file <==`
// headers of `head`, "****" lines and any other text, which is skipped). A field line is one
// whose text before the first ':' ends in a run of dots and spaces containing at least one dot.
// Label: that text without the leader ("Delay Maximum", "Average DSP Load").
// Value: the number without its unit or parentheses ("18" for ":    18   usecs", "0" for
// ":(    0)", "36.3", ">=20001" for an inexact percentile); a value that does not start with
// a number is kept whole, trimmed ("completed", "n/a"). Only the first column of a line with
// several ("12    30     7") is the value; SummaryLine::text has them all.
// A label that occurs more than once keeps its first value; see parse_summary_lines.
std::map<std::string, std::string> parse_summary(std::string_view text);

// The fields, headers and titles in file order, repeats included (the .SUMMARY format: one
// "# case" header, then one metric line per run), each with its line number.
std::vector<SummaryLine> parse_summary_lines(std::string_view text);

}  // namespace xrunlab
