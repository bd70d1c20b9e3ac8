// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What one audio thread's scheduling should be: the one vocabulary shared by the policy specs
// (policy.hpp), the code that applies and reads scheduling (thread_sched.hpp) and the iso-emu
// governor (iso_governor.hpp). Numbers are Linux's own (include/uapi/linux/sched.h).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace xrunlab {

inline constexpr int kSchedOther = 0;
inline constexpr int kSchedFifo = 1;
inline constexpr int kSchedRr = 2;
inline constexpr int kSchedBatch = 3;
inline constexpr int kSchedIso = 4;  // -ck / BFS / MuQSS kernels only; mainline: EINVAL
inline constexpr int kSchedIdle = 5;
inline constexpr int kSchedDeadline = 6;
inline constexpr uint64_t kSchedFlagReclaim = 0x02;  // SCHED_FLAG_RECLAIM (GRUB)

struct ThreadTarget {
  int policy = kSchedOther;
  int rt_priority = 0;  // SCHED_FIFO / SCHED_RR: 1..99; else 0
  int nice = 0;         // SCHED_OTHER / SCHED_BATCH: -20..19 (a signed number); else 0
  uint64_t dl_runtime_ns = 0, dl_deadline_ns = 0, dl_period_ns = 0;  // SCHED_DEADLINE
  uint64_t dl_flags = 0;  // SCHED_DEADLINE: e.g. kSchedFlagReclaim
};

inline bool operator==(const ThreadTarget& a, const ThreadTarget& b) {
  return a.policy == b.policy && a.rt_priority == b.rt_priority && a.nice == b.nice &&
         a.dl_runtime_ns == b.dl_runtime_ns && a.dl_deadline_ns == b.dl_deadline_ns &&
         a.dl_period_ns == b.dl_period_ns && a.dl_flags == b.dl_flags;
}

}  // namespace xrunlab

namespace xrunlab {

// Compact text form, used on xrunlab-client's command line (--sched-target):
//   FIFO:PRIO  RR:PRIO  OTHER:NICE  BATCH:NICE  IDLE  ISO
//   DEADLINE:RUNTIME_NS,DEADLINE_NS,PERIOD_NS[,reclaim]
std::string format_target(const ThreadTarget& t);
std::optional<ThreadTarget> parse_target(std::string_view text, std::string* why);
// For people: "SCHED_FIFO 65", "SCHED_OTHER nice -20", "SCHED_DEADLINE 300/1333/1333 us".
std::string describe_target(const ThreadTarget& t);

}  // namespace xrunlab
