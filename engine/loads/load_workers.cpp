// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_workers.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/loads/bench_job.hpp"
#include "engine/loads/split_mix.hpp"
#include "engine/system/process.hpp"

namespace xrunlab::load_tool {
namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kNetChunk = size_t{64} * 1024;

// Called in a forked worker only: records why it stops and exits.
[[noreturn]] void worker_fail(Slot& slot, const std::string& what, int err) {
  std::snprintf(slot.message, sizeof slot.message, "%s: %s", what.c_str(), std::strerror(err));
  ::_exit(1);
}

std::vector<char> make_block(size_t size, uint64_t seed) {
  std::vector<char> block(size);
  SplitMix r{seed};
  for (size_t i = 0; i + 8 <= size; i += 8) {
    const uint64_t v = r.next();
    std::memcpy(block.data() + i, &v, 8);
  }
  return block;
}

// Writes `mib` MiB of `block` to a new file at `path` and fsyncs it.
void create_file(Slot& slot, const std::string& path, long mib, const std::vector<char>& block,
                 std::atomic<uint64_t>* counter) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) worker_fail(slot, "cannot create " + path, errno);
  for (long i = 0; i < mib; ++i) {
    if (!write_all(fd, std::string_view(block.data(), block.size())))
      worker_fail(slot, "cannot write " + path, errno);
    if (counter != nullptr) counter->fetch_add(block.size(), std::memory_order_relaxed);
  }
  if (::fsync(fd) != 0) worker_fail(slot, "cannot fsync " + path, errno);
  // Written and synced: drop it from the page cache, so the next read comes from the disk.
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}

// The volatile store keeps cpu_worker's loop from being optimized away.
volatile uint64_t g_cpu_sink = 0;

// bench_worker's jobs start from this seed, read anew for each job so that the compiler cannot
// compute the job once for all; their results go to the sink, so no job is optimized away.
volatile uint64_t g_bench_seed = 0x9E3779B97F4A7C15ull;
volatile uint64_t g_bench_sink = 0;

// A clock's time in nanoseconds (the clocks read here cannot fail for this process).
uint64_t clock_ns(clockid_t clock) {
  timespec ts{};
  ::clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace

[[noreturn]] void cpu_worker(unsigned seed) {
  uint64_t x = seed | 1u;
  for (;;) {
    for (uint64_t i = 0; i < (uint64_t{1} << 20); ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      x = x * 0x2545F4914F6CDD1Dull + i;
    }
    g_cpu_sink = x;
  }
}

[[noreturn]] void bench_worker(Slot& slot) {
  for (;;) {
    const uint64_t wall0 = clock_ns(CLOCK_MONOTONIC);
    const uint64_t cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    g_bench_sink = bench_job(g_bench_seed);
    const uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    const uint64_t wall = clock_ns(CLOCK_MONOTONIC) - wall0;
    // This worker is the slot's only writer: the supervisor reads it once the worker is gone.
    const uint64_t min = slot.bench_wall_ns_min.load(std::memory_order_relaxed);
    if (min == 0 || wall < min) slot.bench_wall_ns_min.store(wall, std::memory_order_relaxed);
    slot.bench_wall_ns.fetch_add(wall, std::memory_order_relaxed);
    slot.bench_cpu_ns.fetch_add(cpu, std::memory_order_relaxed);
    slot.bench_jobs.fetch_add(1, std::memory_order_release);
  }
}

[[noreturn]] void io_write_worker(Slot& slot, const std::string& dir, long mib) {
  const std::string path = dir + "/io-write.dat";
  const auto block = make_block(kMiB, 1);
  for (;;) {
    create_file(slot, path, mib, block, &slot.bytes);
    if (::unlink(path.c_str()) != 0) worker_fail(slot, "cannot remove " + path, errno);
    slot.passes.fetch_add(1, std::memory_order_relaxed);
  }
}

[[noreturn]] void io_read_worker(Slot& slot, const std::string& dir, long mib) {
  const std::string path = dir + "/io-read.dat";
  auto buf = make_block(kMiB, 2);
  create_file(slot, path, mib, buf, nullptr);
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) worker_fail(slot, "cannot open " + path, errno);
    for (;;) {
      const ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) worker_fail(slot, "cannot read " + path, errno);
      if (n == 0) break;
      slot.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    }
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
    slot.passes.fetch_add(1, std::memory_order_relaxed);
  }
}

[[noreturn]] void io_copy_worker(Slot& slot, const std::string& dir, long mib) {
  const std::string src = dir + "/io-copy.src", dst = dir + "/io-copy.dst";
  auto buf = make_block(kMiB, 3);
  create_file(slot, src, mib, buf, nullptr);
  for (;;) {
    const int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) worker_fail(slot, "cannot open " + src, errno);
    const int out = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) worker_fail(slot, "cannot create " + dst, errno);
    for (;;) {
      const ssize_t n = ::read(in, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) worker_fail(slot, "cannot read " + src, errno);
      if (n == 0) break;
      if (!write_all(out, std::string_view(buf.data(), static_cast<size_t>(n)))) {
        worker_fail(slot, "cannot write " + dst, errno);
      }
      slot.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    }
    if (::fsync(out) != 0) worker_fail(slot, "cannot fsync " + dst, errno);
    ::close(out);
    ::posix_fadvise(in, 0, 0, POSIX_FADV_DONTNEED);
    ::close(in);
    if (::unlink(dst.c_str()) != 0) worker_fail(slot, "cannot remove " + dst, errno);
    slot.passes.fetch_add(1, std::memory_order_relaxed);
  }
}

[[noreturn]] void net_receiver(Slot& slot, int listen_fd) {
  std::vector<char> buf(kNetChunk);
  for (;;) {
    const int c = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      worker_fail(slot, "accept on 127.0.0.1", errno);
    }
    for (;;) {
      const ssize_t n = ::read(c, buf.data(), buf.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      slot.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    }
    ::close(c);
  }
}

[[noreturn]] void net_sender(Slot& slot, uint16_t port) {
  const auto buf = make_block(kNetChunk, 4);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int failures = 0;
  for (;;) {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) worker_fail(slot, "socket", errno);
    if (::connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
      const int err = errno;
      ::close(s);
      if (++failures >= 50) worker_fail(slot, fmt::format("connect to 127.0.0.1:{}", port), err);
      ::usleep(100'000);
      continue;
    }
    failures = 0;
    for (;;) {
      const ssize_t n = ::send(s, buf.data(), buf.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      slot.bytes.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
    }
    ::close(s);
  }
}

[[noreturn]] void counted_program_worker(Slot& slot, const CountedProgram& program) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) worker_fail(slot, "cannot make a pipe", errno);
  SpawnOptions o;
  o.program = program.path;
  o.argv = program.argv;
  o.env = program.env;
  o.stdin_fd = kDevNullFd;
  o.stdout_fd = fds[1];
  o.stderr_fd = kInheritFd;  // the supervisor's log
  o.death_signal = SIGTERM;  // this worker's death ends it
  pid_t pid = -1;
  try {
    pid = spawn_process(o);
  } catch (const Error& e) {
    std::snprintf(slot.message, sizeof slot.message, "%s", e.what());
    ::_exit(e.code() == ExitCode::kMissingProgram ? 127 : 1);
  }
  ::close(fds[1]);
  OutputCounter counter(program.output);
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t ms_before = slot.units_ms.load();
  std::vector<char> buf(size_t{64} * 1024);
  for (;;) {
    const ssize_t n = ::read(fds[0], buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the program ended (or closed its stdout)
    const OutputCount added = counter.feed(std::string_view(buf.data(), static_cast<size_t>(n)));
    if (added.units > 0) slot.units.fetch_add(added.units, std::memory_order_relaxed);
    if (program.output == OutputKind::kGlxgearsFrames) {
      if (added.seconds > 0) {
        slot.units_ms.fetch_add(static_cast<uint64_t>(std::llround(added.seconds * 1000.0)),
                                std::memory_order_relaxed);
      }
    } else {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - t0);
      slot.units_ms.store(ms_before + static_cast<uint64_t>(ms.count()), std::memory_order_relaxed);
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) worker_fail(slot, "cannot wait for " + program.argv.front(), errno);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ::_exit(0);
  std::snprintf(slot.message, sizeof slot.message, "'%s' %s", program.argv.front().c_str(),
                describe_wait_status(status).c_str());
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

}  // namespace xrunlab::load_tool
