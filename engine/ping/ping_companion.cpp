// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/ping/ping_companion.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/ping/ping_figures.hpp"
#include "engine/system/atomic_file.hpp"

namespace xrunlab {

using std::chrono::milliseconds;

namespace {

constexpr const char* kSetupLog = "ping-setup.log";
constexpr const char* kPingCsv = "ping.csv";
constexpr int kAnswerWaitMs = 1000;
constexpr const char* kRuleset = "ping-nft.conf";

// The last non-empty line of `text`, for an error message.
std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1,
                     end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

}  // namespace

void PingCompanion::configure(PingSettings settings) {
  settings_ = std::move(settings);
  record_.rate_hz = settings_.rate_hz;
  record_.drop_every = settings_.drop_every;
}

void PingCompanion::run_command(const std::vector<std::string>& argv) const {
  const std::string log = run_dir_ + "/" + kSetupLog;
  SpawnSpec spec;
  spec.argv = argv;
  spec.output_path = log;
  Child child = Child::spawn(spec);
  const bool ended = child.wait_for(milliseconds(10000));
  if (!ended) child.stop(milliseconds(500));
  const std::optional<int> status = child.wait_status();
  if (ended && status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0) return;
  std::string said;
  if (const auto text = read_file(log)) said = last_line(*text);
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + a;
  throw Error(ExitCode::kRunFailed,
              fmt::format("--ping: '{}' {}{} ({})", command,
                          ended ? child.describe_exit() : "took more than 10 s",
                          said.empty() ? "" : ": " + said, log));
}

void PingCompanion::make_network(SysJournal& journal, const std::string& run_dir,
                                 pid_t engine_pid) {
  if (!configured()) return;
  run_dir_ = run_dir;
  const PingNetwork n = plan_ping_network(engine_pid, ipv4_addresses_in_use());
  record_.netns = n.netns;
  record_.host_interface = n.host_interface;
  record_.source = n.host_address;
  record_.target = n.netns_address;
  journal.make_netns(n.netns_path, [&] { run_command({settings_.ip, "netns", "add", n.netns}); });
  network_ = n;
  for (const auto& argv : ping_network_commands(settings_.ip, n)) run_command(argv);
  if (settings_.drop_every > 0) {
    const std::string rules = run_dir_ + "/" + kRuleset;
    write_file_atomic(rules, drop_every_ruleset(settings_.drop_every));
    run_command({settings_.ip, "netns", "exec", n.netns, settings_.nft, "-f", rules});
  }
}

std::string PingCompanion::start(double duration_s) {
  if (!configured() || !network_) return "";
  record_.count_planned = std::min<uint64_t>(
      kMaxPingRequests, static_cast<uint64_t>(std::max(
                            1.0, std::floor(duration_s * static_cast<double>(settings_.rate_hz)))));
  record_.answer_wait_ms = kAnswerWaitMs;
  record_.method =
      "ICMP echo requests of 64 bytes over a raw socket bound to the veth end, each due at "
      "start + k / rate (absolute clock_nanosleep); round trip = the kernel's receive time of "
      "the answer minus the time before sendto";
  PingerSettings p;
  p.interface = network_->host_interface;
  p.source = network_->host_address;
  p.target = network_->netns_address;
  p.rate_hz = settings_.rate_hz;
  p.count = record_.count_planned;
  p.answer_wait_ns = int64_t{kAnswerWaitMs} * 1000000;
  pinger_.start(p);
  return fmt::format(
      "started --ping: {} echo requests at {}/s from {} into the run's namespace "
      "{} ({})",
      record_.count_planned, settings_.rate_hz, network_->host_address, network_->netns,
      network_->netns_address);
}

void PingCompanion::stop() noexcept {
  if (!configured() || stopped_) return;
  stopped_ = true;
  try {
    if (!pinger_.started()) {
      record_.error = "the pinger was not started (the run ended before its window)";
      return;
    }
    pinger_.stop();
    if (!pinger_.error().empty() && pinger_.packets().empty()) {
      record_.error = pinger_.error();
      return;
    }
    fill_ping_figures(pinger_.packets(), pinger_.unmatched_answers(), record_);
    record_.file = kPingCsv;
    write_output_file(run_dir_ + "/" + kPingCsv, ping_csv(pinger_.packets()));
  } catch (const std::exception& e) {
    record_.error = e.what();
  }
}

void PingCompanion::fill(RunResult& r) const {
  if (!configured()) return;
  r.ping = record_;
  if (record_.error) r.warnings.push_back("--ping gave no figures: " + *record_.error);
  if (!pinger_.error().empty() && !record_.error) {
    r.warnings.push_back("--ping: " + pinger_.error());
  }
  if (record_.expected_lost && record_.lost != *record_.expected_lost) {
    r.warnings.push_back(fmt::format(
        "--ping-drop-every {}: {} of {} echo requests lost, {} dropped by the rule: the "
        "companion or the network lost {} more",
        record_.drop_every, record_.lost, record_.sent, *record_.expected_lost,
        static_cast<int64_t>(record_.lost) - static_cast<int64_t>(*record_.expected_lost)));
  }
}

}  // namespace xrunlab
