// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/dma_latency.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/base/errors.hpp"

namespace xrunlab {

std::optional<int32_t> read_dma_latency(const std::string& device) {
  const int fd = ::open(device.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  int32_t v = 0;
  const ssize_t n = ::read(fd, &v, sizeof v);
  ::close(fd);
  if (n != static_cast<ssize_t>(sizeof v)) return std::nullopt;
  return v;
}

DmaLatencyHold::DmaLatencyHold(const std::string& device, int32_t usecs)
    : device_(device), requested_(usecs) {
  fd_ = ::open(device.c_str(), O_RDWR | O_CLOEXEC);
  if (fd_ < 0) {
    const int e = errno;
    if (e == ENOENT) {
      throw Error(ExitCode::kUnsupported, "--dma-latency: " + device +
                                              " does not exist on this system (a kernel "
                                              "without CPU latency QoS); leave --dma-latency out");
    }
    throw Error(ExitCode::kPermission,
                "--dma-latency: cannot open " + device + " for writing (" + std::strerror(e) +
                    "): run as root, or give this user write access to it (a udev rule), or "
                    "leave --dma-latency out");
  }
  const ssize_t n = ::write(fd_, &usecs, sizeof usecs);
  if (n != static_cast<ssize_t>(sizeof usecs)) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw Error(ExitCode::kUnsupported, "--dma-latency: writing " + std::to_string(usecs) + " to " +
                                            device + " failed (" + std::strerror(e) +
                                            "); leave --dma-latency out");
  }
  int32_t v = 0;
  if (::pread(fd_, &v, sizeof v, 0) == static_cast<ssize_t>(sizeof v)) {
    read_back_ = v;
  } else {
    read_back_ = read_dma_latency(device);
  }
}

DmaLatencyHold::~DmaLatencyHold() {
  if (fd_ >= 0) ::close(fd_);  // the kernel drops the request: the machine's target returns
}

}  // namespace xrunlab
