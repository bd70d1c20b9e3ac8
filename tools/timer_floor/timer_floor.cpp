// SPDX-License-Identifier: GPL-2.0-or-later
// xrunlab-timer-floor: the floor of any sound card driven through a file descriptor, measured.
// One thread at SCHED_FIFO (or SCHED_OTHER with --priority 0) waits in poll() on a timerfd armed
// one-shot at absolute deadlines (TFD_TIMER_ABSTIME) on the card's period grid: boundary m at
// exactly m * frames / rate s of CLOCK_MONOTONIC, rounded up to whole ns (the same grid and the
// same rounding as the virtual card, engine/wire/vcard_shared.hpp). For every boundary it waits
// for it records the wake-up lateness (CLOCK_MONOTONIC after poll returned - the boundary), in
// whole microseconds rounded down as the card's record is read; it writes their histogram and
// percentiles as JSON when the duration is over or on SIGINT/SIGTERM.
//
// This is the virtual card's own wake-up path with nothing else: the card re-arms its timerfd
// for the next boundary before every poll and jackd polls it, so the difference between jackd's
// wake-up on vcard and this loop, beside it at the same priority and interval, is what jackd,
// alsa-lib and the card add (scripts/vcard-floor.sh prints both, and cyclictest).
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/errno_text.hpp"
#include "engine/base/errors.hpp"
#include "engine/result/histogram.hpp"
#include "engine/result/result.hpp"
#include "engine/result/run_json.hpp"
#include "engine/wire/vcard_shared.hpp"

namespace {

using xrunlab::ExitCode;
namespace vc = xrunlab::vcard;

constexpr uint32_t kHistogramBoundUs = 100000;  // as the cyclictest baseline's

struct Options {
  uint32_t rate = 48000;
  uint32_t period = 256;
  int priority = 70;
  double duration_s = 10;
  uint32_t offset_us = 0;  // an experiment: the deadlines this much after the boundaries
  std::string output = "-";
  bool mlock = true;
};

volatile sig_atomic_t g_stop = 0;

void on_signal(int) {
  g_stop = 1;
}

// Realtime (the measuring loop): one vDSO clock read.
int64_t mono_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Realtime (the measuring loop): one non-blocking system call.
int arm(int fd, uint64_t deadline_ns) noexcept {
  itimerspec its{};
  its.it_value.tv_sec = static_cast<time_t>(deadline_ns / 1000000000u);
  its.it_value.tv_nsec = static_cast<long>(deadline_ns % 1000000000u);
  return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, nullptr);
}

// (wake - ideal) in us rounded down (towards minus infinity), as the card's record is read.
int64_t floor_us(int64_t ns) noexcept {
  return ns >= 0 ? ns / 1000 : -((-ns + 999) / 1000);
}

struct Measured {
  uint64_t first_boundary = 0, last_boundary = 0;  // the boundaries of the window
  uint64_t wakeups = 0;
  uint64_t missed = 0;  // boundaries passed while the loop was late (not waited for)
  bool interrupted = false;
};

// The measuring loop; lateness goes into `h` (its 1 us bins allocated by its constructor).
// Realtime: per boundary one clock read, timerfd_settime and poll; Histogram::add allocates only
// for a value above its 100 ms bound (the list of kept overflow values), i.e. only after the
// machine already stalled the loop for 100 ms.
std::string measure(const Options& o, int fd, xrunlab::Histogram* h, Measured* out) {
  const int64_t end = mono_ns() + static_cast<int64_t>(std::llround(o.duration_s * 1e9));
  uint64_t m = vc::boundary_index(static_cast<uint64_t>(mono_ns()), o.rate, o.period) + 1;
  const uint64_t offset_ns = uint64_t{o.offset_us} * 1000u;
  const uint64_t last =
      vc::boundary_index(static_cast<uint64_t>(end) - offset_ns, o.rate, o.period);
  out->first_boundary = m;
  out->last_boundary = last;
  pollfd pfd{fd, POLLIN, 0};
  while (!g_stop) {
    const uint64_t deadline = vc::boundary_ns(m, o.rate, o.period) + offset_ns;
    if (static_cast<int64_t>(deadline) > end) break;
    if (arm(fd, deadline) != 0) return "timerfd_settime: " + xrunlab::errno_text(errno);
    const int r = poll(&pfd, 1, -1);
    const int64_t now = mono_ns();
    if (r < 0) {
      if (errno == EINTR) continue;  // a signal: g_stop is checked, the boundary waited again
      return "poll: " + xrunlab::errno_text(errno);
    }
    h->add(floor_us(now - static_cast<int64_t>(deadline)));
    ++out->wakeups;
    // The next boundary still ahead; the ones already passed (within the window) are counted,
    // not waited for. Without an interruption, wakeups + missed covers the window's boundaries
    // first..last exactly once.
    uint64_t cur = vc::boundary_index(static_cast<uint64_t>(now) - offset_ns, o.rate, o.period);
    if (cur < m) cur = m;  // never: a timerfd does not fire before its deadline
    if (cur > last) cur = last;
    out->missed += cur - m;
    m = cur + 1;
  }
  out->interrupted = g_stop != 0;
  return "";
}

nlohmann::ordered_json result_json(const Options& o, const xrunlab::Histogram& h,
                                   const Measured& r) {
  nlohmann::ordered_json j;
  j["tool"] = "xrunlab-timer-floor";
  j["what"] =
      "one thread waits in poll() on a timerfd armed one-shot at absolute deadlines "
      "(TFD_TIMER_ABSTIME) on the period grid, re-armed before every poll; lateness = "
      "CLOCK_MONOTONIC after poll returned - the boundary, in usecs rounded down";
  j["clock"] = "CLOCK_MONOTONIC";
  j["rate"] = o.rate;
  j["period_frames"] = o.period;
  j["interval_us"] = static_cast<double>(o.period) * 1e6 / static_cast<double>(o.rate);
  j["policy"] = o.priority > 0 ? "SCHED_FIFO" : "SCHED_OTHER";
  j["priority"] = o.priority;
  j["offset_us"] = o.offset_us;
  j["duration_s"] = o.duration_s;
  j["mlockall"] = o.mlock;
  j["interrupted"] = r.interrupted;
  j["first_boundary"] = r.first_boundary;
  j["last_boundary"] = r.last_boundary;
  j["wakeups"] = r.wakeups;
  j["missed_boundaries"] = r.missed;
  j["lateness_us"] = xrunlab::to_json(xrunlab::summarize(h));
  nlohmann::ordered_json bins = nlohmann::ordered_json::array();
  for (const auto& [v, n] : h.nonzero()) bins.push_back({v, n});
  j["bins"] = std::move(bins);  // [value_us, count], exact (1 usec bins, kept overflow)
  return j;
}

std::optional<int> parse(int argc, char** argv, Options* o) {
  CLI::App app{
      "xrunlab-timer-floor: a bare realtime loop waiting on a timerfd with absolute deadlines on "
      "the virtual card's period grid (boundary m at m * PERIOD / RATE s of CLOCK_MONOTONIC); "
      "writes the wake-up lateness (histogram and percentiles, usecs) as JSON."};
  app.add_option("--rate", o->rate, "Sample rate of the grid, Hz.")
      ->check(CLI::Range(1000, 1000000))
      ->capture_default_str();
  app.add_option("--period", o->period, "Frames per period of the grid.")
      ->check(CLI::Range(vc::kMarkerFrames, 1u << 20))
      ->capture_default_str();
  app.add_option("--priority", o->priority,
                 "SCHED_FIFO priority (1-99); 0 = SCHED_OTHER. jackd's default is 70.")
      ->check(CLI::Range(0, 99))
      ->capture_default_str();
  app.add_option("--duration", o->duration_s, "Seconds to measure (SIGINT/SIGTERM end it early).")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  app.add_option("--offset-us", o->offset_us,
                 "Deadlines this many usecs after the boundaries (an experiment: beside jackd, "
                 "wake-ups that do not compete with its own); lateness is from the deadline.")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_option("--output", o->output, "Write the JSON to FILE ('-': standard output).")
      ->type_name("FILE")
      ->capture_default_str();
  app.add_flag("!--no-mlock", o->mlock, "Do not lock the process's memory (mlockall).");
  app.footer(
      "Exit status: 0 measured, 2 bad usage, 6 the output cannot be written, 7 the realtime "
      "priority is not permitted (rtprio limit), 1 the timer failed.");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "xrunlab-timer-floor: error: %s (see xrunlab-timer-floor --help)\n",
                 e.what());
    return static_cast<int>(ExitCode::kUsage);
  }
  return std::nullopt;
}

int fail(ExitCode code, const std::string& what) {
  std::fprintf(stderr, "xrunlab-timer-floor: error: %s\n", what.c_str());
  return static_cast<int>(code);
}

}  // namespace

// A measuring program run by hand or by a script: an exception nothing expects ends it through
// std::terminate, which prints it.
int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  Options o;
  if (const std::optional<int> rc = parse(argc, argv, &o)) return *rc;

  // The output is opened first: a bad path fails before anything is measured.
  std::ofstream file;
  if (o.output != "-") {
    file.open(o.output, std::ios::trunc);
    if (!file) {
      return fail(ExitCode::kOutput, "cannot write --output " + o.output + ": " +
                                         xrunlab::errno_text(errno) + " (give a writable file)");
    }
  }
  if (o.priority > 0) {
    sched_param sp{};
    sp.sched_priority = o.priority;
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) {
      return fail(ExitCode::kPermission,
                  "cannot run at SCHED_FIFO " + std::to_string(o.priority) + ": " +
                      xrunlab::errno_text(errno) +
                      " (run as root, raise the rtprio limit, or pass --priority 0)");
    }
  }
  if (o.mlock && mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
    std::fprintf(stderr, "xrunlab-timer-floor: note: mlockall failed (%s); pages may fault\n",
                 xrunlab::errno_text(errno).c_str());
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;  // no SA_RESTART: poll returns EINTR and the loop ends
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);

  const int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (fd < 0) return fail(ExitCode::kRunFailed, "timerfd_create: " + xrunlab::errno_text(errno));
  xrunlab::Histogram h(kHistogramBoundUs);
  Measured r;
  const std::string err = measure(o, fd, &h, &r);
  close(fd);
  if (!err.empty()) return fail(ExitCode::kRunFailed, err);

  const std::string text = result_json(o, h, r).dump(1) + "\n";
  if (o.output == "-") {
    std::fputs(text.c_str(), stdout);
  } else {
    file << text;
    file.close();
    if (!file) return fail(ExitCode::kOutput, "cannot write --output " + o.output);
  }
  return 0;
}
