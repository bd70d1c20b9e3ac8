#include "engine/system/host_context.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <set>
#include <utility>
#include <vector>

namespace xrunlab {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
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

// Reads a whole file (sysfs/procfs report size 0); false when it cannot be opened.
bool read_file(const std::string& path, std::string& out) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  out.clear();
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fd);
  return true;
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

nlohmann::json scaling_governors() {
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
    std::string text;
    if (read_file(it->path().string() + "/cpufreq/scaling_governor", text)) {
      const std::string gov = first_line(text);
      if (!gov.empty()) names.insert(to_valid_utf8(gov));
    }
  }
  return nlohmann::json(names);  // sorted, distinct; [] when cpufreq is absent
}

int64_t now_ms() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

// Runs argv (PATH lookup, no shell) and returns the first line of its stdout, or "" on any
// failure. stdin/stderr go to /dev/null; the child is killed after `timeout_ms`.
std::string first_stdout_line(const std::vector<std::string>& args, int timeout_ms) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return "";
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return "";
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      ::dup2(devnull, STDIN_FILENO);
      ::dup2(devnull, STDERR_FILENO);
    }
    ::dup2(fds[1], STDOUT_FILENO);  // dup2 clears O_CLOEXEC on the copy
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);

  std::string out;
  const int64_t deadline = now_ms() + timeout_ms;
  bool timed_out = false;
  while (out.find('\n') == std::string::npos && out.size() < 4096) {
    const int64_t left = deadline - now_ms();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int r = ::poll(&pfd, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      timed_out = r == 0;
      break;
    }
    char buf[512];
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  if (timed_out) ::kill(pid, SIGKILL);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return first_line(out);
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

nlohmann::json collect_host_context() {
  using nlohmann::json;
  const auto or_unknown = [](std::string_view v) {
    return v.empty() ? std::string("unknown") : to_valid_utf8(v);
  };

  json ctx = json::object();
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  ctx["hostname"] = or_unknown(host);

  json kernel = json::object();
  utsname uts{};
  const bool have_uts = ::uname(&uts) == 0;
  kernel["sysname"] = or_unknown(have_uts ? uts.sysname : "");
  kernel["release"] = or_unknown(have_uts ? uts.release : "");
  kernel["version"] = or_unknown(have_uts ? uts.version : "");
  kernel["machine"] = or_unknown(have_uts ? uts.machine : "");
  std::string preempt = detect_preempt_model(have_uts ? uts.version : "");
  std::string text;
  if (read_file("/sys/kernel/realtime", text) && trim(text) == "1") preempt = "PREEMPT_RT";
  kernel["preempt"] = preempt;
  kernel["cmdline"] = read_file("/proc/cmdline", text) ? to_valid_utf8(trim(text)) : "unknown";
  ctx["kernel"] = std::move(kernel);

  json cpu = json::object();
  cpu["model"] = or_unknown(read_file("/proc/cpuinfo", text) ? parse_cpu_model(text) : "");
  const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  cpu["count"] = online > 0 ? static_cast<int64_t>(online) : 0;
  cpu["governors"] = scaling_governors();
  ctx["cpu"] = std::move(cpu);

  ctx["memory_total_kib"] = read_file("/proc/meminfo", text) ? parse_mem_total_kib(text) : 0;

  json jack = json::object();
  jack["jackd_version"] = or_unknown(first_stdout_line({"jackd", "--version"}, 5000));
  ctx["jack"] = std::move(jack);
  return ctx;
}

}  // namespace xrunlab
