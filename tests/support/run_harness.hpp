// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Test harness for the integration tests: runs the real xrunlab binary and inspects what it
// leaves (run folder, processes, JACK files).
#include <dirent.h>
#include <gtest/gtest.h>
#include <jack/jack.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/jack/jack_registry.hpp"
#include "engine/report/report_summary.hpp"
#include "engine/system/process.hpp"
#include "tests/support/files.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab::testing_support {

using nlohmann::json;
using namespace std::chrono_literals;

using testing_support::read_text_or_empty;

// Calls `each(pid, "/proc/PID/")` for every process now in /proc.
template <typename F>
void for_each_process(F each) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  while (dirent* e = readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    each(std::string(e->d_name), std::string("/proc/") + e->d_name + "/");
  }
  closedir(proc);
}

// Every process whose command line mentions `needle` (e.g. a run's private server name).
inline std::vector<std::string> processes_mentioning(const std::string& needle) {
  std::vector<std::string> found;
  for_each_process([&](const std::string& pid, const std::string& dir) {
    std::string cmd = read_text_or_empty(dir + "cmdline");
    for (char& c : cmd) c = c == '\0' ? ' ' : c;
    if (cmd.find(needle) != std::string::npos) found.push_back(pid + ": " + cmd);
  });
  return found;
}

// Every process that has a file whose path starts with `prefix` mapped (/proc/PID/maps).
inline std::vector<std::string> processes_mapping(const std::string& prefix) {
  std::vector<std::string> found;
  for_each_process([&](const std::string& pid, const std::string& dir) {
    if (read_text_or_empty(dir + "maps").find(" " + prefix) != std::string::npos) {
      found.push_back(pid);
    }
  });
  return found;
}

struct XrunlabRun {
  Child child;
  std::unique_ptr<TempDir> dir = std::make_unique<TempDir>("run");  // removed with the run
  std::string out_dir = dir->str();
  std::string log_path;
  int exit_code = -1;
  std::string server_name() const { return "xrunlab-" + std::to_string(child.pid()) + "-0"; }
  // Client `index`'s JACK name, e.g. "xrunlab-8790-0-c02": named after the run's server.
  std::string client_name(int index) const {
    return server_name() + (index < 10 ? "-c0" : "-c") + std::to_string(index);
  }
  std::string log() const { return read_text_or_empty(log_path); }
  std::string run_dir() const {
    const std::string text = log();
    const auto at = text.find("Results: ");
    if (at == std::string::npos) return "";
    return text.substr(at + 9, text.find('\n', at) - at - 9);
  }
  json run_json() const { return json::parse(read_text_or_empty(run_dir() + "/run.json")); }
  // seconds.jsonl as a user reads it with a JSON tool, line by line: the header's
  // "client_columns", each client's rows (by index, in the file's order) and the system's.
  struct Seconds {
    json columns;
    std::map<int, json> clients;
    json system = json::array();
    size_t client_rows = 0;
  };
  Seconds seconds() const {
    Seconds out;
    std::istringstream in(read_text_or_empty(run_dir() + "/seconds.jsonl"));
    std::string line;
    while (std::getline(in, line)) {
      const json j = json::parse(line);
      if (j.contains("xrunlab_seconds")) {
        out.columns = j["client_columns"];
      } else if (j.contains("client")) {
        json& rows = out.clients[j["client"].get<int>()];
        if (rows.is_null()) rows = json::array();
        rows.push_back(j["row"]);
        ++out.client_rows;
      } else {
        out.system.push_back(j["system"]);
      }
    }
    return out;
  }
};

inline XrunlabRun start(std::vector<std::string> args,
                        std::vector<std::pair<std::string, std::string>> env = {}) {
  XrunlabRun r;
  r.log_path = r.out_dir + "/xrunlab.out";
  SpawnSpec spec;
  spec.argv = {XRUNLAB_BIN};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  if (args.size() > 0 && args[0] == "run" &&
      std::find(args.begin(), args.end(), "--output") == args.end()) {
    spec.argv.insert(spec.argv.end(), {"--output", r.out_dir});
  }
  spec.output_path = r.log_path;
  spec.env = std::move(env);
  r.child = Child::spawn(spec);
  return r;
}

inline void finish(XrunlabRun& r, std::chrono::seconds timeout = 60s) {
  ASSERT_TRUE(r.child.wait_for(timeout)) << "xrunlab did not exit; output:\n" << r.log();
  const int status = *r.child.wait_status();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Runs `xrunlab ARGS` (a report command, usually) to the end, its output in DIR/cmd.out;
// returns (exit code, output).
inline std::pair<int, std::string> run_command(const std::vector<std::string>& args,
                                               const std::string& dir) {
  XrunlabRun r;
  r.out_dir = dir;
  r.log_path = dir + "/cmd.out";
  std::filesystem::remove(r.log_path);
  SpawnSpec spec;
  spec.argv = {XRUNLAB_BIN};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.output_path = r.log_path;
  r.child = Child::spawn(spec);
  finish(r);
  return {r.exit_code, r.log()};
}

// /dev/shm files and JACK registry slots that still name the run's server.
inline std::vector<std::string> shm_leftovers(const std::string& server) {
  std::vector<std::string> found;
  if (DIR* dir = opendir("/dev/shm")) {
    while (dirent* e = readdir(dir)) {
      const std::string name = e->d_name;
      if (name.find(server + "_") != std::string::npos || name == "xrunlab-vcard-" + server ||
          name == "xrunlab-cycles-" + server) {
        found.push_back(name);
      }
    }
    closedir(dir);
  }
  if (auto entries =
          parse_jack_registry(read_text_or_empty("/dev/shm/jack-shm-registry"), nullptr)) {
    for (const RegistryEntry& e : *entries) {
      if (e.name.find(":" + server + ":") != std::string::npos) found.push_back("slot " + e.name);
    }
  }
  return found;
}

// The run's janitor (xrunlab-janitor --engine PID ...), alive and not a zombie, or -1.
inline pid_t janitor_of(pid_t engine) {
  for (const std::string& p : processes_mentioning("--engine " + std::to_string(engine) + " ")) {
    const std::string stat = read_text_or_empty("/proc/" + std::to_string(std::stol(p)) + "/stat");
    const auto paren = stat.rfind(')');
    if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'Z') continue;
    return static_cast<pid_t>(std::stol(p));
  }
  return -1;
}

// What the janitor cannot help with: the engine and its janitor both SIGKILLed (the janitor
// first), as `kill -9 -1` or a machine crash would; the next run's preflight cleans up then.
inline void kill_engine_and_janitor(XrunlabRun& r) {
  const pid_t janitor = janitor_of(r.child.pid());
  ASSERT_GT(janitor, 0) << "the run has no janitor";
  ASSERT_EQ(::kill(janitor, SIGKILL), 0);
  while (janitor_of(r.child.pid()) == janitor) std::this_thread::sleep_for(1ms);
  r.child.signal(SIGKILL);
}

inline void expect_nothing_left(const XrunlabRun& r) {
  EXPECT_EQ(janitor_of(r.child.pid()), -1) << "the run's janitor is still alive";
  EXPECT_EQ(processes_mentioning(r.server_name()), std::vector<std::string>{})
      << "processes of the run are still alive";
  EXPECT_EQ(shm_leftovers(r.server_name()), std::vector<std::string>{})
      << "JACK files or registry slots of the run are left";
  // The engine's own shared memory (the card record, the cycle table) is unlinked by the engine,
  // never "removed ... of dead xrunlab servers" (what a crashed jackd left may be).
  const std::string text = read_text_or_empty(r.run_dir() + "/run.json");
  if (text.empty()) return;
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  // --backend pipewire: the private daemon (its command line names the run's config file) is
  // gone, and so is its runtime folder with the socket.
  if (j.is_object() && j.contains("jack") &&
      j["jack"].value("backend", json::object()).value("name", std::string()) == "pipewire") {
    const json& b = j["jack"]["backend"];
    const std::string config = b.value("config", std::string());
    const std::string runtime = b.value("runtime_dir", std::string());
    EXPECT_FALSE(config.empty()) << b.dump();
    EXPECT_FALSE(runtime.empty()) << b.dump();
    if (!config.empty()) {
      EXPECT_EQ(processes_mentioning(config), std::vector<std::string>{})
          << "the run's PipeWire is still alive";
    }
    struct stat st {};
    EXPECT_NE(::stat(runtime.c_str(), &st), 0) << "the private runtime folder is left: " << runtime;
  }
  if (!j.is_object() || !j.contains("warnings")) return;
  for (const json& w : j["warnings"]) {
    const std::string s = w.is_string() ? w.get<std::string>() : w.dump();
    for (const std::string own : {"xrunlab-cycles-", "xrunlab-vcard-"}) {
      EXPECT_FALSE(s.find("removed") != std::string::npos &&
                   s.find(own + r.server_name()) != std::string::npos)
          << "the run reported its own file as left behind by a dead server: " << s;
    }
  }
}

// XRUN Count as jack_test defined it: the driver's xruns only, from the card's own record where
// there is one (vcard), else from jackd's log. JACK2's client-late xruns are counted beside it:
// every xrun JACK reported reached the monitor client once. jackd's log is their second
// witness: its lines carry no cycle number and are grouped into events by arrival, so late
// cycles in a row whose lines jackd flushes together read as one event. The witnesses agree on
// a quiet machine; where they do not, the run must say so. With the cycle table each witness
// is judged against the table's xrun events instead: where one missed an event or reported
// before any, the run must say so.
inline void expect_xrun_counts_consistent(const json& j) {
  const json& x = j["xruns"];
  const auto monitor = x["monitor_events"].get<uint64_t>();
  const auto log_client = x["log_client_events"].get<uint64_t>();
  const auto log_driver = x["log_driver_xruns"].get<uint64_t>();
  const bool reach = x["driver_xruns_reach_monitor"].get<bool>();
  EXPECT_EQ(j["jack_test"]["definitions"], "jack1-rules");
  EXPECT_EQ(j["totals"]["xrun_count"].get<uint64_t>(),
            x["card_xruns"].is_null() ? log_driver : x["card_xruns"].get<uint64_t>())
      << x.dump();
  EXPECT_LE(log_client, x["log_client_lines"].get<uint64_t>()) << x.dump();
  bool should_warn = monitor != log_client + (reach ? log_driver : 0);
  if (j["xrun_cycles"].is_object()) {
    should_warn = false;
    for (const json& s : j["xrun_cycles"]["sources"]) {
      if (s["key"] == "audio") continue;
      should_warn = should_warn || s["events_missed"].get<uint64_t>() > 0 ||
                    s["reports_without_xrun_cycle"].get<uint64_t>() > 0;
    }
  }
  if (should_warn) {
    bool warned = false;
    for (const json& w : j["warnings"]) {
      warned = warned || w.get<std::string>().find("jackd's log") != std::string::npos;
    }
    EXPECT_TRUE(warned) << "the two xrun witnesses disagree and the run is silent: " << x.dump()
                        << "\n"
                        << j["warnings"].dump();
  }
}

// A campaign of several runs needs more than finish()'s default minute on a slow machine: pass
// a longer `timeout`.
inline int run_to_end(const std::vector<std::string>& args, XrunlabRun* out,
                      std::chrono::seconds timeout = 60s) {
  *out = start(args);
  finish(*out, timeout);
  return out->exit_code;
}

inline void silent(const char*) {}

// Waits until the engine says its measurement window has begun.
inline void wait_until_measuring(const XrunlabRun& r) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (r.log().find("measuring") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_NE(r.log().find("measuring"), std::string::npos) << r.log();
}

// The pid of the run's process whose command line has `needle` (e.g. a client name), or -1.
inline pid_t pid_of(const XrunlabRun& r, const std::string& needle) {
  for (const std::string& p : processes_mentioning(r.server_name())) {
    if (p.find(needle) != std::string::npos) return static_cast<pid_t>(std::stol(p));
  }
  return -1;
}

}  // namespace xrunlab::testing_support
