// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/system/host_context.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <set>
#include <utility>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"
#include "engine/system/process.hpp"

namespace xrunlab {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

// Keeps valid UTF-8 sequences and replaces every other byte with '?'.
std::string to_valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    // Sequence length and payload bits of the lead byte; len 0 marks an invalid lead.
    const size_t len = c < 0x80             ? 1
                       : (c & 0xE0) == 0xC0 ? 2
                       : (c & 0xF0) == 0xE0 ? 3
                       : (c & 0xF8) == 0xF0 ? 4
                                            : 0;
    static constexpr unsigned char kLeadMask[] = {0, 0x7F, 0x1F, 0x0F, 0x07};
    uint32_t cp = c & kLeadMask[len];
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      ok = (cc & 0xC0) == 0x80;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Reject overlong forms, surrogates and values past U+10FFFF.
    static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    ok = ok && cp >= kMin[len] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

SpawnSpec argv_spec(std::vector<std::string> argv) {
  SpawnSpec spec;
  spec.argv = std::move(argv);
  return spec;
}

std::string first_line(std::string_view s) {
  return std::string(trim(s.substr(0, s.find('\n'))));
}

// "MemTotal:       16318412 kB" from /proc/meminfo; 0 when absent.
uint64_t parse_mem_total_kib(std::string_view meminfo) {
  constexpr std::string_view kKey = "MemTotal:";
  const size_t pos = meminfo.find(kKey);
  if (pos == std::string_view::npos) return 0;
  uint64_t value = 0;
  for (size_t i = pos + kKey.size(); i < meminfo.size(); ++i) {
    const char c = meminfo[i];
    if (c >= '0' && c <= '9') {
      value = value * 10 + static_cast<uint64_t>(c - '0');
    } else if (c != ' ' && c != '\t') {
      break;
    }
  }
  return value;
}

std::vector<std::string> scaling_governors() {
  namespace fs = std::filesystem;
  std::set<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it("/sys/devices/system/cpu", ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string dir = it->path().filename().string();
    if (dir.size() < 4 || dir.compare(0, 3, "cpu") != 0 ||
        dir.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    if (const auto text = read_file(it->path().string() + "/cpufreq/scaling_governor")) {
      const std::string gov = first_line(*text);
      if (!gov.empty()) names.insert(to_valid_utf8(gov));
    }
  }
  return {names.begin(), names.end()};  // sorted, distinct; empty when cpufreq is absent
}

}  // namespace

std::string detect_preempt_model(std::string_view uname_version) {
  bool preempt = false, dynamic = false, rt = false;
  std::string_view prev;
  std::string_view s = uname_version;
  while (!s.empty()) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    size_t n = 0;
    while (n < s.size() && !is_space(s[n])) ++n;
    const std::string_view word = s.substr(0, n);
    s.remove_prefix(n);
    if (word.empty()) break;
    if (word == "PREEMPT_RT" || (word == "RT" && prev == "PREEMPT")) rt = true;
    if (word == "PREEMPT_DYNAMIC") dynamic = true;
    if (word == "PREEMPT") preempt = true;
    prev = word;
  }
  if (rt) return "PREEMPT_RT";
  if (dynamic) return "PREEMPT_DYNAMIC";
  if (preempt) return "PREEMPT";
  return "none";
}

std::string parse_cpu_model(std::string_view cpuinfo_text) {
  static constexpr std::string_view kKeys[] = {"model name", "Processor", "cpu model", "cpu"};
  std::string_view found[std::size(kKeys)];
  std::string_view s = cpuinfo_text;
  while (!s.empty()) {
    const size_t eol = s.find('\n');
    const std::string_view line = s.substr(0, eol);
    s = eol == std::string_view::npos ? std::string_view() : s.substr(eol + 1);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const std::string_view key = trim(line.substr(0, colon));
    const std::string_view value = trim(line.substr(colon + 1));
    for (size_t k = 0; k < std::size(kKeys); ++k) {
      if (key == kKeys[k] && found[k].empty()) found[k] = value;
    }
    if (!found[0].empty()) break;
  }
  for (std::string_view v : found) {
    if (!v.empty()) return std::string(v);
  }
  return "";
}

HostRecord collect_host_context() {
  const auto or_unknown = [](std::string_view v) {
    return v.empty() ? std::string("unknown") : to_valid_utf8(v);
  };

  HostRecord h;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  h.hostname = or_unknown(host);

  utsname uts{};
  const bool have_uts = ::uname(&uts) == 0;
  h.kernel.sysname = or_unknown(have_uts ? uts.sysname : "");
  h.kernel.release = or_unknown(have_uts ? uts.release : "");
  h.kernel.version = or_unknown(have_uts ? uts.version : "");
  h.kernel.machine = or_unknown(have_uts ? uts.machine : "");
  h.kernel.preempt = detect_preempt_model(have_uts ? uts.version : "");
  const auto realtime = read_file("/sys/kernel/realtime");
  if (realtime && trim(*realtime) == "1") h.kernel.preempt = "PREEMPT_RT";
  const auto cmdline = read_file("/proc/cmdline");
  h.kernel.cmdline = cmdline ? to_valid_utf8(trim(*cmdline)) : "unknown";

  const auto cpuinfo = read_file("/proc/cpuinfo");
  h.cpu.model = or_unknown(cpuinfo ? parse_cpu_model(*cpuinfo) : "");
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  h.cpu.count = online > 0 ? static_cast<int64_t>(online) : 0;
  h.cpu.governors = scaling_governors();

  const auto meminfo = read_file("/proc/meminfo");
  h.memory_total_kib = meminfo ? parse_mem_total_kib(*meminfo) : 0;

  h.jackd_version = or_unknown(
      first_stdout_line(argv_spec({"jackd", "--version"}), std::chrono::milliseconds(5000)));
  return h;
}

}  // namespace xrunlab
