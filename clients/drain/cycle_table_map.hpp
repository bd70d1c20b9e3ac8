// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The client's mapping of the engine's cycle table (--cycle-table NAME,
// engine/wire/cycle_table.hpp), read-write, for the process callback's column. Not realtime:
// maps at start-up, unmaps at exit; the callback only writes through column().
#include <cstddef>
#include <string>

#include "clients/drain/shm_file.hpp"
#include "clients/rt/cycle_table_column.hpp"

namespace xrunlab {

class CycleTableMap {
 public:
  // Maps the table `name` for the client at chain position `index` (1-based) of a server at
  // `rate` Hz and `frames` per period. Throws std::runtime_error naming the table when it cannot
  // be opened or mapped, is not a cycle table of this version, has no column `index`, or was
  // made for another rate or period.
  CycleTableMap(const std::string& name, int index, uint32_t rate, uint32_t frames);
  CycleTableMap(const CycleTableMap&) = delete;
  CycleTableMap& operator=(const CycleTableMap&) = delete;

  const CycleTableColumn& column() const { return column_; }
  // What this client mapped: its own column only (Header::column_bytes), not the table.
  size_t mapped_bytes() const { return mapping_.bytes(); }

 private:
  ShmMapping mapping_;
  CycleTableColumn column_;
};

}  // namespace xrunlab
