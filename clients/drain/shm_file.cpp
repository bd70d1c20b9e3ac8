// SPDX-License-Identifier: GPL-2.0-or-later
#include "clients/drain/shm_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace xrunlab {

ShmMapping::ShmMapping(ShmMapping&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

ShmMapping& ShmMapping::operator=(ShmMapping&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(data_, bytes_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

ShmMapping::~ShmMapping() {
  if (data_ != nullptr) ::munmap(data_, bytes_);
}

ShmFile::ShmFile(const std::string& name, bool writable, std::string what)
    : what_(std::move(what)), writable_(writable) {
  fd_ = ::shm_open(name.c_str(), (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC, 0);
  if (fd_ < 0) throw os_error("open", errno);
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    throw os_error("read the size of", err);
  }
  size_ = static_cast<size_t>(st.st_size);
}

ShmFile::~ShmFile() {
  ::close(fd_);
}

std::runtime_error ShmFile::error(const std::string& text) const {
  return std::runtime_error(what_ + " " + text);
}

std::runtime_error ShmFile::os_error(const std::string& action, int err) const {
  return std::runtime_error("cannot " + action + " " + what_ + ": " + std::strerror(err));
}

void ShmFile::read_at(void* out, size_t n, off_t offset, const char* part) const {
  const ssize_t got = ::pread(fd_, out, n, offset);
  if (got != static_cast<ssize_t>(n)) {
    throw os_error(std::string("read ") + part + " of", got < 0 ? errno : EIO);
  }
}

ShmMapping ShmFile::map(size_t n, off_t offset) const {
  const int prot = writable_ ? PROT_READ | PROT_WRITE : PROT_READ;
  void* p = ::mmap(nullptr, n, prot, MAP_SHARED, fd_, offset);
  if (p == MAP_FAILED) throw os_error("map", errno);
  return ShmMapping(p, n);
}

}  // namespace xrunlab
