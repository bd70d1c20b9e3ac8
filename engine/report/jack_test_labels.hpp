// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// jack_test's summary fields (2004-2005; docs/jack_test-fields.md), each defined once: the run
// record's key, jack_test's label and jack_test's summary line up to its ':'. summary.txt, the
// SUMMARY and compare tables, import and --fail-if take their names from here.
//
// The leaders are verbatim: jack_test's format strings were written by hand, so a few do not
// follow one rule ("XRUN Count  . . .", "Average DSP Load. . ."). Every one is 32 characters
// long, a leading space and ':' in column 32, and contains its label.
//
// Non-realtime (constants only).
#include <array>
#include <string_view>

namespace xrunlab {

struct JackTestField {
  std::string_view key;     // the run record's JSON / CSV key: "xrun_count"; "" when it has none
  std::string_view label;   // as jack_test printed it: "XRUN Count"
  std::string_view leader;  // the line up to and including ':': " XRUN Count  . . . . . . . . . :"
};

namespace jack_test_field {

// jack_test 4.1's block, in its order.
inline constexpr JackTestField kSeconds{"seconds", "Total seconds ran",
                                        " Total seconds ran . . . . . . :"};
inline constexpr JackTestField kClients{"clients", "Number of clients",
                                        " Number of clients . . . . . . :"};
inline constexpr JackTestField kPorts{"ports", "Ports per client",
                                      " Ports per client  . . . . . . :"};
inline constexpr JackTestField kFrames{"frames", "Frames per buffer",
                                       " Frames per buffer . . . . . . :"};
inline constexpr JackTestField kRuns{"runs", "Number of runs", " Number of runs  . . . . . . . :"};
inline constexpr JackTestField kTimeoutCount{"timeout_count", "Timeout Count",
                                             " Timeout Count . . . . . . . . :"};
inline constexpr JackTestField kXrunCount{"xrun_count", "XRUN Count",
                                          " XRUN Count  . . . . . . . . . :"};
inline constexpr JackTestField kDelayOverSpare{"delay_over_spare", "Delay Count (>spare time)",
                                               " Delay Count (>spare time) . . :"};
inline constexpr JackTestField kDelayOver1000{"delay_over_1000", "Delay Count (>1000 usecs)",
                                              " Delay Count (>1000 usecs) . . :"};
inline constexpr JackTestField kDelayMax{"delay_max_us", "Delay Maximum",
                                         " Delay Maximum . . . . . . . . :"};
inline constexpr JackTestField kCycleMax{"cycle_max_us", "Cycle Maximum",
                                         " Cycle Maximum . . . . . . . . :"};
inline constexpr JackTestField kDspLoad{"dsp_load_pct", "Average DSP Load",
                                        " Average DSP Load. . . . . . . :"};
inline constexpr JackTestField kCpuSystem{"cpu_system_pct", "Average CPU System Load",
                                          " Average CPU System Load . . . :"};
inline constexpr JackTestField kCpuUser{"cpu_user_pct", "Average CPU User Load",
                                        " Average CPU User Load . . . . :"};
inline constexpr JackTestField kCpuNice{"cpu_nice_pct", "Average CPU Nice Load",
                                        " Average CPU Nice Load . . . . :"};
inline constexpr JackTestField kCpuIowait{"cpu_iowait_pct", "Average CPU I/O Wait Load",
                                          " Average CPU I/O Wait Load . . :"};
inline constexpr JackTestField kCpuIrq{"cpu_irq_pct", "Average CPU IRQ Load",
                                       " Average CPU IRQ Load  . . . . :"};
inline constexpr JackTestField kCpuSoftirq{"cpu_softirq_pct", "Average CPU Soft-IRQ Load",
                                           " Average CPU Soft-IRQ Load . . :"};
inline constexpr JackTestField kIntrRate{"intr_rate", "Average Interrupt Rate",
                                         " Average Interrupt Rate  . . . :"};
inline constexpr JackTestField kCtxtRate{"ctxt_rate", "Average Context-Switch Rate",
                                         " Average Context-Switch Rate . :"};

// jack_test4.1's audible chain (its own block); the run record does not keep it.
inline constexpr JackTestField kDeltaMax{"", "Delta Maximum", " Delta Maximum . . . . . . . . :"};

// The CONSOLIDATED RESULTS block's rates per hour (jack_test3_consolidated.awk).
inline constexpr JackTestField kXrunRate{"xrun_rate_per_hour", "XRUN Rate",
                                         " XRUN Rate . . . . . . . . . . :"};
inline constexpr JackTestField kDelayOverSpareRate{"delay_over_spare_rate_per_hour",
                                                   "Delay Rate (>spare time)",
                                                   " Delay Rate (>spare time)  . . :"};
inline constexpr JackTestField kDelayOver1000Rate{"delay_over_1000_rate_per_hour",
                                                  "Delay Rate (>1000 usecs)",
                                                  " Delay Rate (>1000 usecs)  . . :"};

// xrunlab's own field, written in jack_test's style after jack_test's.
inline constexpr JackTestField kDelayP99{"delay_p99_us", "Delay p99",
                                         " Delay p99 . . . . . . . . . . :"};

// Every field above, for the checks that keep them consistent.
inline constexpr std::array kAll = {&kSeconds,
                                    &kClients,
                                    &kPorts,
                                    &kFrames,
                                    &kRuns,
                                    &kTimeoutCount,
                                    &kXrunCount,
                                    &kDelayOverSpare,
                                    &kDelayOver1000,
                                    &kDelayMax,
                                    &kCycleMax,
                                    &kDspLoad,
                                    &kCpuSystem,
                                    &kCpuUser,
                                    &kCpuNice,
                                    &kCpuIowait,
                                    &kCpuIrq,
                                    &kCpuSoftirq,
                                    &kIntrRate,
                                    &kCtxtRate,
                                    &kDeltaMax,
                                    &kXrunRate,
                                    &kDelayOverSpareRate,
                                    &kDelayOver1000Rate,
                                    &kDelayP99};

}  // namespace jack_test_field

}  // namespace xrunlab
