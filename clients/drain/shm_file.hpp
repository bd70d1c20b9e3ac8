// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A POSIX shared-memory object the engine made, opened by a client to map (the vcard's record,
// the cycle table): the open, the size check, a read of a header and the mapping, each with an
// error that names the object. Not realtime: used at start-up; a mapping lives until the client
// exits.
#include <sys/types.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace xrunlab {

// A shared mapping, unmapped with the object. Move-only.
class ShmMapping {
 public:
  ShmMapping() = default;
  ShmMapping(void* data, size_t bytes) : data_(data), bytes_(bytes) {}
  ShmMapping(ShmMapping&& other) noexcept;
  ShmMapping& operator=(ShmMapping&& other) noexcept;
  ShmMapping(const ShmMapping&) = delete;
  ShmMapping& operator=(const ShmMapping&) = delete;
  ~ShmMapping();

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

class ShmFile {
 public:
  // Opens `name` (shm_open, read-only unless `writable`) and reads its size. `what` names it in
  // every error ("the card record '/xrunlab-vcard-...'"). Throws std::runtime_error "cannot open
  // <what>: <errno text>" (or "read the size of").
  ShmFile(const std::string& name, bool writable, std::string what);
  ~ShmFile();  // closes the descriptor; mappings made from it stay
  ShmFile(const ShmFile&) = delete;
  ShmFile& operator=(const ShmFile&) = delete;

  size_t size() const { return size_; }

  // "<what> <text>", for the caller's own checks of size and content.
  std::runtime_error error(const std::string& text) const;

  // Reads exactly `n` bytes at `offset` into `out`; throws "cannot read <part> of <what>".
  void read_at(void* out, size_t n, off_t offset, const char* part) const;

  // Maps `n` bytes at `offset` (a multiple of the page size), shared, with the object's access;
  // throws "cannot map <what>".
  ShmMapping map(size_t n, off_t offset = 0) const;

 private:
  std::runtime_error os_error(const std::string& action, int err) const;

  std::string what_;
  int fd_ = -1;
  bool writable_ = false;
  size_t size_ = 0;
};

}  // namespace xrunlab
