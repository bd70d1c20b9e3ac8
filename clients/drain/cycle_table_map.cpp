// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/cycle_table_map.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace xrunlab {

CycleTableMap::CycleTableMap(const std::string& name, int index, uint32_t rate, uint32_t frames) {
  const std::string quoted = "the cycle table '" + name + "'";
  auto fail = [&](const char* what, int err) {
    return std::runtime_error("cannot " + std::string(what) + " " + quoted + ": " +
                              std::strerror(err));
  };
  const int fd = ::shm_open(name.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) throw fail("open", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw fail("read the size of", err);
  }
  if (st.st_size < static_cast<off_t>(cycle_table::kCellsOffset)) {
    ::close(fd);
    throw std::runtime_error(quoted + " is too small for a cycle table");
  }
  // The header is read, not mapped: the client maps only its own column.
  cycle_table::Header h{};
  const ssize_t got = ::pread(fd, &h, sizeof h, 0);
  if (got != static_cast<ssize_t>(sizeof h)) {
    const int err = got < 0 ? errno : EIO;
    ::close(fd);
    throw fail("read the header of", err);
  }
  const auto size = static_cast<size_t>(st.st_size);
  std::string wrong;
  if (h.magic != cycle_table::kMagic || h.version != cycle_table::kVersion) {
    wrong = "is not a cycle table of this version";
  } else if (h.rows == 0 || (h.rows & (h.rows - 1)) != 0 ||
             h.column_bytes < uint64_t{h.rows} * sizeof(cycle_table::Cell) ||
             size < cycle_table::table_bytes(h.clients, h.column_bytes)) {
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
  if (!wrong.empty()) {
    ::close(fd);
    throw std::runtime_error(quoted + " " + wrong);
  }
  bytes_ = h.column_bytes;
  const auto offset = static_cast<off_t>(
      cycle_table::column_offset(static_cast<uint32_t>(index - 1), h.column_bytes));
  void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw fail("map", err);
  base_ = p;
  column_.first = static_cast<cycle_table::Cell*>(base_);
  column_.rows = h.rows;
  column_.keyed_by = h.keyed_by;
  column_.rate = rate;
}

CycleTableMap::~CycleTableMap() {
  if (base_ != nullptr) ::munmap(base_, bytes_);
}

}  // namespace xrunlab
