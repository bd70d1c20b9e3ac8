// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The answer of one run, first: was it clean, and if not, what the few figures that say so
// are. summary.txt starts with it (each figure with its one definition), the terminal shows it
// as the run's result (at most ~15 lines: the whole summary is summary.txt, or `-v`), and the
// HTML report leads with it. Everything here is taken from the result model, never estimated:
//
//   clean: 0 xrun events in 300 s at 64 frames (1.33 ms), worst slack 212 us
//   not clean: 6 xrun events in 10 s (0.6/s) at 64 frames (1.33 ms), worst slack -312 us
//
// The xrun count is the run's one count (run_metric "xruns": the cycle table's xrun events and
// the xruns JACK reported outside the run's chain, engine/result/xrun_causes.hpp; the monitor's
// JACK2 events without a table); the other witnesses are shown as agreeing or
// disagreeing with it, never as a second headline. Non-realtime.
#include <cstddef>
#include <string>
#include <vector>

#include "engine/result/result.hpp"

namespace xrunlab {

// One figure of the answer: "XRUN Count", "0", "jack_test's: the driver's xruns only ...".
struct AnswerFigure {
  std::string label;
  std::string value;       // with its unit; "n/a" when not measured
  std::string definition;  // one sentence: what the number counts or measures
};

struct RunAnswer {
  bool clean = false;    // completed with no xrun event (and no audible glitch)
  std::string verdict;   // the verdict line (see the header comment)
  std::string count_by;  // what the xrun count is: "the cycle table" or "the monitor"
  // xrun events, then jack_test's XRUN Count, Delay Maximum, Cycle Maximum, Average DSP Load.
  std::vector<AnswerFigure> figures;
  // How each other witness of xruns compares with the count: "JACK2 monitor: 6 of 6 events
  // reported (agrees)"; empty without a cycle table.
  std::vector<std::string> witnesses;
  // Who made the xrun events, the 4 causes with the most first: "causes: intruder (another
  // program's) 5 (all outside the chain)"; "" without xrun events or causes (older records).
  std::string causes;
  std::string worst_cycle;  // the worst cycle and the hop that took its time; "" without a table
  std::string floor;        // the jackd wake-up against the timer baseline; "" without one
  std::string ramp;         // --ramp: where its first xrun came (ramp_text); "" without
  std::vector<std::string> warnings;
};

RunAnswer run_answer(const RunResult& r);

// One cause in words: "intruder (another program's client)", "xrunlab-1-0-c03 (the run's
// client)", "the driver (...)", "clients not started (...)", "unnamed (no jackd line)";
// `brief`: "intruder (another program's)", "c03 (the run's)", "the driver", ...
std::string cause_text(const CauseCount& c, bool brief = false);

// The causes with the most events first (ties in the order first met).
std::vector<CauseCount> causes_by_events(const XrunAttribution& a);

// cause_text of an event outside the chain, with its cause's run_client mark from `a`.
std::string outside_cause_text(const XrunAttribution& a, const OutsideXrun& o);

// summary.txt's first block: the verdict, the figures with their definitions, the witnesses,
// the worst cycle and the floor. No "label . . . :" lines, so jack_test's block after it stays
// the one place a summary reader (parse_summary) finds jack_test's fields.
std::string answer_block(const RunAnswer& a);

}  // namespace xrunlab
