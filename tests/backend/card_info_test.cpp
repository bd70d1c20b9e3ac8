// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/card_info.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/card_irqs.hpp"
#include "engine/wire/sched_target.hpp"
#include "tests/support/alsa_proc_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::cards_of;
using testing_support::kDesktopCards;
using testing_support::kDesktopInterrupts;
using testing_support::kOldPcCards;
using testing_support::kOldPcInterrupts;
using testing_support::kRtTasks;
using testing_support::kSoftwareCards;
using testing_support::TempDir;

// ---------------------------------------------------------------------------------------------
// The card part of run.json

TEST(CardInfo, HdaCardWithThreads) {
  const AlsaCard card = cards_of(kDesktopCards)[0];
  const auto irqs = card_irqs(card, parse_interrupts(kDesktopInterrupts));
  auto threads = card_irq_threads(kRtTasks, irqs);
  ASSERT_EQ(threads.size(), 2u);
  threads[0].policy = kSchedFifo;
  threads[0].rt_priority = 50;
  // threads[1] unread: policy -1

  const AlsaCardInfo i = card_info(AlsaDevice{"hw:0", 0, 0}, card, irqs, threads);
  EXPECT_EQ(i.pcm, "hw:0");
  EXPECT_EQ(i.device, 0);
  EXPECT_EQ(i.card, 0);
  EXPECT_EQ(i.id, "PCH");
  EXPECT_EQ(i.driver, "HDA-Intel");
  EXPECT_EQ(i.name, "HDA Intel PCH");
  EXPECT_EQ(i.long_name, "HDA Intel PCH at 0xf7f10000 irq 32");
  ASSERT_TRUE(i.irqs && i.irq_threads);
  ASSERT_EQ(i.irqs->size(), 1u);
  EXPECT_EQ((*i.irqs)[0].irq, 32);
  EXPECT_EQ((*i.irqs)[0].count, 6801u);
  EXPECT_EQ((*i.irqs)[0].action, "snd_hda_intel:card0");
  ASSERT_EQ(i.irq_threads->size(), 2u);
  EXPECT_EQ((*i.irq_threads)[0].pid, 145);
  EXPECT_EQ((*i.irq_threads)[0].comm, "irq/32-snd_hda_");
  EXPECT_EQ((*i.irq_threads)[0].policy, "SCHED_FIFO");
  EXPECT_EQ((*i.irq_threads)[0].priority, 50);
  EXPECT_FALSE((*i.irq_threads)[1].policy);
  EXPECT_FALSE((*i.irq_threads)[1].priority);
  ASSERT_EQ(i.notes.size(), 1u);
  EXPECT_EQ(i.notes[0], "the scheduling of irq/32-snd_hda_ (pid 150) could not be read");
}

TEST(CardInfo, UnknownThingsAreNulloptWithANote) {
  const AlsaCardInfo none = card_info(AlsaDevice{"pipewire", -1, -1}, std::nullopt, {}, {});
  EXPECT_EQ(none.pcm, "pipewire");
  EXPECT_FALSE(none.card);
  EXPECT_FALSE(none.device);
  EXPECT_FALSE(none.id);
  EXPECT_FALSE(none.driver);
  EXPECT_FALSE(none.name);
  EXPECT_FALSE(none.long_name);
  EXPECT_FALSE(none.irqs);
  EXPECT_FALSE(none.irq_threads);
  ASSERT_EQ(none.notes.size(), 1u);
  EXPECT_NE(none.notes[0].find("\"pipewire\" does not say which card"), std::string::npos);

  const AlsaCard card = cards_of(kDesktopCards)[0];
  const AlsaCardInfo no_proc =
      card_info(AlsaDevice{"hw:0", 0, 0}, card, std::nullopt, std::nullopt);
  EXPECT_FALSE(no_proc.irqs);
  EXPECT_FALSE(no_proc.irq_threads);
  EXPECT_NE(no_proc.notes[0].find("/proc/interrupts could not be read"), std::string::npos);
}

TEST(CardInfo, NonRtKernelSaysWhyThereAreNoThreads) {
  const AlsaCard card = cards_of(kDesktopCards)[0];
  const auto irqs = card_irqs(card, parse_interrupts(kDesktopInterrupts));
  const AlsaCardInfo i = card_info(AlsaDevice{"hw:0", 0, 0}, card, irqs, std::vector<IrqThread>{});
  ASSERT_TRUE(i.irq_threads);
  EXPECT_TRUE(i.irq_threads->empty());
  ASSERT_EQ(i.notes.size(), 1u);
  EXPECT_NE(i.notes[0].find("threadirqs"), std::string::npos);
}

TEST(CardInfo, UsbAndSoftwareCardNotes) {
  const AlsaCard usb = cards_of(kDesktopCards)[2];
  const auto irqs = card_irqs(usb, parse_interrupts(kDesktopInterrupts));
  const auto threads = card_irq_threads(kRtTasks, irqs);
  AlsaCardInfo i = card_info(AlsaDevice{"hw:2", 2, 0}, usb, irqs, threads);
  ASSERT_TRUE(i.irqs);
  ASSERT_EQ(i.irqs->size(), 1u);
  EXPECT_EQ((*i.irqs)[0].irq, 26);
  ASSERT_GE(i.notes.size(), 1u);
  EXPECT_NE(i.notes[0].find("USB host controller's"), std::string::npos);

  const AlsaCard dummy = cards_of(kSoftwareCards)[0];
  i = card_info(AlsaDevice{"hw:0", 0, 0}, dummy, std::vector<IrqLine>{}, std::vector<IrqThread>{});
  ASSERT_TRUE(i.irqs);
  EXPECT_TRUE(i.irqs->empty());
  ASSERT_EQ(i.notes.size(), 1u);
  EXPECT_NE(i.notes[0].find("Dummy is a software card"), std::string::npos);
}

TEST(CollectCardInfo, FakeProcRoot) {
  TempDir root;
  root.write("asound/cards", kOldPcCards);
  root.write("interrupts", kOldPcInterrupts);
  root.write("1/comm", "init\n");
  root.write("90/comm", "irq/18-uhci_hc\n");
  root.write("91/comm", "irq/18-snd_emu\n");
  const AlsaCardInfo i = collect_card_info(AlsaDevice{"hw:Live", 0, 0}, root.str());
  EXPECT_EQ(i.card, 0);
  EXPECT_EQ(i.id, "Live");
  EXPECT_EQ(i.driver, "EMU10K1");
  ASSERT_TRUE(i.irqs && i.irq_threads);
  ASSERT_EQ(i.irqs->size(), 1u);
  EXPECT_EQ((*i.irqs)[0].irq, 18);
  EXPECT_EQ((*i.irqs)[0].count, 2356u);
  EXPECT_EQ((*i.irqs)[0].card_actions, std::vector<std::string>{"snd_emu10k1"});
  ASSERT_EQ(i.irq_threads->size(), 1u);
  EXPECT_EQ((*i.irq_threads)[0].pid, 91);
  EXPECT_FALSE((*i.irq_threads)[0].policy);  // fake pids: not read

  // The card gone from the file: nullopt and a note.
  const AlsaCardInfo gone = collect_card_info(AlsaDevice{"hw:3", 3, 0}, root.str());
  EXPECT_FALSE(gone.id);
  EXPECT_NE(gone.notes[0].find("card 3 is not in /proc/asound/cards"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
