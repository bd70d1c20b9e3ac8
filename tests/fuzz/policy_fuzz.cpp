// SPDX-License-Identifier: GPL-2.0-or-later
// parse_policy (--policy SPEC): a rejected spec says why; an accepted one is in the grammar's
// ranges, written back in the grammar (canonical form) parses to the same spec, has a label,
// and its thread targets are valid and survive the --sched-target text form
// (format_target/parse_target) unchanged.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "engine/sched/policy.hpp"
#include "engine/wire/sched_target.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using xrunlab::PolicyKind;
using xrunlab::PolicySpec;

// The spec in the grammar of policy.hpp, every value spelled out.
std::string canonical(const PolicySpec& p) {
  switch (p.kind) {
    case PolicyKind::kFifo:
      return fmt::format("fifo:{}", p.priority);
    case PolicyKind::kRr:
      return fmt::format("rr:{}", p.priority);
    case PolicyKind::kOther:
      return fmt::format("other:{}", p.nice);
    case PolicyKind::kBatch:
      return fmt::format("batch:{}", p.nice);
    case PolicyKind::kIdle:
      return "idle";
    case PolicyKind::kDeadline: {
      std::string s = "deadline";
      if (p.dl_runtime_us) s += fmt::format(":{},{}", *p.dl_runtime_us, *p.dl_period_us);
      if (p.dl_reclaim) s += p.dl_runtime_us ? ",reclaim" : ":reclaim";
      return s;
    }
    case PolicyKind::kIso:
      return fmt::format("iso:{}", p.iso_cpu_pct);
    case PolicyKind::kIsoEmu:
      return fmt::format("iso-emu:{},{}", p.iso_cpu_pct, p.iso_period_s);
    case PolicyKind::kRtThrottle:
      return fmt::format("rt-throttle:{},{}", p.throttle_pct, p.throttle_period_us);
  }
  return "?";
}

bool same(const PolicySpec& a, const PolicySpec& b) {
  return a.kind == b.kind && a.priority == b.priority && a.nice == b.nice &&
         a.dl_runtime_us == b.dl_runtime_us && a.dl_period_us == b.dl_period_us &&
         a.dl_reclaim == b.dl_reclaim && a.iso_cpu_pct == b.iso_cpu_pct &&
         a.iso_period_s == b.iso_period_s && a.throttle_pct == b.throttle_pct &&
         a.throttle_period_us == b.throttle_period_us;
}

// round_trip: false for a SCHED_DEADLINE target of a zero period (rate 0), which the text form
// refuses (a zero time), as the kernel would.
void check_target(const xrunlab::ThreadTarget& t, bool round_trip) {
  if (t.policy == xrunlab::kSchedFifo || t.policy == xrunlab::kSchedRr) {
    FUZZ_CHECK(t.rt_priority >= 1 && t.rt_priority <= 99);
  }
  FUZZ_CHECK(t.nice >= -20 && t.nice <= 19);
  if (t.policy == xrunlab::kSchedDeadline) {
    FUZZ_CHECK(t.dl_deadline_ns <= t.dl_period_ns);
    if (t.dl_period_ns > 0) FUZZ_CHECK(t.dl_runtime_ns <= t.dl_deadline_ns);
  }
  if (!round_trip) return;
  std::string why;
  const auto back = xrunlab::parse_target(xrunlab::format_target(t), &why);
  FUZZ_CHECK(back.has_value());
  FUZZ_CHECK(*back == t);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = xrunlab::fuzz::text_of(data, size);
  std::string why;
  const auto p = xrunlab::parse_policy(text, &why);
  if (!p) {
    FUZZ_CHECK(!why.empty());
    return 0;
  }
  FUZZ_CHECK(p->text == text);
  FUZZ_CHECK(p->priority >= 1 && p->priority <= 95);
  FUZZ_CHECK(p->nice >= -20 && p->nice <= 19);
  FUZZ_CHECK(p->iso_cpu_pct >= 1 && p->iso_cpu_pct <= 100);
  FUZZ_CHECK(p->iso_period_s >= 0.1 && p->iso_period_s <= 600);
  FUZZ_CHECK(p->dl_runtime_us.has_value() == p->dl_period_us.has_value());
  if (p->dl_runtime_us) {
    FUZZ_CHECK(*p->dl_runtime_us > 0 && *p->dl_runtime_us <= *p->dl_period_us);
  }
  if (p->kind == PolicyKind::kRtThrottle) {
    FUZZ_CHECK(p->throttle_pct >= 1 && p->throttle_pct <= 100);
    FUZZ_CHECK(p->throttle_period_us >= 1000 && p->throttle_period_us <= 1000000);
  }

  const std::string again = canonical(*p);
  std::string why2;
  const auto q = xrunlab::parse_policy(again, &why2);
  if (!q) std::fprintf(stderr, "'%s' does not parse: %s\n", again.c_str(), why2.c_str());
  FUZZ_CHECK(q.has_value());
  FUZZ_CHECK(same(*p, *q));

  FUZZ_CHECK(!xrunlab::describe(*p).empty());
  // The run's frames and rates span these (--period 16..8192 at 22.05..192 kHz); rate 0 is
  // the documented "JACK period of 0".
  for (const uint32_t frames : {16u, 64u, 1024u, 8192u}) {
    for (const uint32_t rate : {0u, 22050u, 48000u, 192000u}) {
      for (const uint64_t dsp_ns : {uint64_t{0}, uint64_t{200000}, ~uint64_t{0}}) {
        const auto t = xrunlab::targets_for(*p, frames, rate, dsp_ns);
        const bool round_trip = rate != 0 || p->dl_period_us.has_value();
        check_target(t.server, round_trip);
        check_target(t.client, round_trip);
      }
    }
  }
  return 0;
}
