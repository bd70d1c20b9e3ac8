// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/cycle_table_map.hpp"

#include <unistd.h>

#include <string>

#include "clients/drain/shm_file.hpp"

namespace xrunlab {

CycleTableMap::CycleTableMap(const std::string& name, int index, uint32_t rate, uint32_t frames) {
  const ShmFile file(name, /*writable=*/true, "the cycle table '" + name + "'");
  if (file.size() < cycle_table::kCellsOffset) throw file.error("is too small for a cycle table");
  // The header is read, not mapped: the client maps only its own column.
  cycle_table::Header h{};
  file.read_at(&h, sizeof h, 0, "the header");
  std::string wrong;
  if (h.magic != cycle_table::kMagic || h.version != cycle_table::kVersion) {
    wrong = "is not a cycle table of this version";
  } else if (h.rows == 0 || (h.rows & (h.rows - 1)) != 0 ||
             h.column_bytes < uint64_t{h.rows} * sizeof(cycle_table::Cell) ||
             file.size() < cycle_table::table_bytes(h.clients, h.column_bytes)) {
    wrong = "is damaged (its size does not match its header)";
  } else if (h.column_bytes % static_cast<size_t>(::sysconf(_SC_PAGESIZE)) != 0) {
    wrong = "has columns of " + std::to_string(h.column_bytes) +
            " bytes, not whole pages of this machine";
  } else if (index < 1 || static_cast<uint32_t>(index) > h.clients) {
    wrong =
        "has " + std::to_string(h.clients) + " columns, none for client " + std::to_string(index);
  } else if (h.rate != rate || h.frames != frames) {
    wrong = "was made for " + std::to_string(h.frames) + " frames at " + std::to_string(h.rate) +
            " Hz, not " + std::to_string(frames) + " at " + std::to_string(rate);
  }
  if (!wrong.empty()) throw file.error(wrong);
  mapping_ = file.map(h.column_bytes, static_cast<off_t>(cycle_table::column_offset(
                                          static_cast<uint32_t>(index - 1), h.column_bytes)));
  column_.first = static_cast<cycle_table::Cell*>(mapping_.data());
  column_.rows = h.rows;
  column_.keyed_by = h.keyed_by;
  column_.rate = rate;
}

}  // namespace xrunlab
