// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/wire/sched_target.hpp"

#include <fmt/core.h>

#include <charconv>

namespace xrunlab {
namespace {

template <typename T>
bool parse_number(std::string_view s, T* out) {
  if (s.empty()) return false;
  const char* begin = s.data();
  if (s[0] == '+') return false;  // one plain signed number, like the kernel takes
  const auto [ptr, ec] = std::from_chars(begin, begin + s.size(), *out);
  return ec == std::errc() && ptr == begin + s.size();
}

}  // namespace

std::string format_target(const ThreadTarget& t) {
  switch (t.policy) {
    case kSchedFifo:
      return fmt::format("FIFO:{}", t.rt_priority);
    case kSchedRr:
      return fmt::format("RR:{}", t.rt_priority);
    case kSchedOther:
      return fmt::format("OTHER:{}", t.nice);
    case kSchedBatch:
      return fmt::format("BATCH:{}", t.nice);
    case kSchedIdle:
      return "IDLE";
    case kSchedIso:
      return "ISO";
    case kSchedDeadline:
      return fmt::format("DEADLINE:{},{},{}{}", t.dl_runtime_ns, t.dl_deadline_ns, t.dl_period_ns,
                         (t.dl_flags & kSchedFlagReclaim) != 0 ? ",reclaim" : "");
    default:
      return fmt::format("POLICY{}", t.policy);
  }
}

std::optional<ThreadTarget> parse_target(std::string_view text, std::string* why) {
  auto fail = [&](const std::string& msg) -> std::optional<ThreadTarget> {
    if (why != nullptr) *why = msg;
    return std::nullopt;
  };
  const auto colon = text.find(':');
  const std::string_view head = text.substr(0, colon);
  const std::string_view arg = colon == std::string_view::npos ? "" : text.substr(colon + 1);
  ThreadTarget t;
  if (head == "FIFO" || head == "RR") {
    t.policy = head == "FIFO" ? kSchedFifo : kSchedRr;
    if (!parse_number(arg, &t.rt_priority) || t.rt_priority < 1 || t.rt_priority > 99) {
      return fail("expected " + std::string(head) + ":PRIO with PRIO 1..99");
    }
  } else if (head == "OTHER" || head == "BATCH") {
    t.policy = head == "OTHER" ? kSchedOther : kSchedBatch;
    if (!parse_number(arg, &t.nice) || t.nice < -20 || t.nice > 19) {
      return fail("expected " + std::string(head) + ":NICE with NICE -20..19");
    }
  } else if (head == "IDLE" && arg.empty()) {
    t.policy = kSchedIdle;
  } else if (head == "ISO" && arg.empty()) {
    t.policy = kSchedIso;
  } else if (head == "DEADLINE") {
    t.policy = kSchedDeadline;
    uint64_t* fields[] = {&t.dl_runtime_ns, &t.dl_deadline_ns, &t.dl_period_ns};
    std::string_view rest = arg;
    for (uint64_t* f : fields) {
      const auto comma = rest.find(',');
      if (!parse_number(rest.substr(0, comma), f) || *f == 0) {
        return fail("expected DEADLINE:RUNTIME_NS,DEADLINE_NS,PERIOD_NS[,reclaim]");
      }
      rest = comma == std::string_view::npos ? "" : rest.substr(comma + 1);
    }
    if (rest == "reclaim") {
      t.dl_flags = kSchedFlagReclaim;
    } else if (!rest.empty()) {
      return fail("unknown DEADLINE flag '" + std::string(rest) + "'");
    }
    if (t.dl_runtime_ns > t.dl_deadline_ns || t.dl_deadline_ns > t.dl_period_ns) {
      return fail("DEADLINE needs RUNTIME <= DEADLINE <= PERIOD");
    }
  } else {
    return fail("unknown scheduling target '" + std::string(text) + "'");
  }
  return t;
}

std::string describe_target(const ThreadTarget& t) {
  switch (t.policy) {
    case kSchedFifo:
      return fmt::format("SCHED_FIFO {}", t.rt_priority);
    case kSchedRr:
      return fmt::format("SCHED_RR {}", t.rt_priority);
    case kSchedOther:
      return fmt::format("SCHED_OTHER nice {:+d}", t.nice);
    case kSchedBatch:
      return fmt::format("SCHED_BATCH nice {:+d}", t.nice);
    case kSchedIdle:
      return "SCHED_IDLE";
    case kSchedIso:
      return "SCHED_ISO";
    case kSchedDeadline:
      return fmt::format("SCHED_DEADLINE runtime {} / deadline {} / period {} us{}",
                         t.dl_runtime_ns / 1000, t.dl_deadline_ns / 1000, t.dl_period_ns / 1000,
                         (t.dl_flags & kSchedFlagReclaim) != 0 ? ", reclaim" : "");
    default:
      return fmt::format("policy {}", t.policy);
  }
}

}  // namespace xrunlab
