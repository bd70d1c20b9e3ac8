// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The data of plots/cycles.png (scripts/cycles.gp): the worst cycles of a run, hop by hop, as
// a waterfall against the deadline. Pure. Non-realtime.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/result/cycle_hops.hpp"

namespace xrunlab {

struct CyclePlotData {
  std::string text;  // "row x0_us x1_us kind \"label\"" lines (see scripts/cycles.gp)
  size_t rows = 0;
};

// The rows drawn: the `worst_rows` worst cycles by slack (CycleTableResult::worst, worst first),
// then up to `missed_rows` missed cycles not among them (in time order). Hop kinds: 1 interrupt
// -> jackd wake-up, 2 a client's wake-up, 3 its DSP, 4 a client that did not run (one marker per
// such client, at the row's last known time). `notes` (--explain: cycle id -> a few words, e.g.
// the largest blocker) are added to those rows' labels.
CyclePlotData cycle_plot_data(const CycleTableResult& t, size_t worst_rows = 12,
                              size_t missed_rows = 8,
                              const std::map<uint64_t, std::string>& notes = {});

}  // namespace xrunlab
