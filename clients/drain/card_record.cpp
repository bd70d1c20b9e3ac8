// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/card_record.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace xrunlab {

CardRecord::CardRecord(const std::string& name) {
  const std::string quoted = "the card record '" + name + "'";
  auto fail = [&](const char* what, int err) {
    return std::runtime_error("cannot " + std::string(what) + " " + quoted + ": " +
                              std::strerror(err));
  };
  const int fd = ::shm_open(name.c_str(), O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) throw fail("open", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw fail("read the size of", err);
  }
  if (st.st_size < static_cast<off_t>(sizeof(vcard::Shm))) {
    ::close(fd);
    // Mapping it whole would fault on the first read past its end.
    throw std::runtime_error(quoted + " is too small for a vcard record (" +
                             std::to_string(st.st_size) + " of " +
                             std::to_string(sizeof(vcard::Shm)) + " bytes)");
  }
  void* p = ::mmap(nullptr, sizeof(vcard::Shm), PROT_READ, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);
  if (p == MAP_FAILED) throw fail("map", err);
  shm_ = static_cast<const vcard::Shm*>(p);
  if (shm_->magic != vcard::kShmMagic || shm_->version != vcard::kShmVersion) {
    ::munmap(p, sizeof(vcard::Shm));
    shm_ = nullptr;
    throw std::runtime_error(quoted + " is not a vcard record of this version");
  }
}

CardRecord::~CardRecord() {
  if (shm_ != nullptr) ::munmap(const_cast<vcard::Shm*>(shm_), sizeof(vcard::Shm));
}

bool CardRecord::wake(uint64_t m, int64_t* wake_ns) const {
  const vcard::StreamRecord& s = shm_->stream[1];
  const vcard::WakeSlot& slot = s.wake[m % vcard::kWakeSlots];
  uint64_t got = 0;
  int64_t ideal = 0;
  return vcard::read_wake(slot, &got, &ideal, wake_ns) && got == m;
}

}  // namespace xrunlab
