// SPDX-License-Identifier: GPL-2.0-or-later
// A client's mapping of the engine's cycle table (clients/drain/cycle_table_map.hpp), on a table
// this test lays out itself: the client maps its own column only, its writes land in its column
// of the whole table as the engine reads it, and a table it cannot use is refused naming it.
#include "clients/drain/cycle_table_map.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "engine/wire/cycle_table.hpp"

namespace xrunlab {
namespace {

constexpr uint32_t kRate = 48000, kFrames = 256;

// A cycle table of `clients` x `rows` in a POSIX shared-memory object, as the engine makes it
// (engine/run/cycle_table_reader.cpp), mapped whole; removed again at the end of the test.
class Table {
 public:
  Table(uint32_t clients, uint32_t rows, uint32_t version = cycle_table::kVersion)
      : name_("/xrunlab-cycle-table-map-test-" + std::to_string(::getpid())),
        column_bytes_(cycle_table::column_bytes(rows, ::sysconf(_SC_PAGESIZE))),
        bytes_(cycle_table::table_bytes(clients, column_bytes_)) {
    ::shm_unlink(name_.c_str());
    const int fd = ::shm_open(name_.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) throw std::runtime_error("shm_open " + name_);
    if (::ftruncate(fd, static_cast<off_t>(bytes_)) != 0) {
      ::close(fd);
      throw std::runtime_error("ftruncate " + name_);
    }
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) throw std::runtime_error("mmap " + name_);
    base_ = p;
    auto* h = static_cast<cycle_table::Header*>(base_);
    h->magic = cycle_table::kMagic;
    h->version = version;
    h->clients = clients;
    h->rows = rows;
    h->rate = kRate;
    h->frames = kFrames;
    h->keyed_by = cycle_table::kKeyFrameTime;
    h->column_bytes = static_cast<uint32_t>(column_bytes_);
  }
  ~Table() {
    ::munmap(base_, bytes_);
    ::shm_unlink(name_.c_str());
  }
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  const std::string& name() const { return name_; }
  cycle_table::Header& header() { return *static_cast<cycle_table::Header*>(base_); }
  // Cell (row, k) as the engine's reader finds it.
  const cycle_table::Cell& at(uint32_t row, uint32_t k) const {
    return cycle_table::column(base_, k, column_bytes_)[row];
  }

 private:
  std::string name_;
  size_t column_bytes_;
  size_t bytes_;
  void* base_ = nullptr;
};

TEST(CycleTableMap, AClientMapsItsOwnColumnOnlyAndItsWritesAreWhereTheEngineReads) {
  Table table(/*clients=*/253, /*rows=*/8192);
  CycleTableMap map(table.name(), /*index=*/7, kRate, kFrames);
  // One column of 8192 cells (320 KiB: whole pages), not the 253 of the table (81 MB).
  EXPECT_EQ(map.mapped_bytes(), 8192u * sizeof(cycle_table::Cell));
  EXPECT_EQ(map.column().rows, 8192u);
  EXPECT_EQ(map.column().keyed_by, cycle_table::kKeyFrameTime);

  cycle_table::write_cell(map.column().cell(8192 + 5), 8192 + 5, 100, 200, 90, 4242);
  cycle_table::CellValue v;
  ASSERT_TRUE(cycle_table::read_cell(table.at(5, 6), &v));
  EXPECT_EQ(v.id, 8192u + 5);
  EXPECT_EQ(v.entry_ns, 100);
  EXPECT_EQ(v.exit_ns, 200);
  EXPECT_EQ(v.wake_ns, 90);
  EXPECT_EQ(v.frame, 4242u);
  // Its neighbours' columns are untouched.
  EXPECT_FALSE(cycle_table::read_cell(table.at(5, 5), &v));
  EXPECT_FALSE(cycle_table::read_cell(table.at(5, 7), &v));
}

TEST(CycleTableMap, EveryColumnStartsOnAPageBoundary) {
  for (size_t page : {size_t{4096}, size_t{16384}, size_t{65536}}) {
    for (uint32_t rows : {8u, 1024u, 8192u, 65536u}) {
      const size_t bytes = cycle_table::column_bytes(rows, page);
      EXPECT_GE(bytes, rows * sizeof(cycle_table::Cell));
      EXPECT_LT(bytes, rows * sizeof(cycle_table::Cell) + page);
      for (uint32_t k : {0u, 1u, 252u}) {
        EXPECT_EQ(cycle_table::column_offset(k, bytes) % page, 0u)
            << rows << " rows, column " << k << ", pages of " << page;
      }
    }
  }
}

TEST(CycleTableMap, ColumnsOfPartPagesAreRefused) {
  Table table(3, 8);
  // Columns cut to less than a page: no client could map its own.
  table.header().column_bytes = 8 * sizeof(cycle_table::Cell);
  try {
    CycleTableMap map(table.name(), 2, kRate, kFrames);
    FAIL() << "accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "the cycle table '" + table.name() +
                                         "' has columns of 320 bytes, not whole pages of this "
                                         "machine");
  }
}

TEST(CycleTableMap, TheLastClientsColumnIsTheTablesEnd) {
  Table table(3, 8);
  CycleTableMap map(table.name(), 3, kRate, kFrames);
  cycle_table::write_cell(map.column().cell(7), 7, 1, 2, 0, 0);
  cycle_table::CellValue v;
  ASSERT_TRUE(cycle_table::read_cell(table.at(7, 2), &v));
  EXPECT_EQ(v.id, 7u);
}

TEST(CycleTableMap, ATableItCannotUseIsRefusedNamingIt) {
  auto message = [](const std::string& name, int index, uint32_t rate) {
    try {
      CycleTableMap map(name, index, rate, kFrames);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  {
    Table table(3, 8);
    EXPECT_EQ(message(table.name(), 4, kRate),
              "the cycle table '" + table.name() + "' has 3 columns, none for client 4");
    EXPECT_EQ(message(table.name(), 1, 44100), "the cycle table '" + table.name() +
                                                   "' was made for 256 frames at 48000 Hz, not " +
                                                   "256 at 44100");
  }
  {
    Table old(3, 8, /*version=*/2);
    EXPECT_EQ(message(old.name(), 1, kRate),
              "the cycle table '" + old.name() + "' is not a cycle table of this version");
  }
  EXPECT_NE(message("/xrunlab-no-such-table", 1, kRate).find("cannot open the cycle table"),
            std::string::npos);
}

}  // namespace
}  // namespace xrunlab
