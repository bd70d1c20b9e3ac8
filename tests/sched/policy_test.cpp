// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/sched/policy.hpp"

#include <gtest/gtest.h>

#include <string>

#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

PolicySpec ok(const std::string& text) {
  std::string why;
  const auto p = parse_policy(text, &why);
  EXPECT_TRUE(p.has_value()) << text << ": " << why;
  return p.value_or(PolicySpec{});
}

// The error for `text`: parsing fails, the message is one line and mentions every `parts`.
std::string rejected(const std::string& text) {
  std::string why;
  const auto p = parse_policy(text, &why);
  EXPECT_FALSE(p.has_value()) << text;
  EXPECT_FALSE(why.empty()) << text;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  return why;
}

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << (haystack)

// ---- accepted forms and defaults -----------------------------------------------------------

TEST(ParsePolicy, FifoDefaultsTo70AndKeepsText) {
  const PolicySpec p = ok("fifo");
  EXPECT_EQ(p.kind, PolicyKind::kFifo);
  EXPECT_EQ(p.priority, 70);
  EXPECT_EQ(p.text, "fifo");
}

TEST(ParsePolicy, FifoAndRrPriorityRange) {
  EXPECT_EQ(ok("fifo:80").priority, 80);
  EXPECT_EQ(ok("fifo:6").priority, 6);
  EXPECT_EQ(ok("fifo:95").priority, 95);
  const PolicySpec rr = ok("rr:42");
  EXPECT_EQ(rr.kind, PolicyKind::kRr);
  EXPECT_EQ(rr.priority, 42);
  EXPECT_EQ(rr.text, "rr:42");
  EXPECT_EQ(ok("rr").priority, 70);
}

TEST(ParsePolicy, OtherAndBatchNice) {
  const PolicySpec o = ok("other");
  EXPECT_EQ(o.kind, PolicyKind::kOther);
  EXPECT_EQ(o.nice, 0);
  EXPECT_EQ(ok("other:-20").nice, -20);
  EXPECT_EQ(ok("other:19").nice, 19);
  EXPECT_EQ(ok("other:+5").nice, 5);
  EXPECT_EQ(ok("other:0").nice, 0);
  const PolicySpec b = ok("batch:-5");
  EXPECT_EQ(b.kind, PolicyKind::kBatch);
  EXPECT_EQ(b.nice, -5);
  EXPECT_EQ(ok("batch").nice, 0);
}

TEST(ParsePolicy, Idle) {
  EXPECT_EQ(ok("idle").kind, PolicyKind::kIdle);
}

TEST(ParsePolicy, DeadlineForms) {
  const PolicySpec d = ok("deadline");
  EXPECT_EQ(d.kind, PolicyKind::kDeadline);
  EXPECT_FALSE(d.dl_runtime_us.has_value());
  EXPECT_FALSE(d.dl_period_us.has_value());
  EXPECT_FALSE(d.dl_reclaim);

  const PolicySpec r = ok("deadline:reclaim");
  EXPECT_FALSE(r.dl_runtime_us.has_value());
  EXPECT_TRUE(r.dl_reclaim);

  const PolicySpec g = ok("deadline:500,1333");
  EXPECT_EQ(g.dl_runtime_us, 500u);
  EXPECT_EQ(g.dl_period_us, 1333u);
  EXPECT_FALSE(g.dl_reclaim);

  const PolicySpec gr = ok("deadline:500,1333,reclaim");
  EXPECT_EQ(gr.dl_runtime_us, 500u);
  EXPECT_EQ(gr.dl_period_us, 1333u);
  EXPECT_TRUE(gr.dl_reclaim);

  EXPECT_EQ(ok("deadline:1000,1000").dl_runtime_us, 1000u);  // runtime == period is allowed
}

TEST(ParsePolicy, IsoForms) {
  const PolicySpec i = ok("iso");
  EXPECT_EQ(i.kind, PolicyKind::kIso);
  EXPECT_DOUBLE_EQ(i.iso_cpu_pct, 70);
  EXPECT_DOUBLE_EQ(ok("iso:50").iso_cpu_pct, 50);
  EXPECT_DOUBLE_EQ(ok("iso:12.5").iso_cpu_pct, 12.5);
  EXPECT_DOUBLE_EQ(ok("iso:100").iso_cpu_pct, 100);
  EXPECT_DOUBLE_EQ(ok("iso:1").iso_cpu_pct, 1);
}

TEST(ParsePolicy, IsoEmuForms) {
  const PolicySpec e = ok("iso-emu");
  EXPECT_EQ(e.kind, PolicyKind::kIsoEmu);
  EXPECT_DOUBLE_EQ(e.iso_cpu_pct, 70);
  EXPECT_DOUBLE_EQ(e.iso_period_s, 5);
  EXPECT_EQ(e.priority, kIsoEmuServerPriority);

  const PolicySpec c = ok("iso-emu:50");
  EXPECT_DOUBLE_EQ(c.iso_cpu_pct, 50);
  EXPECT_DOUBLE_EQ(c.iso_period_s, 5);

  const PolicySpec cp = ok("iso-emu:20,0.5");
  EXPECT_DOUBLE_EQ(cp.iso_cpu_pct, 20);
  EXPECT_DOUBLE_EQ(cp.iso_period_s, 0.5);

  EXPECT_DOUBLE_EQ(ok("iso-emu:1,0.1").iso_period_s, 0.1);
  EXPECT_DOUBLE_EQ(ok("iso-emu:100,600").iso_period_s, 600);
}

TEST(ParsePolicy, RtThrottleForms) {
  const PolicySpec t = ok("rt-throttle:50");
  EXPECT_EQ(t.kind, PolicyKind::kRtThrottle);
  EXPECT_DOUBLE_EQ(t.throttle_pct, 50);
  EXPECT_EQ(t.throttle_period_us, 1000000u);
  EXPECT_EQ(t.priority, 70);

  const PolicySpec tp = ok("rt-throttle:12.5,100000");
  EXPECT_DOUBLE_EQ(tp.throttle_pct, 12.5);
  EXPECT_EQ(tp.throttle_period_us, 100000u);
  EXPECT_EQ(ok("rt-throttle:100,1000").throttle_period_us, 1000u);
  EXPECT_EQ(ok("rt-throttle:1,1000000").throttle_period_us, 1000000u);
}

TEST(ParsePolicy, NullWhyIsAllowed) {
  EXPECT_FALSE(parse_policy("bogus", nullptr).has_value());
  EXPECT_TRUE(parse_policy("fifo", nullptr).has_value());
}

// ---- rejections: one line, the part at fault, the accepted form ---------------------------

TEST(ParsePolicyErrors, EmptyAndUnknownListEveryForm) {
  const std::string e = rejected("");
  EXPECT_HAS(e, "empty policy");
  EXPECT_HAS(e, "rt-throttle:PCT[,PERIOD_US]");

  const std::string u = rejected("fofo:70");
  EXPECT_HAS(u, "unknown policy 'fofo'");
  EXPECT_HAS(u, "fifo[:PRIO]");
  EXPECT_HAS(u, "iso-emu[:ISO_CPU[,ISO_PERIOD_S]]");
  EXPECT_HAS(u, "deadline[:RUNTIME_US,PERIOD_US][,reclaim]");

  EXPECT_HAS(rejected("FIFO"), "lower case ('fifo')");
  EXPECT_HAS(rejected(" fifo"), "unknown policy ' fifo'");
  EXPECT_HAS(rejected("iso_emu"), "unknown policy 'iso_emu'");
}

TEST(ParsePolicyErrors, EmptyValues) {
  const std::string e = rejected("fifo:");
  EXPECT_HAS(e, "nothing after 'fifo:'");
  EXPECT_HAS(e, "use fifo[:PRIO]");
  EXPECT_HAS(rejected("iso-emu:50,"), "value 2 after 'iso-emu:' is empty");
  EXPECT_HAS(rejected("deadline:,1000"), "value 1 after 'deadline:' is empty");
}

TEST(ParsePolicyErrors, Priority) {
  const std::string hi = rejected("fifo:96");
  EXPECT_HAS(hi, "priority 96 is out of range 6..95");
  EXPECT_HAS(hi, "use fifo[:PRIO] with PRIO an integer 6..95 (default 70)");
  EXPECT_HAS(rejected("rr:5"), "priority 5 is out of range 6..95; use rr[:PRIO]");
  EXPECT_HAS(rejected("fifo:abc"), "priority 'abc' is not an integer");
  EXPECT_HAS(rejected("fifo:-70"), "priority -70 is out of range");
  EXPECT_HAS(rejected("fifo:70.5"), "priority '70.5' is not an integer");
  EXPECT_HAS(rejected("fifo:70,5"), "fifo takes at most 1 value, got 2");
}

TEST(ParsePolicyErrors, NiceTrapSaysOneSignedNumber) {
  for (const char* spec : {"other:--20", "other:+-3", "other:-+3", "other:++3"}) {
    const std::string e = rejected(spec);
    EXPECT_HAS(e, "is not one signed number");
    EXPECT_HAS(e, "one signed integer -20..19");
    EXPECT_HAS(e, "other:-20");
    EXPECT_HAS(e, "'nice --20' means nice -20");
  }
  EXPECT_HAS(rejected("batch:--20"), "e.g. batch:-20");
  EXPECT_HAS(rejected("other:--20"), "nice value '--20'");
}

TEST(ParsePolicyErrors, NiceValue) {
  const std::string lo = rejected("other:-21");
  EXPECT_HAS(lo, "nice value -21 is out of range -20..19");
  EXPECT_HAS(lo, "use other[:NICE] with NICE one signed integer -20..19 (default 0)");
  EXPECT_HAS(rejected("batch:20"), "nice value 20 is out of range -20..19; use batch[:NICE]");
  EXPECT_HAS(rejected("other:abc"), "nice value 'abc' is not one signed integer");
  EXPECT_HAS(rejected("other:-"), "nice value '-' is not one signed integer");
  EXPECT_HAS(rejected("other:+"), "nice value '+' is not one signed integer");
  EXPECT_HAS(rejected("other:1.5"), "nice value '1.5' is not one signed integer");
  EXPECT_HAS(rejected("other:-20x"), "nice value '-20x'");
  EXPECT_HAS(rejected("other:-20,1"), "other takes at most 1 value, got 2");
}

TEST(ParsePolicyErrors, Idle) {
  const std::string e = rejected("idle:1");
  EXPECT_HAS(e, "idle takes no value");
  EXPECT_HAS(e, "use idle");
}

TEST(ParsePolicyErrors, Deadline) {
  const std::string one = rejected("deadline:500");
  EXPECT_HAS(one, "needs both RUNTIME_US and PERIOD_US");
  EXPECT_HAS(one, "use deadline[:RUNTIME_US,PERIOD_US][,reclaim]");
  EXPECT_HAS(rejected("deadline:500,reclaim"), "needs both RUNTIME_US and PERIOD_US");
  EXPECT_HAS(rejected("deadline:0,1000"), "RUNTIME_US must be more than 0");
  EXPECT_HAS(rejected("deadline:2000,1000"), "RUNTIME_US 2000 is more than PERIOD_US 1000");
  EXPECT_HAS(rejected("deadline:500,0"), "RUNTIME_US 500 is more than PERIOD_US 0");
  EXPECT_HAS(rejected("deadline:reclaim,500,1000"), "'reclaim' must come last");
  EXPECT_HAS(rejected("deadline:500,1000,5"), "deadline takes two times, got 3");
  EXPECT_HAS(rejected("deadline:-5,1000"), "RUNTIME_US '-5' is not a whole number");
  EXPECT_HAS(rejected("deadline:5.5,1000"), "RUNTIME_US '5.5' is not a whole number");
  EXPECT_HAS(rejected("deadline:500,1ms"), "PERIOD_US '1ms' is not a whole number");
  EXPECT_HAS(rejected("deadline:1,99999999999999999"), "PERIOD_US 99999999999999999 is too large");
  EXPECT_HAS(rejected("deadline:1,999999999999999999999"), "PERIOD_US '999999999999999999999'");
  EXPECT_HAS(rejected("deadline:reclaim,reclaim"), "'reclaim' must come last");
}

TEST(ParsePolicyErrors, Iso) {
  const std::string z = rejected("iso:0");
  EXPECT_HAS(z, "ISO_CPU 0 is out of range 1..100");
  EXPECT_HAS(z, "use iso[:ISO_CPU] with ISO_CPU a percentage 1..100 (default 70)");
  EXPECT_HAS(rejected("iso:101"), "ISO_CPU 101 is out of range");
  EXPECT_HAS(rejected("iso:70%"), "ISO_CPU '70%' is not a number");
  EXPECT_HAS(rejected("iso:50,5"), "iso takes at most 1 value, got 2");
}

TEST(ParsePolicyErrors, IsoEmu) {
  const std::string p = rejected("iso-emu:50,0.05");
  EXPECT_HAS(p, "ISO_PERIOD_S 0.05 is out of range 0.1..600");
  EXPECT_HAS(p, "use iso-emu[:ISO_CPU[,ISO_PERIOD_S]]");
  EXPECT_HAS(rejected("iso-emu:50,601"), "ISO_PERIOD_S 601 is out of range");
  EXPECT_HAS(rejected("iso-emu:0.5"), "ISO_CPU 0.5 is out of range 1..100");
  EXPECT_HAS(rejected("iso-emu:1e2"), "ISO_CPU '1e2' is not a number");
  EXPECT_HAS(rejected("iso-emu:nan"), "ISO_CPU 'nan' is not a number");
  EXPECT_HAS(rejected("iso-emu:inf"), "ISO_CPU 'inf' is not a number");
  EXPECT_HAS(rejected("iso-emu:-5"), "ISO_CPU '-5' is not a number");
  EXPECT_HAS(rejected("iso-emu:50,5,1"), "iso-emu takes at most 2 values, got 3");
}

TEST(ParsePolicyErrors, RtThrottle) {
  const std::string n = rejected("rt-throttle");
  EXPECT_HAS(n, "rt-throttle needs PCT");
  EXPECT_HAS(n, "use rt-throttle:PCT[,PERIOD_US] with PCT a percentage 1..100 (required)");
  EXPECT_HAS(rejected("rt-throttle:"), "nothing after 'rt-throttle:'");
  EXPECT_HAS(rejected("rt-throttle:0"), "PCT 0 is out of range 1..100");
  EXPECT_HAS(rejected("rt-throttle:50,999"), "PERIOD_US 999 is out of range 1000..1000000");
  EXPECT_HAS(rejected("rt-throttle:50,1000001"), "PERIOD_US 1000001 is out of range");
  EXPECT_HAS(rejected("rt-throttle:50,abc"), "PERIOD_US 'abc' is not a whole number");
  EXPECT_HAS(rejected("rt-throttle:50,1000,1"), "rt-throttle takes at most 2 values, got 3");
}

// ---- describe ------------------------------------------------------------------------------

TEST(DescribePolicy, Texts) {
  EXPECT_EQ(describe(ok("fifo")), "SCHED_FIFO 70 (server) / 65 (clients)");
  EXPECT_EQ(describe(ok("rr:80")), "SCHED_RR 80 (server) / 75 (clients)");
  EXPECT_EQ(describe(ok("other:-20")), "SCHED_OTHER nice -20");
  EXPECT_EQ(describe(ok("other")), "SCHED_OTHER nice 0");
  EXPECT_EQ(describe(ok("other:19")), "SCHED_OTHER nice +19");
  EXPECT_EQ(describe(ok("batch:5")), "SCHED_BATCH nice +5");
  EXPECT_EQ(describe(ok("idle")), "SCHED_IDLE");
  EXPECT_EQ(describe(ok("deadline")),
            "SCHED_DEADLINE, period = JACK period, runtime from the DSP load");
  EXPECT_EQ(describe(ok("deadline:reclaim")),
            "SCHED_DEADLINE, period = JACK period, runtime from the DSP load, reclaim "
            "(SCHED_FLAG_RECLAIM)");
  EXPECT_EQ(describe(ok("deadline:300,1333,reclaim")),
            "SCHED_DEADLINE runtime 300 us, period 1333 us, reclaim (SCHED_FLAG_RECLAIM)");
  EXPECT_EQ(describe(ok("iso")), "SCHED_ISO (kernel policy 4), iso_cpu 70%");
  EXPECT_EQ(describe(ok("rt-throttle:50")),
            "SCHED_FIFO 70 (server) / 65 (clients) in a cgroup-v1 RT group limited to 50% "
            "(500000 us per 1000000 us)");
  EXPECT_EQ(describe(ok("rt-throttle:12.5,100000")),
            "SCHED_FIFO 70 (server) / 65 (clients) in a cgroup-v1 RT group limited to 12.5% "
            "(12500 us per 100000 us)");
}

TEST(DescribePolicy, IsoEmuIsAlwaysLabelledEmulated) {
  EXPECT_EQ(describe(ok("iso-emu")),
            "EMULATED SCHED_ISO (user-space governor), iso_cpu 70%, iso_period 5 s");
  EXPECT_EQ(describe(ok("iso-emu:20,0.5")),
            "EMULATED SCHED_ISO (user-space governor), iso_cpu 20%, iso_period 0.5 s");
  EXPECT_EQ(describe(ok("iso-emu")).rfind("EMULATED ", 0), 0u);
}

// ---- targets_for ---------------------------------------------------------------------------

ThreadTarget rt(int policy, int prio) {
  ThreadTarget t;
  t.policy = policy;
  t.rt_priority = prio;
  return t;
}

ThreadTarget fair(int policy, int nice) {
  ThreadTarget t;
  t.policy = policy;
  t.nice = nice;
  return t;
}

ThreadTarget dl(uint64_t runtime, uint64_t period, uint64_t flags = 0) {
  ThreadTarget t;
  t.policy = kSchedDeadline;
  t.dl_runtime_ns = runtime;
  t.dl_deadline_ns = period;
  t.dl_period_ns = period;
  t.dl_flags = flags;
  return t;
}

TEST(TargetsFor, FifoRrClientsFiveBelow) {
  PolicyTargets t = targets_for(ok("fifo"), 256, 48000, 100'000);
  EXPECT_EQ(t.server, rt(kSchedFifo, 70));
  EXPECT_EQ(t.client, rt(kSchedFifo, 65));
  t = targets_for(ok("rr:6"), 256, 48000, 100'000);
  EXPECT_EQ(t.server, rt(kSchedRr, 6));
  EXPECT_EQ(t.client, rt(kSchedRr, 1));
}

TEST(TargetsFor, RtThrottleIsFifoAtThePriority) {
  PolicySpec p = ok("rt-throttle:50");
  p.priority = 80;
  const PolicyTargets t = targets_for(p, 256, 48000, 0);
  EXPECT_EQ(t.server, rt(kSchedFifo, 80));
  EXPECT_EQ(t.client, rt(kSchedFifo, 75));
}

TEST(TargetsFor, FairClasses) {
  PolicyTargets t = targets_for(ok("other:-20"), 256, 48000, 0);
  EXPECT_EQ(t.server, fair(kSchedOther, -20));
  EXPECT_EQ(t.client, fair(kSchedOther, -20));
  t = targets_for(ok("batch:7"), 256, 48000, 0);
  EXPECT_EQ(t.server, fair(kSchedBatch, 7));
  EXPECT_EQ(t.client, fair(kSchedBatch, 7));
  t = targets_for(ok("idle"), 256, 48000, 0);
  EXPECT_EQ(t.server, fair(kSchedIdle, 0));
  EXPECT_EQ(t.client, fair(kSchedIdle, 0));
}

TEST(TargetsFor, IsoAndIsoEmu) {
  PolicyTargets t = targets_for(ok("iso:50"), 256, 48000, 0);
  EXPECT_EQ(t.server, fair(kSchedIso, 0));
  EXPECT_EQ(t.client, fair(kSchedIso, 0));
  t = targets_for(ok("iso-emu:50,2"), 256, 48000, 0);
  EXPECT_EQ(t.server, rt(kSchedFifo, 2));
  EXPECT_EQ(t.client, rt(kSchedFifo, 1));
  EXPECT_GT(t.server.rt_priority, t.client.rt_priority);
}

TEST(TargetsFor, DeadlineDefaultsFromJackPeriod) {
  // 256 frames at 48 kHz: period 5333333 ns. Client: 2 x 100 us + 50 us = 250 us.
  // Server: period / 10 = 533333 ns.
  PolicyTargets t = targets_for(ok("deadline"), 256, 48000, 100'000);
  EXPECT_EQ(t.client, dl(250'000, 5'333'333));
  EXPECT_EQ(t.server, dl(533'333, 5'333'333));

  // Tiny DSP load: both floors of 100 us apply (64 frames: period / 10 = 133333 ns > floor).
  t = targets_for(ok("deadline"), 64, 48000, 10'000);
  EXPECT_EQ(t.client, dl(100'000, 1'333'333));
  EXPECT_EQ(t.server, dl(133'333, 1'333'333));
  t = targets_for(ok("deadline"), 32, 48000, 0);
  EXPECT_EQ(t.server, dl(100'000, 666'666));

  // Heavy DSP load: capped at 95% of the period (1333333 x 0.95 = 1266666).
  t = targets_for(ok("deadline"), 64, 48000, 600'000);
  EXPECT_EQ(t.client.dl_runtime_ns, 1'250'000u);
  t = targets_for(ok("deadline"), 64, 48000, 700'000);
  EXPECT_EQ(t.client.dl_runtime_ns, 1'266'666u);

  // A period shorter than the floor: 16 frames at 192 kHz = 83333 ns, cap 79166 ns.
  t = targets_for(ok("deadline"), 16, 192000, 0);
  EXPECT_EQ(t.server, dl(79'166, 83'333));
  EXPECT_EQ(t.client, dl(79'166, 83'333));

  // Absurd DSP values saturate instead of wrapping.
  t = targets_for(ok("deadline"), 256, 48000, UINT64_MAX / 2 + 1);
  EXPECT_EQ(t.client.dl_runtime_ns, 5'066'666u);

  // rate 0: no period to derive from.
  t = targets_for(ok("deadline"), 256, 0, 0);
  EXPECT_EQ(t.client.dl_period_ns, 0u);
}

TEST(TargetsFor, DeadlineGivenValuesAndReclaim) {
  PolicyTargets t = targets_for(ok("deadline:300,1000"), 256, 48000, 100'000);
  EXPECT_EQ(t.server, dl(300'000, 1'000'000));
  EXPECT_EQ(t.client, dl(300'000, 1'000'000));
  t = targets_for(ok("deadline:300,1000,reclaim"), 256, 48000, 100'000);
  EXPECT_EQ(t.server, dl(300'000, 1'000'000, kSchedFlagReclaim));
  EXPECT_EQ(t.client, dl(300'000, 1'000'000, kSchedFlagReclaim));
  t = targets_for(ok("deadline:reclaim"), 256, 48000, 100'000);
  EXPECT_EQ(t.client, dl(250'000, 5'333'333, kSchedFlagReclaim));
  EXPECT_EQ(t.server, dl(533'333, 5'333'333, kSchedFlagReclaim));
}

// --help shows every form the parser accepts: the forms its own error message lists.
TEST(PolicyHelp, ShowsEveryFormTheParserKnows) {
  std::string why;
  ASSERT_FALSE(parse_policy("bogus", &why));
  const std::string prefix = "unknown policy 'bogus'; use one of ";
  ASSERT_EQ(why.rfind(prefix, 0), 0u) << why;
  const std::string help = policy_help();
  size_t forms = 0;
  for (std::string_view form : split(std::string_view(why).substr(prefix.size()), ',')) {
    form = trim(form);
    if (form == "reclaim]") continue;  // the tail of deadline[:RUNTIME_US,PERIOD_US][,reclaim]
    EXPECT_NE(help.find(std::string(form)), std::string::npos) << form;
    ++forms;
  }
  EXPECT_GE(forms, 9u);
  EXPECT_EQ(help.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
