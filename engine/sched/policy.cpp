// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <vector>

#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

constexpr int kMinPriority = 6, kMaxPriority = 95;
constexpr int kMinNice = -20, kMaxNice = 19;
constexpr double kMinPct = 1, kMaxPct = 100;
constexpr double kMinIsoPeriodS = 0.1, kMaxIsoPeriodS = 600;
constexpr uint64_t kMinThrottlePeriodUs = 1000, kMaxThrottlePeriodUs = 1000000;
// Microsecond values must still fit a signed 64-bit count of nanoseconds (sched_attr).
constexpr uint64_t kMaxUs = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 1000;

constexpr char kAllForms[] =
    "fifo[:PRIO], rr[:PRIO], other[:NICE], batch[:NICE], idle, "
    "deadline[:RUNTIME_US,PERIOD_US][,reclaim], iso[:ISO_CPU], iso-emu[:ISO_CPU[,ISO_PERIOD_S]], "
    "rt-throttle:PCT[,PERIOD_US]";

struct KindName {
  std::string_view name;
  PolicyKind kind;
};
constexpr KindName kKinds[] = {
    {"fifo", PolicyKind::kFifo},
    {"rr", PolicyKind::kRr},
    {"other", PolicyKind::kOther},
    {"batch", PolicyKind::kBatch},
    {"idle", PolicyKind::kIdle},
    {"deadline", PolicyKind::kDeadline},
    {"iso", PolicyKind::kIso},
    {"iso-emu", PolicyKind::kIsoEmu},
    {"rt-throttle", PolicyKind::kRtThrottle},
};

std::string form_of(PolicyKind kind, std::string_view name) {
  switch (kind) {
    case PolicyKind::kFifo:
    case PolicyKind::kRr:
      return fmt::format("{}[:PRIO] with PRIO an integer 6..95 (default 70)", name);
    case PolicyKind::kOther:
    case PolicyKind::kBatch:
      return fmt::format(
          "{0}[:NICE] with NICE one signed integer -20..19 (default 0), e.g. {0}:-20", name);
    case PolicyKind::kIdle:
      return "idle";
    case PolicyKind::kDeadline:
      return "deadline[:RUNTIME_US,PERIOD_US][,reclaim] with microseconds "
             "0 < RUNTIME_US <= PERIOD_US, both or neither";
    case PolicyKind::kIso:
      return "iso[:ISO_CPU] with ISO_CPU a percentage 1..100 (default 70)";
    case PolicyKind::kIsoEmu:
      return "iso-emu[:ISO_CPU[,ISO_PERIOD_S]] with ISO_CPU a percentage 1..100 (default 70) and "
             "ISO_PERIOD_S seconds 0.1..600 (default 5)";
    case PolicyKind::kRtThrottle:
      return "rt-throttle:PCT[,PERIOD_US] with PCT a percentage 1..100 (required) and PERIOD_US "
             "microseconds 1000..1000000 (default 1000000)";
  }
  return std::string(kAllForms);
}

bool parse_whole(std::string_view s, long long& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool parse_unsigned(std::string_view s, uint64_t& out) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// Plain decimal ("70", "12.5"); no exponent, sign prefix, inf or nan.
bool parse_decimal(std::string_view s, double& out) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front()))) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, std::chars_format::fixed);
  return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

// Parser state for one spec: knows the kind's name and form for the error messages.
class SpecParser {
 public:
  SpecParser(PolicyKind kind, std::string_view name, std::string* why)
      : kind_(kind), name_(name), why_(why) {}

  // Sets *why to "<problem>; use <form>" and returns false.
  bool fail(const std::string& problem) {
    if (why_) *why_ = problem + "; use " + form_of(kind_, name_);
    return false;
  }

  bool priority(std::string_view s, int& out) {
    long long v = 0;
    if (!parse_whole(s, v)) return fail(fmt::format("priority '{}' is not an integer", s));
    if (v < kMinPriority || v > kMaxPriority) {
      return fail(fmt::format("priority {} is out of range {}..{}", v, kMinPriority, kMaxPriority));
    }
    out = static_cast<int>(v);
    return true;
  }

  bool nice(std::string_view s, int& out) {
    size_t signs = 0;
    while (signs < s.size() && (s[signs] == '-' || s[signs] == '+')) ++signs;
    if (signs > 1) {
      // The `nice --20` trap: in a shell the first '-' introduces the option, the rest is the
      // value. Here there is no option syntax, so only one sign is meaningful.
      if (why_) {
        *why_ = fmt::format(
            "nice value '{0}' is not one signed number (the shell's 'nice --20' means nice -20); "
            "a nice value is one signed integer -20..19: use {1}[:NICE], e.g. {1}:-20",
            s, name_);
      }
      return false;
    }
    long long v = 0;
    std::string_view digits = s;
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    if (!parse_whole(digits, v)) {
      return fail(fmt::format("nice value '{}' is not one signed integer", s));
    }
    if (v < kMinNice || v > kMaxNice) {
      return fail(fmt::format("nice value {} is out of range {}..{}", v, kMinNice, kMaxNice));
    }
    out = static_cast<int>(v);
    return true;
  }

  bool decimal(std::string_view what, std::string_view s, double lo, double hi, double& out) {
    double v = 0;
    if (!parse_decimal(s, v)) return fail(fmt::format("{} '{}' is not a number", what, s));
    if (!(v >= lo && v <= hi)) {
      return fail(fmt::format("{} {} is out of range {}..{}", what, s, lo, hi));
    }
    out = v;
    return true;
  }

  bool micros(std::string_view what, std::string_view s, uint64_t& out) {
    if (!parse_unsigned(s, out)) {
      return fail(fmt::format("{} '{}' is not a whole number of microseconds", what, s));
    }
    return true;
  }

  bool at_most(const std::vector<std::string_view>& values, size_t n) {
    if (values.size() <= n) return true;
    if (n == 0) return fail(fmt::format("{} takes no value", name_));
    return fail(fmt::format("{} takes at most {} value{}, got {}", name_, n, n == 1 ? "" : "s",
                            values.size()));
  }

 private:
  PolicyKind kind_;
  std::string_view name_;
  std::string* why_;
};

bool parse_values(SpecParser& sp, PolicyKind kind, const std::vector<std::string_view>& values,
                  PolicySpec& p) {
  switch (kind) {
    case PolicyKind::kFifo:
    case PolicyKind::kRr:
      if (!sp.at_most(values, 1)) return false;
      return values.empty() || sp.priority(values[0], p.priority);
    case PolicyKind::kOther:
    case PolicyKind::kBatch:
      if (!sp.at_most(values, 1)) return false;
      return values.empty() || sp.nice(values[0], p.nice);
    case PolicyKind::kIdle:
      return sp.at_most(values, 0);
    case PolicyKind::kDeadline: {
      std::vector<std::string_view> times = values;
      if (!times.empty() && times.back() == "reclaim") {
        p.dl_reclaim = true;
        times.pop_back();
      }
      if (std::find(times.begin(), times.end(), "reclaim") != times.end()) {
        return sp.fail("'reclaim' must come last");
      }
      if (times.size() == 1) return sp.fail("deadline needs both RUNTIME_US and PERIOD_US");
      if (times.size() > 2) {
        return sp.fail(fmt::format("deadline takes two times, got {}", times.size()));
      }
      if (times.empty()) return true;
      uint64_t runtime = 0, period = 0;
      if (!sp.micros("RUNTIME_US", times[0], runtime) ||
          !sp.micros("PERIOD_US", times[1], period)) {
        return false;
      }
      if (runtime == 0) return sp.fail("RUNTIME_US must be more than 0");
      if (period > kMaxUs) return sp.fail(fmt::format("PERIOD_US {} is too large", period));
      if (runtime > period) {
        return sp.fail(fmt::format("RUNTIME_US {} is more than PERIOD_US {}", runtime, period));
      }
      p.dl_runtime_us = runtime;
      p.dl_period_us = period;
      return true;
    }
    case PolicyKind::kIso:
      if (!sp.at_most(values, 1)) return false;
      return values.empty() || sp.decimal("ISO_CPU", values[0], kMinPct, kMaxPct, p.iso_cpu_pct);
    case PolicyKind::kIsoEmu:
      p.priority = kIsoEmuServerPriority;
      if (!sp.at_most(values, 2)) return false;
      if (!values.empty() && !sp.decimal("ISO_CPU", values[0], kMinPct, kMaxPct, p.iso_cpu_pct)) {
        return false;
      }
      return values.size() < 2 ||
             sp.decimal("ISO_PERIOD_S", values[1], kMinIsoPeriodS, kMaxIsoPeriodS, p.iso_period_s);
    case PolicyKind::kRtThrottle:
      if (values.empty()) return sp.fail("rt-throttle needs PCT");
      if (!sp.at_most(values, 2)) return false;
      if (!sp.decimal("PCT", values[0], kMinPct, kMaxPct, p.throttle_pct)) return false;
      if (values.size() < 2) return true;
      if (!sp.micros("PERIOD_US", values[1], p.throttle_period_us)) return false;
      if (p.throttle_period_us < kMinThrottlePeriodUs ||
          p.throttle_period_us > kMaxThrottlePeriodUs) {
        return sp.fail(fmt::format("PERIOD_US {} is out of range {}..{}", p.throttle_period_us,
                                   kMinThrottlePeriodUs, kMaxThrottlePeriodUs));
      }
      return true;
  }
  return false;
}

std::string signed_nice(int nice) {
  return nice > 0 ? fmt::format("+{}", nice) : fmt::format("{}", nice);
}

uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

uint64_t pct_of(uint64_t v, uint64_t pct) {
  return v / 100 * pct + v % 100 * pct / 100;
}

}  // namespace

const char* policy_help() {
  return "Scheduling of jackd's realtime thread and of every client's process thread: "
         "fifo[:PRIO], rr[:PRIO] (PRIO is the server's; clients run 5 below, as in JACK2), "
         "other[:NICE], batch[:NICE] (NICE is one signed number, -20..19: other:-20 is 'nice "
         "-20'), idle, deadline[:RUNTIME_US,PERIOD_US][,reclaim], iso[:ISO_CPU] (the kernel's "
         "SCHED_ISO, -ck kernels only), iso-emu[:ISO_CPU[,ISO_PERIOD_S]] (a user-space emulation "
         "of SCHED_ISO), rt-throttle:PCT[,PERIOD_US] (SCHED_FIFO in a cgroup-v1 group with PCT% "
         "RT bandwidth).";
}

std::optional<PolicySpec> parse_policy(std::string_view text, std::string* why) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const KindName* found = nullptr;
  for (const KindName& k : kKinds) {
    if (k.name == name) found = &k;
  }
  if (!found) {
    if (why) {
      std::string lower(name);
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      const bool case_only = std::any_of(std::begin(kKinds), std::end(kKinds),
                                         [&](const KindName& k) { return k.name == lower; });
      if (text.empty()) {
        *why = fmt::format("empty policy; use one of {}", kAllForms);
      } else if (case_only) {
        *why = fmt::format("policy '{}' must be written in lower case ('{}'); use one of {}", name,
                           lower, kAllForms);
      } else {
        *why = fmt::format("unknown policy '{}'; use one of {}", name, kAllForms);
      }
    }
    return std::nullopt;
  }

  PolicySpec p;
  p.kind = found->kind;
  p.text = std::string(text);
  SpecParser sp(found->kind, found->name, why);
  std::vector<std::string_view> values;
  if (colon != std::string_view::npos) {
    const std::string_view rest = text.substr(colon + 1);
    if (rest.empty()) {
      sp.fail(fmt::format("nothing after '{}:'", found->name));
      return std::nullopt;
    }
    values = split(rest, ',');
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].empty()) {
        sp.fail(fmt::format("value {} after '{}:' is empty", i + 1, found->name));
        return std::nullopt;
      }
    }
  }
  if (!parse_values(sp, found->kind, values, p)) return std::nullopt;
  return p;
}

std::string describe(const PolicySpec& p) {
  switch (p.kind) {
    case PolicyKind::kFifo:
    case PolicyKind::kRr:
      return fmt::format("{} {} (server) / {} (clients)",
                         p.kind == PolicyKind::kFifo ? "SCHED_FIFO" : "SCHED_RR", p.priority,
                         p.priority - kJackClientPriorityOffset);
    case PolicyKind::kOther:
      return "SCHED_OTHER nice " + signed_nice(p.nice);
    case PolicyKind::kBatch:
      return "SCHED_BATCH nice " + signed_nice(p.nice);
    case PolicyKind::kIdle:
      return "SCHED_IDLE";
    case PolicyKind::kDeadline: {
      std::string s = p.dl_runtime_us && p.dl_period_us
                          ? fmt::format("SCHED_DEADLINE runtime {} us, period {} us",
                                        *p.dl_runtime_us, *p.dl_period_us)
                          : std::string(
                                "SCHED_DEADLINE, period = JACK period, runtime from the "
                                "DSP load");
      if (p.dl_reclaim) s += ", reclaim (SCHED_FLAG_RECLAIM)";
      return s;
    }
    case PolicyKind::kIso:
      return fmt::format("SCHED_ISO (kernel policy 4), iso_cpu {}%", p.iso_cpu_pct);
    case PolicyKind::kIsoEmu:
      return fmt::format("EMULATED SCHED_ISO (user-space governor), iso_cpu {}%, iso_period {} s",
                         p.iso_cpu_pct, p.iso_period_s);
    case PolicyKind::kRtThrottle:
      return fmt::format(
          "SCHED_FIFO {} (server) / {} (clients) in a cgroup-v1 RT group limited to {}% "
          "({} us per {} us)",
          p.priority, p.priority - kJackClientPriorityOffset, p.throttle_pct,
          static_cast<uint64_t>(
              std::llround(p.throttle_pct / 100.0 * static_cast<double>(p.throttle_period_us))),
          p.throttle_period_us);
  }
  return p.text;
}

PolicyTargets targets_for(const PolicySpec& p, uint32_t frames, uint32_t rate,
                          uint64_t client_dsp_ns) {
  PolicyTargets t;
  switch (p.kind) {
    case PolicyKind::kFifo:
    case PolicyKind::kRtThrottle:
      t.server.policy = t.client.policy = kSchedFifo;
      t.server.rt_priority = p.priority;
      t.client.rt_priority = p.priority - kJackClientPriorityOffset;
      break;
    case PolicyKind::kRr:
      t.server.policy = t.client.policy = kSchedRr;
      t.server.rt_priority = p.priority;
      t.client.rt_priority = p.priority - kJackClientPriorityOffset;
      break;
    case PolicyKind::kOther:
    case PolicyKind::kBatch:
      t.server.policy = t.client.policy = p.kind == PolicyKind::kOther ? kSchedOther : kSchedBatch;
      t.server.nice = t.client.nice = p.nice;
      break;
    case PolicyKind::kIdle:
      t.server.policy = t.client.policy = kSchedIdle;
      break;
    case PolicyKind::kIso:
      t.server.policy = t.client.policy = kSchedIso;
      break;
    case PolicyKind::kIsoEmu:
      t.server.policy = t.client.policy = kSchedFifo;
      t.server.rt_priority = kIsoEmuServerPriority;
      t.client.rt_priority = kIsoEmuClientPriority;
      break;
    case PolicyKind::kDeadline: {
      const uint64_t jack_period_ns =
          rate == 0 ? 0 : uint64_t{frames} * 1'000'000'000ULL / uint64_t{rate};
      const uint64_t period = p.dl_period_us ? *p.dl_period_us * 1000 : jack_period_ns;
      // Margins of the default runtimes. A SCHED_DEADLINE thread that uses up its runtime is
      // throttled until its next period: for an audio thread that is a certain xrun, so the
      // runtime errs on the high side (unused runtime costs only admission bandwidth, and with
      // `reclaim` it is handed back to others).
      //  * client: twice the requested DSP time (the DSP time is calibrated on a quiet CPU; cache
      //    misses, frequency changes and interrupts under load stretch it) plus 50 us for what
      //    JACK does in the client around the callback (wake-up, port buffers, signalling the
      //    next client) and the callback's own measuring; at least 100 us, because below that
      //    the fixed costs alone can exceed it.
      //  * server: its thread only runs the driver cycle (card I/O, starting the graph), a
      //    small share of the period: period / 10, at least 100 us for the same reason.
      //  * both at most 95% of the period: runtime may not exceed the period, and the 5% keeps
      //    each thread's bandwidth under the default per-CPU RT limit (sched_rt_runtime_us
      //    950000 of 1000000).
      constexpr uint64_t kClientOverheadNs = 50'000, kMinRuntimeNs = 100'000;
      const uint64_t cap = pct_of(period, 95);
      const uint64_t client_need =
          sat_add(sat_add(client_dsp_ns, client_dsp_ns), kClientOverheadNs);
      const uint64_t client_default = std::min(cap, std::max(client_need, kMinRuntimeNs));
      const uint64_t server_default = std::min(cap, std::max(period / 10, kMinRuntimeNs));
      const uint64_t flags = p.dl_reclaim ? kSchedFlagReclaim : 0;
      for (ThreadTarget* x : {&t.server, &t.client}) {
        x->policy = kSchedDeadline;
        x->dl_period_ns = period;
        x->dl_deadline_ns = period;
        x->dl_flags = flags;
      }
      t.client.dl_runtime_ns = p.dl_runtime_us ? *p.dl_runtime_us * 1000 : client_default;
      t.server.dl_runtime_ns = p.dl_runtime_us ? *p.dl_runtime_us * 1000 : server_default;
      break;
    }
  }
  return t;
}

}  // namespace xrunlab
