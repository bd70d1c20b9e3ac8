// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The process callback's view of its column of the engine's cycle table
// (engine/wire/cycle_table.hpp): where to write its entry and exit for each cycle. Plain data,
// set up before jack_activate (clients/drain/cycle_table_map.hpp maps the table) and only read
// by the callback afterwards.
#include <cstdint>

#include "engine/wire/cycle_table.hpp"

namespace xrunlab {

struct CycleTableColumn {
  cycle_table::Cell* first = nullptr;  // this client's cell of row 0; nullptr: no table
  uint32_t rows = 0;                   // a power of two
  uint32_t keyed_by = 0;               // cycle_table::kKeyBoundary or kKeyFrameTime
  uint32_t rate = 0;                   // JACK's sample rate (frames -> ns for jackd's wake-up)

  // Realtime: wait-free, pure.
  cycle_table::Cell& cell(uint64_t id) const noexcept {
    return first[static_cast<size_t>(id & (rows - 1))];
  }
};

}  // namespace xrunlab
