// SPDX-License-Identifier: GPL-2.0-or-later
// The engine's monitor client against a private jackd (dummy backend, not realtime) started by
// the test: connecting (no server, a dying server, a name taken), activation, wiring and
// reading the graph back, and counting the xruns of a client that overruns on purpose, checked
// against jackd's own log.
#include "engine/jack/monitor.hpp"

#include <gtest/gtest.h>
#include <jack/jack.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/base/text.hpp"
#include "engine/jack/jack_registry.hpp"
#include "engine/jack/jack_server.hpp"
#include "engine/jack/jackd_log.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using namespace std::chrono_literals;
using testing_support::read_text_or_empty;
using testing_support::TempDir;

constexpr uint32_t kRate = 48000;
constexpr uint32_t kFrames = 1024;  // 21.3 ms: the idle machine makes no xruns of its own here
constexpr double kPeriodUs = 1e6 * kFrames / kRate;
constexpr std::chrono::milliseconds kServerTimeout = 20s;

// A private jackd on the dummy driver, not realtime (no RT permission needed), stopped and its
// JACK files removed at the end.
class PrivateJackd {
 public:
  PrivateJackd() : log_dir_("monitor") {
    ServerSpec spec;
    spec.name = private_server_name();
    spec.priority = 0;  // jackd -r
    spec.clients = 2;
    spec.ports = 2;
    spec.driver = {"-d", "dummy", "-r", std::to_string(kRate), "-p", std::to_string(kFrames), "-C",
                   "2",  "-P",    "2"};
    SpawnSpec s;
    s.argv = jackd_argv(spec);
    s.output_path = log_dir_.file("jackd.log");
    s.env = {{"JACK_NO_AUDIO_RESERVATION", "1"}};
    name_ = spec.name;
    jackd_ = Child::spawn(s);
  }
  ~PrivateJackd() { stop(); }
  void stop() {
    jackd_.stop(2000ms);
    reclaim_stale_xrunlab_servers("/dev/shm", name_);
  }
  const std::string& name() const { return name_; }
  std::string log() const { return read_text_or_empty(log_dir_.file("jackd.log")); }
  std::function<bool()> alive() {
    return [this] { return jackd_.running(); };
  }

 private:
  TempDir log_dir_;
  std::string name_;
  Child jackd_;
};

// ---- without a server ------------------------------------------------------------------------

TEST(MonitorConnect, TimesOutWhenNoServerRuns) {
  Monitor m;
  int asked = 0;
  const std::string why = m.connect(
      "xrunlab-no-such-server-" + std::to_string(::getpid()), 300ms,
      [&] {
        ++asked;
        return true;
      },
      "monitor-test");
  EXPECT_EQ(why, "jackd did not accept clients within 0.30 s");
  EXPECT_EQ(m.client(), nullptr);
  EXPECT_GE(asked, 1) << "whether the server still lives is asked at every attempt";
}

TEST(MonitorConnect, StopsAtOnceWhenTheServerHasExited) {
  Monitor m;
  int asked = 0;
  const std::string why = m.connect(
      "xrunlab-no-such-server-" + std::to_string(::getpid()), kServerTimeout,
      [&] {
        ++asked;
        return false;
      },
      "monitor-test");
  EXPECT_EQ(why, "jackd exited before accepting clients");
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(m.client(), nullptr);
}

// ---- against one private server ---------------------------------------------------------------

class MonitorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { jackd_ = std::make_unique<PrivateJackd>(); }
  static void TearDownTestSuite() { jackd_.reset(); }
  void SetUp() override {
    ASSERT_EQ(monitor_.connect(jackd_->name(), kServerTimeout, jackd_->alive(), "monitor-test"), "")
        << jackd_->log();
  }
  static std::unique_ptr<PrivateJackd> jackd_;
  Monitor monitor_;
};
std::unique_ptr<PrivateJackd> MonitorTest::jackd_;

TEST_F(MonitorTest, ATakenNameIsReportedAtOnce) {
  Monitor second;
  int asked = 0;
  const std::string why = second.connect(
      jackd_->name(), kServerTimeout,
      [&] {
        ++asked;
        return true;
      },
      "monitor-test");
  EXPECT_EQ(why, "the server already has a client named 'monitor-test'");
  EXPECT_EQ(asked, 0) << "not retried";
  EXPECT_EQ(second.client(), nullptr);
}

// JACK's segments mapped in this process (/dev/shm/jack-*), from /proc/self/smaps, in KiB.
struct JackMapping {
  long size_kib = 0, rss_kib = 0, locked_kib = 0;
};
std::vector<JackMapping> jack_mappings() {
  std::vector<JackMapping> out;
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool jack = false;
  while (std::getline(smaps, line)) {
    std::istringstream in(line);
    std::string first, value;
    in >> first;
    if (first.find('-') != std::string::npos && first.back() != ':') {  // a mapping's header
      std::string perms, offset, dev, inode, path;
      in >> perms >> offset >> dev >> inode >> path;
      jack = path.rfind("/dev/shm/jack-", 0) == 0;
      if (jack) out.emplace_back();
      continue;
    }
    if (!jack) continue;
    in >> value;
    if (first == "Size:") out.back().size_kib = std::stol(value);
    if (first == "Rss:") out.back().rss_kib = std::stol(value);
    if (first == "Locked:") out.back().locked_kib = std::stol(value);
  }
  return out;
}

// libjack mlocks every segment it attaches, the graph too (tens of MB, every page faulted in);
// the monitor runs nothing in the cycle, so it opens with locking out of reach and the
// process's RLIMIT_MEMLOCK is what it was.
TEST_F(MonitorTest, LocksNoneOfJacksGraphAndRestoresTheLockLimit) {
  monitor_.close();
  // A limit above the one used while opening, where this process may raise it (else as it is).
  rlimit before{};
  ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &before), 0);
  rlimit raised = before;
  raised.rlim_cur = raised.rlim_max = RLIM_INFINITY;
  if (setrlimit(RLIMIT_MEMLOCK, &raised) == 0) before = raised;
  ASSERT_EQ(monitor_.connect(jackd_->name(), kServerTimeout, jackd_->alive(), "monitor-test"), "");
  ASSERT_EQ(monitor_.activate(kPeriodUs), "");
  EXPECT_TRUE(monitor_.port_exists("system:capture_1"));
  rlimit after{};
  ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &after), 0);
  EXPECT_EQ(after.rlim_cur, before.rlim_cur);
  EXPECT_EQ(after.rlim_max, before.rlim_max);
  const std::vector<JackMapping> maps = jack_mappings();
  const auto graph = std::max_element(maps.begin(), maps.end(), [](const auto& a, const auto& b) {
    return a.size_kib < b.size_kib;
  });
  ASSERT_NE(graph, maps.end()) << "no /dev/shm/jack-* mapping";
  EXPECT_GT(graph->size_kib, 30 * 1024) << "the graph segment (38 MB and more)";
  EXPECT_EQ(graph->locked_kib, 0);
  EXPECT_LT(graph->rss_kib, graph->size_kib / 4) << "only the pages read are mapped";
}

TEST_F(MonitorTest, ActivatesAndReadsTheServersSettings) {
  ASSERT_EQ(monitor_.activate(kPeriodUs), "");
  EXPECT_EQ(monitor_.rate(), kRate);
  EXPECT_EQ(monitor_.frames(), kFrames);
  EXPECT_FALSE(monitor_.server_gone());
  const std::optional<ServerSettings> s = monitor_.server_settings();
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rate_hz, kRate);
  EXPECT_EQ(s->frames, kFrames);
  EXPECT_FALSE(s->realtime);  // jackd -r
  EXPECT_EQ(s->physical_ports,
            (std::vector<std::string>{"system:capture_1", "system:capture_2", "system:playback_1",
                                      "system:playback_2"}));
  // JACK's clock runs: two readings a sleep apart differ.
  const uint64_t t0 = monitor_.now_us();
  std::this_thread::sleep_for(5ms);
  EXPECT_GT(monitor_.now_us(), t0);
}

TEST_F(MonitorTest, ConnectsPortsAndReadsTheConnectionsBack) {
  ASSERT_EQ(monitor_.activate(kPeriodUs), "");
  EXPECT_TRUE(monitor_.port_exists("system:capture_1"));
  EXPECT_TRUE(monitor_.port_exists("system:playback_2"));
  EXPECT_FALSE(monitor_.port_exists("system:capture_3"));
  EXPECT_FALSE(monitor_.port_exists("nobody:out"));

  EXPECT_EQ(monitor_.connections("system:playback_1"), std::vector<std::string>{});
  ASSERT_EQ(monitor_.connect_ports("system:capture_1", "system:playback_1"), "");
  ASSERT_EQ(monitor_.connect_ports("system:capture_2", "system:playback_1"), "");
  EXPECT_EQ(monitor_.connect_ports("system:capture_1", "system:playback_1"), "")
      << "an existing connection is no error";
  auto conns = monitor_.connections("system:playback_1");
  std::sort(conns.begin(), conns.end());
  EXPECT_EQ(conns, (std::vector<std::string>{"system:capture_1", "system:capture_2"}));
  EXPECT_EQ(monitor_.connections("system:capture_1"),
            std::vector<std::string>{"system:playback_1"});
  EXPECT_EQ(monitor_.connections("nobody:out"), std::vector<std::string>{});

  const std::string bad = monitor_.connect_ports("system:capture_1", "nobody:in");
  EXPECT_TRUE(starts_with(bad,
                          "cannot connect system:capture_1 -> nobody:in (jack_connect "
                          "returned "))
      << bad;
  jack_disconnect(monitor_.client(), "system:capture_1", "system:playback_1");
  jack_disconnect(monitor_.client(), "system:capture_2", "system:playback_1");
}

// A JACK client of the test whose process callback busy-waits 1.5 periods when asked to: the
// server finds it not finished at the next cycle, which is one xrun (JACK2 "client = overrunner
// was not finished"), notified to every client.
class Overrunner {
 public:
  explicit Overrunner(const std::string& server) {
    client_ = jack_client_open("overrunner",
                               static_cast<jack_options_t>(JackNoStartServer | JackServerName),
                               nullptr, server.c_str());
    if (client_ == nullptr) return;
    jack_set_process_callback(client_, &Overrunner::process, this);
    active_ = jack_activate(client_) == 0;
  }
  ~Overrunner() {
    if (client_ != nullptr) {
      jack_deactivate(client_);
      jack_client_close(client_);
    }
  }
  bool ok() const { return active_; }
  // Asks for one overrun and waits until the callback has done it.
  void overrun_once() {
    const uint64_t before = done_.load();
    requested_.fetch_add(1);
    const auto deadline = std::chrono::steady_clock::now() + kServerTimeout;
    while (done_.load() == before && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(2ms);
    }
  }
  uint64_t done() const { return done_.load(); }

 private:
  // The test's process callback: reads the clock and busy-waits, nothing else.
  static int process(jack_nframes_t, void* arg) {
    auto* self = static_cast<Overrunner*>(arg);
    if (self->requested_.load(std::memory_order_acquire) == self->done_.load()) return 0;
    const uint64_t until = jack_get_time() + static_cast<uint64_t>(kPeriodUs * 1.5);
    while (jack_get_time() < until) {
    }
    self->done_.fetch_add(1, std::memory_order_release);
    return 0;
  }
  static_assert(std::atomic<uint64_t>::is_always_lock_free, "the callback's counters");

  jack_client_t* client_ = nullptr;
  bool active_ = false;
  std::atomic<uint64_t> requested_{0}, done_{0};
};

// The client-late xrun events in jackd's log, grouped as the engine groups them.
uint64_t log_client_events(const std::string& log) {
  JackdXrunCounter counter(static_cast<int64_t>(kPeriodUs));
  for (std::string_view line : lines(log)) counter.add(line, 0);
  return counter.client_events();
}

TEST_F(MonitorTest, CountsTheXrunsOfAClientThatOverrunsAsJackdLogsThem) {
  ASSERT_EQ(monitor_.activate(kPeriodUs), "");
  Overrunner overrunner(jackd_->name());
  ASSERT_TRUE(overrunner.ok()) << jackd_->log();
  // Nothing before the window counts.
  overrunner.overrun_once();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(monitor_.xrun_snapshot().monitor_events, 0u);

  monitor_.set_window_start(monitor_.now_us());
  const uint64_t log_at_start = log_client_events(jackd_->log());
  // Each overrun is an xrun when jackd's next cycle comes before the callback ends, which a
  // non-realtime jackd on a loaded machine may miss now and then: several overruns, and the
  // count compared with what jackd itself logged.
  constexpr uint64_t kOverruns = 8;
  for (uint64_t i = 0; i < kOverruns; ++i) {
    overrunner.overrun_once();
    std::this_thread::sleep_for(150ms);  // about seven calm cycles between two overruns
  }
  ASSERT_EQ(overrunner.done(), kOverruns + 1);
  // Notifications and log lines arrive asynchronously: wait until both have settled.
  XrunCounts counts;
  uint64_t in_log = 0;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  for (;;) {
    counts = monitor_.xrun_snapshot();
    in_log = log_client_events(jackd_->log()) - log_at_start;
    const bool settled = counts.monitor_events >= 1 && in_log == counts.monitor_events;
    if (settled || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(50ms);
  }
  std::printf(
      "[ info ] %d overruns: %llu xrun events (%llu callbacks) at the monitor, %llu in "
      "jackd's log\n",
      static_cast<int>(kOverruns), static_cast<unsigned long long>(counts.monitor_events),
      static_cast<unsigned long long>(counts.monitor_callbacks),
      static_cast<unsigned long long>(in_log));
  EXPECT_GE(counts.monitor_events, 1u) << jackd_->log();
  EXPECT_EQ(counts.monitor_events, in_log) << "every xrun jackd logged reached the monitor once\n"
                                           << jackd_->log();
  EXPECT_GE(counts.monitor_callbacks, counts.monitor_events);
  EXPECT_EQ(monitor_.events_total(), counts.monitor_events);
  ASSERT_EQ(counts.events.size(), counts.monitor_events);
  for (size_t i = 0; i < counts.events.size(); ++i) {
    EXPECT_GE(counts.events[i].t_s, 0.0);
    if (i > 0) {
      EXPECT_GE(counts.events[i].t_s, counts.events[i - 1].t_s);
    }
  }
}

// ---- the server going away -------------------------------------------------------------------

TEST(MonitorShutdown, AServerThatStopsIsNoticed) {
  PrivateJackd jackd;
  Monitor m;
  ASSERT_EQ(m.connect(jackd.name(), kServerTimeout, jackd.alive(), jackd.name() + "-monitor"), "")
      << jackd.log();
  ASSERT_EQ(m.activate(kPeriodUs), "");
  jackd.stop();
  const auto deadline = std::chrono::steady_clock::now() + kServerTimeout;
  while (!m.server_gone() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(m.server_gone());
  m.close();
  EXPECT_EQ(m.client(), nullptr);
  m.close();  // twice is safe
}

}  // namespace
}  // namespace xrunlab
