// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/loads/load_workers.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include "engine/base/errno_text.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using load_tool::Slot;
using testing_support::TempDir;
using namespace std::chrono_literals;

using IoWorker = void (*)(Slot& slot, const std::string& dir, long mib);

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr auto kPatience = 60s;  // for things that happen, however loaded the machine is

// One worker body in a forked child, with its slot in shared memory as the supervisor has it.
// The child is killed (SIGKILL) and reaped at the end of the test at the latest.
class ForkedWorker {
 public:
  template <typename Body>
  explicit ForkedWorker(Body body) {
    void* mem =
        ::mmap(nullptr, sizeof(Slot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw std::runtime_error("mmap: " + errno_text(errno));
    slot_ = new (mem) Slot();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork: " + errno_text(errno));
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      body(*slot_);
      ::_exit(0);
    }
  }
  ForkedWorker(const ForkedWorker&) = delete;
  ForkedWorker& operator=(const ForkedWorker&) = delete;
  ~ForkedWorker() {
    if (!status_) ::kill(pid_, SIGKILL);
    wait();
    ::munmap(slot_, sizeof(Slot));
  }

  const Slot& slot() const { return *slot_; }
  // The wait status once the child has ended (it is not signalled).
  int wait() {
    if (!status_) {
      int status = 0;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      status_ = status;
    }
    return *status_;
  }
  // Kills the child and returns its wait status.
  int kill() {
    if (!status_) ::kill(pid_, SIGKILL);
    return wait();
  }
  // True once the worker has counted `passes` whole passes (false if it ended before).
  bool await_passes(uint64_t passes) { return await_count(&Slot::passes, passes); }
  // True once the slot's `counter` has reached `n` (false if the worker ended before).
  bool await_count(std::atomic<uint64_t> Slot::*counter, uint64_t n) {
    const auto give_up = std::chrono::steady_clock::now() + kPatience;
    while ((slot_->*counter).load() < n) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        status_ = status;
        return false;
      }
      if (std::chrono::steady_clock::now() > give_up) return false;
      std::this_thread::sleep_for(5ms);
    }
    return true;
  }

 private:
  Slot* slot_ = nullptr;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

off_t size_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

// After the worker is stopped its counters hold still: whole passes of `mib` MiB each, and at
// most one pass begun after them.
void expect_whole_passes(const Slot& slot, long mib) {
  const uint64_t passes = slot.passes.load(), bytes = slot.bytes.load();
  EXPECT_GE(passes, 2u);
  EXPECT_GE(bytes, passes * mib * kMiB) << passes << " passes";
  EXPECT_LE(bytes, (passes + 1) * mib * kMiB) << passes << " passes";
  EXPECT_STREQ(slot.message, "");
}

// The bench worker runs the same job until it is stopped, and adds each job's times once it
// has finished: the shortest job is no longer than the mean, and a job's CPU time fits in its
// wall time (both measured around it, the CPU clock inside the wall clock's reads).
TEST(LoadWorkers, BenchWorkerTimesEveryJob) {
  ForkedWorker w([](Slot& slot) { load_tool::bench_worker(slot); });
  ASSERT_TRUE(w.await_count(&Slot::bench_jobs, 3)) << w.slot().message;
  EXPECT_TRUE(WIFSIGNALED(w.kill())) << "it runs until it is stopped";
  const Slot& s = w.slot();
  const uint64_t jobs = s.bench_jobs.load(), wall = s.bench_wall_ns.load();
  const uint64_t min = s.bench_wall_ns_min.load(), cpu = s.bench_cpu_ns.load();
  EXPECT_GE(jobs, 3u);
  EXPECT_GT(min, 0u);
  EXPECT_GE(wall, jobs * min);
  EXPECT_GT(cpu, 0u);
  EXPECT_LE(cpu, wall);
  EXPECT_STREQ(s.message, "");
}

// The io workers run until they are stopped and count whole passes over their file; io-read and
// io-copy keep the file they made at the start.
TEST(LoadWorkers, IoWorkersCountWholePasses) {
  struct Case {
    const char* name;
    IoWorker body;
    long mib;
    const char* kept;  // the file made once, or nullptr
  };
  const Case cases[] = {
      {"io-write", load_tool::io_write_worker, 1, nullptr},
      {"io-read", load_tool::io_read_worker, 2, "io-read.dat"},
      {"io-copy", load_tool::io_copy_worker, 1, "io-copy.src"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir tmp;
    const std::string dir = tmp.str();
    ForkedWorker w([&](Slot& slot) { c.body(slot, dir, c.mib); });
    ASSERT_TRUE(w.await_passes(2)) << w.slot().message;
    const int status = w.kill();
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "it runs until stopped";
    expect_whole_passes(w.slot(), c.mib);
    if (c.kept != nullptr) {
      EXPECT_EQ(size_of(tmp.file(c.kept)), static_cast<off_t>(c.mib * kMiB));
    }
  }
}

// A worker that cannot go on says why in its slot and exits with status 1.
TEST(LoadWorkers, AFailureIsReportedInTheSlot) {
  TempDir tmp;
  const std::string missing = tmp.file("missing");
  const std::string no_such = errno_text(ENOENT);
  struct Case {
    IoWorker body;
    std::string message;
  };
  const Case cases[] = {
      {load_tool::io_write_worker, "cannot create " + missing + "/io-write.dat: " + no_such},
      {load_tool::io_read_worker, "cannot create " + missing + "/io-read.dat: " + no_such},
      {load_tool::io_copy_worker, "cannot create " + missing + "/io-copy.src: " + no_such},
  };
  for (const auto& c : cases) {
    ForkedWorker w([&](Slot& slot) { c.body(slot, missing, 1); });
    const int status = w.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << c.message;
    EXPECT_EQ(std::string(w.slot().message), c.message);
    EXPECT_EQ(w.slot().passes.load(), 0u);
  }
}

}  // namespace
}  // namespace xrunlab
