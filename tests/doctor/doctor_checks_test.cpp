// SPDX-License-Identifier: GPL-2.0-or-later
// Every check's exact status on each fixture tree (tests/fixtures/doctor/*): a well-tuned RT
// machine, this project's VM, a laptop on powersave with SMT on, an unprivileged container.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "engine/doctor/checks.hpp"
#include "tests/doctor/doctor_fixture.hpp"

namespace xrunlab {
namespace {

using testing_support::DoctorFixture;
using S = CheckStatus;

std::map<std::string, S> statuses(const std::vector<CheckResult>& results) {
  std::map<std::string, S> out;
  for (const CheckResult& r : results) out[r.id] = r.status;
  return out;
}

const CheckResult& find(const std::vector<CheckResult>& results, const std::string& id) {
  for (const CheckResult& r : results) {
    if (r.id == id) return r;
  }
  throw std::runtime_error("no check " + id);
}

std::vector<CheckResult> checks_of(const DoctorFixture& f) {
  return run_checks(collect_snapshot(f.roots(), 70), DoctorTargets{});
}

void expect_statuses(const std::vector<CheckResult>& results,
                     const std::map<std::string, S>& expected) {
  const auto got = statuses(results);
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [id, status] : expected) {
    ASSERT_TRUE(got.count(id)) << id;
    EXPECT_STREQ(status_key(got.at(id)), status_key(status))
        << id << ": " << find(results, id).found;
  }
}

TEST(DoctorChecks, AWellTunedRtMachinePassesEveryCheckThatApplies) {
  DoctorFixture f("rt-tuned");
  f.chmod("dev/cpu_dma_latency", 0666);
  const auto r = checks_of(f);
  expect_statuses(r, {{"audio-group", S::kOk},
                      {"audio-limits", S::kOk},
                      {"rtprio", S::kOk},
                      {"memlock", S::kOk},
                      {"policies", S::kOk},
                      {"cpu-governor", S::kOk},
                      {"smt", S::kOk},
                      {"preempt", S::kOk},
                      {"threadirqs", S::kOk},
                      {"high-res-timers", S::kOk},
                      {"no-hz", S::kOk},
                      {"mitigations", S::kOk},
                      {"swappiness", S::kOk},
                      {"atime", S::kOk},
                      {"cpu-dma-latency", S::kOk},
                      {"rt-throttling", S::kOk},
                      {"cgroup-rt", S::kSkipped},
                      {"rtkit", S::kSkipped},
                      {"sound-cards", S::kOk},
                      {"card-irqs", S::kOk},
                      {"irq-priorities", S::kOk},
                      {"audio-servers", S::kOk},
                      {"card-holders", S::kOk}});
  EXPECT_EQ(worst_status(r), S::kSkipped);  // not applicable is not a failure: exit code 0
  EXPECT_EQ(find(r, "preempt").found, "PREEMPT_RT");
  EXPECT_EQ(find(r, "irq-priorities").found, "irq/32-snd_hda_ (pid 312) SCHED_FIFO 90");
  // deadline needs CAP_SYS_NICE and rt-throttle a cgroup-v1 cpu group: listed, not a fault.
  EXPECT_EQ(find(r, "policies").found,
            "permitted: fifo:70, rr, other:-20, iso-emu; refused: deadline, rt-throttle:50 "
            "(from the limits; no SCHED_FIFO trial)");
}

TEST(DoctorChecks, TheDevelopmentVmLacksTheAudioGroupLimitsAndFullPreemption) {
  DoctorFixture f("vm");
  const auto r = checks_of(f);
  expect_statuses(r, {{"audio-group", S::kOk},
                      {"audio-limits", S::kFail},
                      {"rtprio", S::kOk},
                      {"memlock", S::kOk},
                      {"policies", S::kOk},
                      {"cpu-governor", S::kSkipped},
                      {"smt", S::kSkipped},
                      {"preempt", S::kWarn},
                      {"threadirqs", S::kWarn},
                      {"high-res-timers", S::kOk},
                      {"no-hz", S::kOk},
                      {"mitigations", S::kWarn},
                      {"swappiness", S::kWarn},
                      {"atime", S::kOk},
                      {"cpu-dma-latency", S::kOk},
                      {"rt-throttling", S::kOk},
                      {"cgroup-rt", S::kOk},
                      {"rtkit", S::kSkipped},
                      {"sound-cards", S::kWarn},
                      {"card-irqs", S::kSkipped},
                      {"irq-priorities", S::kSkipped},
                      {"audio-servers", S::kOk},
                      {"card-holders", S::kSkipped}});
  EXPECT_EQ(worst_status(r), S::kFail);
  // Debian's jackd2 ships audio.conf disabled: the fix is to enable it.
  EXPECT_EQ(find(r, "audio-limits").fix,
            "dpkg-reconfigure -p high jackd2 (answer Yes: it enables "
            "/etc/security/limits.d/audio.conf), then log in again");
  EXPECT_EQ(find(r, "preempt").found,
            "PREEMPT_DYNAMIC, preempt=none (the kernel config's default)");
  // "threadirqs" after "--" on the command line is init's argument, not the kernel's.
  EXPECT_EQ(find(r, "threadirqs").found, "threadirqs is not on the kernel command line");
  EXPECT_EQ(find(r, "cgroup-rt").found, "/sys/fs/cgroup/cpu: cpu.rt_runtime_us 950000");
  EXPECT_EQ(find(r, "mitigations").found,
            "4 of 12 active: mds, spec_store_bypass, spectre_v1, spectre_v2");
}

TEST(DoctorChecks, ALaptopOnPowersaveWithSmtOnAndASessionOutsideTheAudioGroup) {
  DoctorFixture f("laptop-powersave");
  f.chmod("dev/cpu_dma_latency", 0600);
  const auto r = checks_of(f);
  expect_statuses(
      r, {{"audio-group", S::kWarn},   {"audio-limits", S::kOk},   {"rtprio", S::kFail},
          {"memlock", S::kWarn},       {"policies", S::kFail},     {"cpu-governor", S::kWarn},
          {"smt", S::kWarn},           {"preempt", S::kOk},        {"threadirqs", S::kOk},
          {"high-res-timers", S::kOk}, {"no-hz", S::kOk},          {"mitigations", S::kOk},
          {"swappiness", S::kWarn},    {"atime", S::kWarn},        {"cpu-dma-latency", S::kWarn},
          {"rt-throttling", S::kOk},   {"cgroup-rt", S::kSkipped}, {"rtkit", S::kWarn},
          {"sound-cards", S::kOk},     {"card-irqs", S::kWarn},    {"irq-priorities", S::kWarn},
          {"audio-servers", S::kOk},   {"card-holders", S::kOk}});
  EXPECT_EQ(worst_status(r), S::kFail);
  EXPECT_EQ(find(r, "cpu-governor").found, "powersave on 8 CPUs");
  EXPECT_EQ(find(r, "preempt").found,
            "PREEMPT_DYNAMIC, preempt=full (preempt= on the command line)");
  // The kernel config came out of /proc/config.gz (gzip).
  EXPECT_EQ(find(r, "high-res-timers").found, "CONFIG_HIGH_RES_TIMERS=y (/proc/config.gz)");
  EXPECT_EQ(find(r, "atime").found, "strict atime on /home");
  EXPECT_EQ(find(r, "rtkit").found, "pid 801: max realtime priority 20, RLIMIT_RTTIME 200 ms");
  EXPECT_EQ(find(r, "card-irqs").found,
            "card 0 [PCH] HDA Intel PCH: irq 16 (i801_smbus, snd_hda_intel:card0) shared with "
            "i801_smbus; card 1 [Device] USB Audio Device: irq 125 (xhci_hcd, its USB "
            "controller)");
  EXPECT_EQ(find(r, "irq-priorities").found,
            "irq/16-s-snd_hd (pid 211) SCHED_FIFO 50 (rtirq: 90), irq/125-xhci_hc (pid 230) "
            "SCHED_FIFO 50 (needs > 70)");
  EXPECT_EQ(find(r, "card-holders").found,
            "pipewire (pid 1402) has /dev/snd/pcmC0D0p (use xrunlab run --backend attach)");
  EXPECT_EQ(find(r, "audio-group").fix,
            "log out and in again (or reboot) so the session gets the audio group");
}

TEST(DoctorChecks, AnUnprivilegedContainerSaysWhatNeedsRootAndWhatIsRefused) {
  DoctorFixture f("container-unprivileged");
  const auto r = checks_of(f);
  expect_statuses(r, {{"audio-group", S::kFail},
                      {"audio-limits", S::kFail},
                      {"rtprio", S::kFail},
                      {"memlock", S::kWarn},
                      {"policies", S::kFail},
                      {"cpu-governor", S::kSkipped},
                      {"smt", S::kSkipped},
                      {"preempt", S::kNeedsRoot},
                      {"threadirqs", S::kWarn},
                      {"high-res-timers", S::kNeedsRoot},
                      {"no-hz", S::kSkipped},
                      {"mitigations", S::kSkipped},
                      {"swappiness", S::kOk},
                      {"atime", S::kSkipped},
                      {"cpu-dma-latency", S::kSkipped},
                      {"rt-throttling", S::kFail},
                      {"cgroup-rt", S::kSkipped},
                      {"rtkit", S::kSkipped},
                      {"sound-cards", S::kWarn},
                      {"card-irqs", S::kSkipped},
                      {"irq-priorities", S::kSkipped},
                      {"audio-servers", S::kOk},
                      {"card-holders", S::kSkipped}});
  // sched_rt_runtime_us 0: the preflight's own line is the fix.
  EXPECT_NE(find(r, "policies").fix.find("sched_rt_runtime_us is 0"), std::string::npos)
      << find(r, "policies").fix;
}

TEST(DoctorChecks, EveryCheckHasAnIdTitleWhyAndAFixWhenItIsNotOk) {
  for (const std::string name : {"rt-tuned", "vm", "laptop-powersave", "container-unprivileged"}) {
    DoctorFixture f(name);
    for (const CheckResult& c : checks_of(f)) {
      EXPECT_FALSE(c.id.empty()) << name;
      EXPECT_FALSE(c.title.empty()) << name << " " << c.id;
      EXPECT_FALSE(c.found.empty()) << name << " " << c.id;
      EXPECT_FALSE(c.why.empty()) << name << " " << c.id;
      if (c.status == S::kWarn || c.status == S::kFail) {
        EXPECT_FALSE(c.fix.empty()) << name << " " << c.id;
      }
    }
  }
}

TEST(DoctorChecks, TheIrqThreadCheckMeasuresAgainstTheGivenJackdPriority) {
  DoctorFixture f("rt-tuned");
  DoctorTargets t;
  t.jackd_priority = 90;  // the card's thread runs at 90: not above
  const auto r = run_checks(collect_snapshot(f.roots(), 90), t);
  EXPECT_EQ(find(r, "irq-priorities").status, S::kWarn);
  t.jackd_priority = 89;
  EXPECT_EQ(find(run_checks(collect_snapshot(f.roots(), 89), t), "irq-priorities").status, S::kOk);
}

TEST(DoctorChecks, TheWorstStatusRanksFailOverWarnOverNeedsRootOverSkipped) {
  auto one = [](S s) {
    return std::vector<CheckResult>{{"a", "A", S::kOk, "", "", ""}, {"b", "B", s, "", "", ""}};
  };
  EXPECT_EQ(worst_status({}), S::kOk);
  EXPECT_EQ(worst_status(one(S::kSkipped)), S::kSkipped);
  EXPECT_EQ(worst_status(one(S::kNeedsRoot)), S::kNeedsRoot);
  EXPECT_EQ(worst_status(one(S::kWarn)), S::kWarn);
  EXPECT_EQ(worst_status(one(S::kFail)), S::kFail);
}

// The checks are pure functions of a snapshot: the cases no fixture tree holds, made directly.
SystemSnapshot base_snapshot() {
  SystemSnapshot s;
  s.euid = 4242;
  s.user = "musician";
  s.rtprio = ResourceLimit{false, 95};
  s.memlock = ResourceLimit{true, 0};
  s.rt_runtime_us = 950000;
  s.rt_period_us = 1000000;
  s.version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.119-1";
  s.release = "6.1.0-28-amd64";
  s.ncpus = 4;
  return s;
}

S status_of(const SystemSnapshot& s, const std::string& id) {
  return find(run_checks(s, DoctorTargets{}), id).status;
}

TEST(DoctorChecksOnSnapshots, CardHoldersNeedRootWhenOtherUsersFdsCannotBeRead) {
  SystemSnapshot s = base_snapshot();
  s.cards = std::vector<AlsaCard>{{0, "PCH", "HDA-Intel", "HDA Intel PCH", "HDA Intel PCH"}};
  s.holders_complete = false;
  EXPECT_EQ(status_of(s, "card-holders"), S::kNeedsRoot);
  s.holders_complete = true;
  EXPECT_EQ(status_of(s, "card-holders"), S::kOk);
  s.pcm_holders = {{777, "audacity", "/dev/snd/pcmC0D0c"}};  // not an audio server
  EXPECT_EQ(status_of(s, "card-holders"), S::kWarn);
}

TEST(DoctorChecksOnSnapshots, ACgroupWithoutRtRuntimeFailsUnlessRtBandwidthIsOff) {
  SystemSnapshot s = base_snapshot();
  s.cgroup_cpu_dir = "/sys/fs/cgroup/cpu,cpuacct/user.slice";
  s.cgroup_rt_runtime_us = 0;
  EXPECT_EQ(status_of(s, "cgroup-rt"), S::kFail);
  EXPECT_EQ(status_of(s, "policies"), S::kFail);  // the preflight refuses fifo there too
  s.rt_runtime_us = -1;  // no RT bandwidth control: the kernel does not refuse
  EXPECT_EQ(status_of(s, "cgroup-rt"), S::kOk);
}

TEST(DoctorChecksOnSnapshots, TheLiveSchedFifoTrialOutranksTheLimits) {
  SystemSnapshot s = base_snapshot();
  s.rt_trial = "";
  EXPECT_EQ(status_of(s, "policies"), S::kOk);
  s.rt_trial = "SCHED_FIFO 70 refused: Operation not permitted";
  const CheckResult r = find(run_checks(s, DoctorTargets{}), "policies");
  EXPECT_EQ(r.status, S::kFail);
  EXPECT_EQ(r.fix, "SCHED_FIFO 70 refused: Operation not permitted");
  EXPECT_EQ(r.found.rfind("permitted: rr", 0), 0u) << r.found;
}

TEST(DoctorChecksOnSnapshots, ThePreemptionModeOfADynamicKernelComesFromDebugfsFirst) {
  SystemSnapshot s = base_snapshot();
  s.cmdline = "preempt=full";
  s.debugfs_preempt = "none (voluntary) full lazy";
  EXPECT_EQ(find(run_checks(s, DoctorTargets{}), "preempt").found,
            "PREEMPT_DYNAMIC, preempt=voluntary (debugfs sched/preempt)");
  EXPECT_EQ(status_of(s, "preempt"), S::kWarn);
  s.debugfs_preempt = "none voluntary full (lazy)";  // RT tasks still preempt at once
  EXPECT_EQ(status_of(s, "preempt"), S::kOk);
  s.debugfs_preempt.reset();
  s.cmdline.clear();
  EXPECT_EQ(status_of(s, "preempt"), S::kNeedsRoot);  // no source at all, not root
  s.euid = 0;
  EXPECT_EQ(status_of(s, "preempt"), S::kWarn);
}

TEST(DoctorChecksOnSnapshots, ThreadirqsIsImpossibleWithoutForcedIrqThreading) {
  SystemSnapshot s = base_snapshot();
  s.kconfig = std::map<std::string, std::string>{{"CONFIG_HIGH_RES_TIMERS", "y"}};
  EXPECT_EQ(status_of(s, "threadirqs"), S::kFail);
  (*s.kconfig)["CONFIG_IRQ_FORCED_THREADING"] = "y";
  EXPECT_EQ(status_of(s, "threadirqs"), S::kWarn);
  s.cmdline = "ro quiet threadirqs";
  EXPECT_EQ(status_of(s, "threadirqs"), S::kOk);
}

TEST(DoctorChecksOnSnapshots, RtkitsLimitsComeFromItsCommandLine) {
  SystemSnapshot s = base_snapshot();
  s.processes = {
      {900,
       "rtkit-daemon",
       0u,
       {"/usr/libexec/rtkit-daemon", "--max-realtime-priority=89", "--rttime-usec-max=2000000"}}};
  const CheckResult r = find(run_checks(s, DoctorTargets{}), "rtkit");
  EXPECT_EQ(r.status, S::kOk);
  EXPECT_EQ(r.found, "pid 900: max realtime priority 89, RLIMIT_RTTIME 2000 ms");
}

TEST(DoctorChecksOnSnapshots, CardsAlsaLibCouldNotOpenAreAWarning) {
  SystemSnapshot s = base_snapshot();
  s.cards = std::vector<AlsaCard>{{0, "PCH", "HDA-Intel", "HDA Intel PCH", "HDA Intel PCH"}};
  s.cards_source = "alsa-lib";
  EXPECT_EQ(status_of(s, "sound-cards"), S::kOk);
  s.cards_note = "alsa-lib could not open 1 of the cards /proc/asound/cards lists";
  EXPECT_EQ(status_of(s, "sound-cards"), S::kWarn);
}

TEST(DoctorChecksOnSnapshots, RtThrottlingFailsAtZeroAndWarnsBelowHalf) {
  SystemSnapshot s = base_snapshot();
  s.rt_runtime_us = 0;
  EXPECT_EQ(status_of(s, "rt-throttling"), S::kFail);
  s.rt_runtime_us = 400000;
  EXPECT_EQ(status_of(s, "rt-throttling"), S::kWarn);
  s.rt_runtime_us = -1;
  EXPECT_EQ(status_of(s, "rt-throttling"), S::kOk);
}

}  // namespace
}  // namespace xrunlab
