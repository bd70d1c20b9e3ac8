// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/card_irqs.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <future>
#include <string>
#include <thread>
#include <vector>

#include "engine/backend/alsa_cards.hpp"
#include "engine/wire/sched_target.hpp"
#include "tests/support/alsa_proc_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::cards_of;
using testing_support::kDesktopCards;
using testing_support::kDesktopInterrupts;
using testing_support::kLaptopCards;
using testing_support::kLaptopInterrupts;
using testing_support::kOldPcCards;
using testing_support::kOldPcInterrupts;
using testing_support::kPiCards;
using testing_support::kPiInterrupts;
using testing_support::kRtTasks;
using testing_support::kSoftwareCards;
using testing_support::TempDir;

// ---------------------------------------------------------------------------------------------
// /proc/interrupts

const IrqLine* find_irq(const std::vector<IrqLine>& lines, int irq) {
  for (const IrqLine& l : lines) {
    if (l.irq == irq) return &l;
  }
  return nullptr;
}

TEST(ParseInterrupts, DesktopExactValues) {
  const auto lines = parse_interrupts(kDesktopInterrupts);
  ASSERT_EQ(lines.size(), 10u);  // NMI, LOC, ERR, MIS skipped
  const IrqLine* hda = find_irq(lines, 32);
  ASSERT_NE(hda, nullptr);
  EXPECT_EQ(hda->count, 12u + 6789u);
  EXPECT_EQ(hda->chip, "IR-PCI-MSI 514048-edge");
  EXPECT_EQ(hda->action, "snd_hda_intel:card0");

  const IrqLine* xhci = find_irq(lines, 26);
  ASSERT_NE(xhci, nullptr);
  EXPECT_EQ(xhci->count, 102345u + 57u);
  EXPECT_EQ(xhci->action, "xhci_hcd");

  const IrqLine* timer = find_irq(lines, 0);
  ASSERT_NE(timer, nullptr);
  EXPECT_EQ(timer->chip, "IO-APIC   2-edge");
  EXPECT_EQ(timer->action, "timer");

  const IrqLine* unused = find_irq(lines, 25);  // allocated, no handler
  ASSERT_NE(unused, nullptr);
  EXPECT_EQ(unused->action, "");
  EXPECT_EQ(unused->chip, "IR-PCI-MSI 458752-edge");
}

TEST(ParseInterrupts, OldKernelSharedLineAndArm) {
  const auto old = parse_interrupts(kOldPcInterrupts);
  ASSERT_EQ(old.size(), 4u);
  EXPECT_EQ(old[2].irq, 18);
  EXPECT_EQ(old[2].count, 2356u);
  EXPECT_EQ(old[2].chip, "IO-APIC-fasteoi");
  EXPECT_EQ(old[2].action, "uhci_hcd:usb4, snd_emu10k1");
  EXPECT_EQ(old[3].action, "");  // IRQ 19: no handler left
  EXPECT_EQ(split_irq_actions(old[2].action),
            (std::vector<std::string>{"uhci_hcd:usb4", "snd_emu10k1"}));

  const auto pi = parse_interrupts(kPiInterrupts);
  ASSERT_EQ(pi.size(), 3u);
  EXPECT_EQ(pi[0].count, 453456u);
  EXPECT_EQ(pi[0].action, "arch_timer");
  EXPECT_EQ(pi[1].action, "");  // "GICv2  35 Level": no handler
  EXPECT_EQ(pi[2].action, "dwc_otg, dwc_otg_pcd, dwc_otg_hcd:usb1");
}

TEST(ReadInterrupts, FakeProcRootAndMissingFile) {
  TempDir root;
  EXPECT_FALSE(read_interrupts(root.str()).has_value());
  root.write("interrupts", kLaptopInterrupts);
  const auto lines = read_interrupts(root.str());
  ASSERT_TRUE(lines.has_value());
  ASSERT_EQ(lines->size(), 4u);
  EXPECT_EQ((*lines)[3].irq, 130);
  EXPECT_EQ((*lines)[3].count, 9512u);
  EXPECT_EQ((*lines)[3].chip, "IR-PCI-MSI-0000:00:1f.3    0-edge");
}

// ---------------------------------------------------------------------------------------------
// The card's interrupts

std::vector<int> irq_numbers(const std::vector<IrqLine>& lines) {
  std::vector<int> out;
  for (const IrqLine& l : lines) out.push_back(l.irq);
  return out;
}

TEST(CardIrqs, HdaIntelByLongNameAndHandler) {
  const auto cards = cards_of(kDesktopCards);
  const auto all = parse_interrupts(kDesktopInterrupts);
  const auto pch = card_irqs(cards[0], all);
  ASSERT_EQ(irq_numbers(pch), std::vector<int>{32});
  EXPECT_EQ(pch[0].card_actions, std::vector<std::string>{"snd_hda_intel:card0"});
  EXPECT_NE(pch[0].matched_by.find("irq 32"), std::string::npos) << pch[0].matched_by;
  EXPECT_NE(pch[0].matched_by.find("snd_hda_intel:card0"), std::string::npos);

  // The HDMI card: same driver, its own ":card1" line; never card 0's line.
  const auto hdmi = card_irqs(cards[1], all);
  ASSERT_EQ(irq_numbers(hdmi), std::vector<int>{17});
  EXPECT_EQ(hdmi[0].count, 1034u);
}

TEST(CardIrqs, HandlerWithoutCardSuffixAndNoLongNameIrq) {
  const AlsaCard card{0, "Intel", "HDA-Intel", "HDA Intel", "HDA Intel at 0xfebf8000"};
  const auto all = parse_interrupts(
      "           CPU0\n"
      " 22:     100000   PCI-MSI-edge      snd_hda_intel\n"
      " 23:         10   PCI-MSI-edge      eth0\n");
  const auto irqs = card_irqs(card, all);
  ASSERT_EQ(irq_numbers(irqs), std::vector<int>{22});
  EXPECT_EQ(irqs[0].card_actions, std::vector<std::string>{"snd_hda_intel"});
}

TEST(CardIrqs, SharedLegacyLineKeepsOnlyTheCardsHandler) {
  const auto card = cards_of(kOldPcCards)[0];
  const auto irqs = card_irqs(card, parse_interrupts(kOldPcInterrupts));
  ASSERT_EQ(irq_numbers(irqs), std::vector<int>{18});
  EXPECT_EQ(irqs[0].action, "uhci_hcd:usb4, snd_emu10k1");
  EXPECT_EQ(irqs[0].card_actions, std::vector<std::string>{"snd_emu10k1"});
}

TEST(CardIrqs, UsbCardGetsItsControllerFromTheMsiHwirq) {
  const auto usb = cards_of(kDesktopCards)[2];
  const auto irqs = card_irqs(usb, parse_interrupts(kDesktopInterrupts));
  ASSERT_EQ(irq_numbers(irqs), std::vector<int>{26});
  EXPECT_EQ(irqs[0].card_actions, std::vector<std::string>{"xhci_hcd"});
  EXPECT_NE(irqs[0].matched_by.find("USB host controller at 0000:00:14.0"), std::string::npos)
      << irqs[0].matched_by;
}

TEST(CardIrqs, UsbCardPicksTheRightOfTwoControllers) {
  const auto usb = cards_of(kLaptopCards)[1];
  const auto irqs = card_irqs(usb, parse_interrupts(kLaptopInterrupts));
  ASSERT_EQ(irq_numbers(irqs), std::vector<int>{128});
  EXPECT_EQ(irqs[0].count, 200100u);
  EXPECT_NE(irqs[0].matched_by.find("0000:3c:00.0"), std::string::npos);

  const auto pch = card_irqs(cards_of(kLaptopCards)[0], parse_interrupts(kLaptopInterrupts));
  EXPECT_EQ(irq_numbers(pch), std::vector<int>{130});
}

TEST(CardIrqs, UsbCardWithoutAddressFallsBackToEveryHostController) {
  const auto cards = cards_of(kPiCards);
  const auto irqs = card_irqs(cards[1], parse_interrupts(kPiInterrupts));
  ASSERT_EQ(irq_numbers(irqs), std::vector<int>{56});
  EXPECT_EQ(irqs[0].card_actions,
            (std::vector<std::string>{"dwc_otg", "dwc_otg_pcd", "dwc_otg_hcd:usb1"}));
  EXPECT_NE(irqs[0].matched_by.find("does not tell which one"), std::string::npos);
  // The on-board bcm2835 audio has no interrupt line of its own here.
  EXPECT_TRUE(card_irqs(cards[0], parse_interrupts(kPiInterrupts)).empty());
}

TEST(CardIrqs, SoftwareCardsHaveNone) {
  const auto all = parse_interrupts(kDesktopInterrupts);
  for (const AlsaCard& c : cards_of(kSoftwareCards)) EXPECT_TRUE(card_irqs(c, all).empty());
}

// ---------------------------------------------------------------------------------------------
// Interrupt threads

TEST(IrqThreadComm, FullTruncatedAndSecondary) {
  auto t = parse_irq_thread_comm(145, "irq/32-snd_hda_");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->pid, 145);
  EXPECT_EQ(t->irq, 32);
  EXPECT_EQ(t->name, "snd_hda_");
  EXPECT_EQ(t->comm, "irq/32-snd_hda_");

  t = parse_irq_thread_comm(300, "irq/130-snd_hda_intel:card0\n");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->irq, 130);
  EXPECT_EQ(t->name, "snd_hda_intel:card0");

  t = parse_irq_thread_comm(91, "irq/18-s-snd_emu");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->name, "snd_emu");

  EXPECT_FALSE(parse_irq_thread_comm(1, "kworker/0:1").has_value());
  EXPECT_FALSE(parse_irq_thread_comm(1, "irq_work/0").has_value());
  EXPECT_FALSE(parse_irq_thread_comm(1, "irq/x-foo").has_value());
  EXPECT_FALSE(parse_irq_thread_comm(1, "ksoftirqd/0").has_value());
}

std::vector<pid_t> pids_of(const std::vector<IrqThread>& threads) {
  std::vector<pid_t> out;
  for (const IrqThread& t : threads) out.push_back(t.pid);
  return out;
}

TEST(IrqThreadsFor, TruncatedCommsMatchTheirHandler) {
  EXPECT_EQ(pids_of(irq_threads_for(kRtTasks, 32, {"snd_hda_intel:card0"})),
            (std::vector<pid_t>{145, 150}));
  EXPECT_EQ(pids_of(irq_threads_for(kRtTasks, 18, {"snd_emu10k1"})), std::vector<pid_t>{91});
  EXPECT_EQ(pids_of(irq_threads_for(kRtTasks, 18)), (std::vector<pid_t>{90, 91}));
  EXPECT_TRUE(irq_threads_for(kRtTasks, 17).empty());
  EXPECT_TRUE(irq_threads_for(kRtTasks, 32, {"i801_smbus"}).empty());
}

TEST(IrqThreadsFor, NonRtKernelHasNoneAndThatIsNotAnError) {
  const std::vector<TaskComm> tasks = {{1, "systemd"}, {12, "ksoftirqd/0"}, {13, "rcu_preempt"}};
  EXPECT_TRUE(irq_threads_for(tasks, 32).empty());
  const auto card = cards_of(kDesktopCards)[0];
  EXPECT_TRUE(
      card_irq_threads(tasks, card_irqs(card, parse_interrupts(kDesktopInterrupts))).empty());
}

TEST(CardIrqThreads, UsbControllerThread) {
  const auto usb = cards_of(kDesktopCards)[2];
  const auto threads =
      card_irq_threads(kRtTasks, card_irqs(usb, parse_interrupts(kDesktopInterrupts)));
  ASSERT_EQ(pids_of(threads), std::vector<pid_t>{140});
  EXPECT_EQ(threads[0].irq, 26);
  EXPECT_EQ(threads[0].comm, "irq/26-xhci_hcd");
}

TEST(ReadTaskComms, FakeProcRoot) {
  TempDir root;
  root.write("1/comm", "systemd\n");
  root.write("145/comm", "irq/32-snd_hda_\n");
  root.write("sys/kernel/foo", "x\n");
  root.write("77/status", "Name:\tgone\n");  // no comm: skipped
  root.link("self", "145");
  const auto tasks = read_task_comms(root.str());
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[0].pid, 1);
  EXPECT_EQ(tasks[0].comm, "systemd");
  EXPECT_EQ(tasks[1].pid, 145);
  EXPECT_EQ(tasks[1].comm, "irq/32-snd_hda_");
}

TEST(ReadTaskComms, RealProcHasThisProcess) {
  const auto tasks = read_task_comms();
  bool found = false;
  for (const TaskComm& t : tasks) found = found || t.pid == getpid();
  EXPECT_TRUE(found);
}

TEST(ReadIrqThreadSched, ReadsAnotherThreadsPolicy) {
  std::promise<pid_t> tid;
  std::promise<void> done;
  std::thread idle([&] {
    sched_param p{};
    sched_setscheduler(0, SCHED_IDLE, &p);  // allowed without privileges
    tid.set_value(static_cast<pid_t>(syscall(SYS_gettid)));
    done.get_future().wait();
  });
  std::vector<IrqThread> threads(1);
  threads[0].pid = tid.get_future().get();
  read_irq_thread_sched(threads);
  done.set_value();
  idle.join();
  EXPECT_EQ(threads[0].policy, kSchedIdle);
  EXPECT_EQ(threads[0].rt_priority, 0);
}

TEST(ReadIrqThreadSched, ThisProcessAndAGoneOne) {
  std::vector<IrqThread> threads(2);
  threads[0].pid = getpid();
  threads[1].pid = 0x7ffffff0;  // above any pid_max
  read_irq_thread_sched(threads);
  EXPECT_EQ(threads[0].policy, sched_getscheduler(0) & ~SCHED_RESET_ON_FORK);
  sched_param p{};
  ASSERT_EQ(sched_getparam(0, &p), 0);
  EXPECT_EQ(threads[0].rt_priority, p.sched_priority);
  EXPECT_EQ(threads[1].policy, -1);
  EXPECT_EQ(threads[1].rt_priority, -1);
}

}  // namespace
}  // namespace xrunlab
