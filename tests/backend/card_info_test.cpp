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
// run.json

TEST(CardInfoJson, HdaCardWithThreads) {
  const AlsaCard card = cards_of(kDesktopCards)[0];
  const auto irqs = card_irqs(card, parse_interrupts(kDesktopInterrupts));
  auto threads = card_irq_threads(kRtTasks, irqs);
  ASSERT_EQ(threads.size(), 2u);
  threads[0].policy = kSchedFifo;
  threads[0].rt_priority = 50;
  // threads[1] unread: policy -1

  const auto j = card_info_json(AlsaDevice{"hw:0", 0, 0}, card, irqs, threads);
  EXPECT_EQ(j["pcm"], "hw:0");
  EXPECT_EQ(j["device"], 0);
  EXPECT_EQ(j["card"], 0);
  EXPECT_EQ(j["id"], "PCH");
  EXPECT_EQ(j["driver"], "HDA-Intel");
  EXPECT_EQ(j["name"], "HDA Intel PCH");
  EXPECT_EQ(j["long_name"], "HDA Intel PCH at 0xf7f10000 irq 32");
  ASSERT_EQ(j["irqs"].size(), 1u);
  EXPECT_EQ(j["irqs"][0]["irq"], 32);
  EXPECT_EQ(j["irqs"][0]["count"], 6801);
  EXPECT_EQ(j["irqs"][0]["action"], "snd_hda_intel:card0");
  ASSERT_EQ(j["irq_threads"].size(), 2u);
  EXPECT_EQ(j["irq_threads"][0]["pid"], 145);
  EXPECT_EQ(j["irq_threads"][0]["comm"], "irq/32-snd_hda_");
  EXPECT_EQ(j["irq_threads"][0]["policy"], "SCHED_FIFO");
  EXPECT_EQ(j["irq_threads"][0]["priority"], 50);
  EXPECT_TRUE(j["irq_threads"][1]["policy"].is_null());
  EXPECT_TRUE(j["irq_threads"][1]["priority"].is_null());
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_EQ(j["notes"][0], "the scheduling of irq/32-snd_hda_ (pid 150) could not be read");
}

TEST(CardInfoJson, UnknownThingsAreNullWithANote) {
  const auto none = card_info_json(AlsaDevice{"pipewire", -1, -1}, std::nullopt, {}, {});
  EXPECT_EQ(none["pcm"], "pipewire");
  for (const char* k :
       {"card", "device", "id", "driver", "name", "long_name", "irqs", "irq_threads"}) {
    ASSERT_TRUE(none.contains(k)) << k;
    EXPECT_TRUE(none[k].is_null()) << k;
  }
  ASSERT_EQ(none["notes"].size(), 1u);
  EXPECT_NE(none["notes"][0].get<std::string>().find("\"pipewire\" does not say which card"),
            std::string::npos);

  const AlsaCard card = cards_of(kDesktopCards)[0];
  const auto no_proc = card_info_json(AlsaDevice{"hw:0", 0, 0}, card, std::nullopt, std::nullopt);
  EXPECT_TRUE(no_proc["irqs"].is_null());
  EXPECT_TRUE(no_proc["irq_threads"].is_null());
  EXPECT_NE(no_proc["notes"][0].get<std::string>().find("/proc/interrupts could not be read"),
            std::string::npos);
}

TEST(CardInfoJson, NonRtKernelSaysWhyThereAreNoThreads) {
  const AlsaCard card = cards_of(kDesktopCards)[0];
  const auto irqs = card_irqs(card, parse_interrupts(kDesktopInterrupts));
  const auto j = card_info_json(AlsaDevice{"hw:0", 0, 0}, card, irqs, std::vector<IrqThread>{});
  ASSERT_TRUE(j["irq_threads"].is_array());
  EXPECT_TRUE(j["irq_threads"].empty());
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_NE(j["notes"][0].get<std::string>().find("threadirqs"), std::string::npos);
}

TEST(CardInfoJson, UsbAndSoftwareCardNotes) {
  const AlsaCard usb = cards_of(kDesktopCards)[2];
  const auto irqs = card_irqs(usb, parse_interrupts(kDesktopInterrupts));
  const auto threads = card_irq_threads(kRtTasks, irqs);
  auto j = card_info_json(AlsaDevice{"hw:2", 2, 0}, usb, irqs, threads);
  ASSERT_EQ(j["irqs"].size(), 1u);
  EXPECT_EQ(j["irqs"][0]["irq"], 26);
  ASSERT_GE(j["notes"].size(), 1u);
  EXPECT_NE(j["notes"][0].get<std::string>().find("USB host controller's"), std::string::npos);

  const AlsaCard dummy = cards_of(kSoftwareCards)[0];
  j = card_info_json(AlsaDevice{"hw:0", 0, 0}, dummy, std::vector<IrqLine>{},
                     std::vector<IrqThread>{});
  EXPECT_TRUE(j["irqs"].empty());
  ASSERT_EQ(j["notes"].size(), 1u);
  EXPECT_NE(j["notes"][0].get<std::string>().find("Dummy is a software card"), std::string::npos);
}

TEST(CollectCardInfoJson, FakeProcRoot) {
  TempDir root;
  root.write("asound/cards", kOldPcCards);
  root.write("interrupts", kOldPcInterrupts);
  root.write("1/comm", "init\n");
  root.write("90/comm", "irq/18-uhci_hc\n");
  root.write("91/comm", "irq/18-snd_emu\n");
  const auto j = collect_card_info_json(AlsaDevice{"hw:Live", 0, 0}, root.str());
  EXPECT_EQ(j["card"], 0);
  EXPECT_EQ(j["id"], "Live");
  EXPECT_EQ(j["driver"], "EMU10K1");
  ASSERT_EQ(j["irqs"].size(), 1u);
  EXPECT_EQ(j["irqs"][0]["irq"], 18);
  EXPECT_EQ(j["irqs"][0]["count"], 2356);
  EXPECT_EQ(j["irqs"][0]["card_actions"], nlohmann::json::array({"snd_emu10k1"}));
  ASSERT_EQ(j["irq_threads"].size(), 1u);
  EXPECT_EQ(j["irq_threads"][0]["pid"], 91);
  EXPECT_TRUE(j["irq_threads"][0]["policy"].is_null());  // fake pids: not read

  // The card gone from the file: null and a note.
  const auto gone = collect_card_info_json(AlsaDevice{"hw:3", 3, 0}, root.str());
  EXPECT_TRUE(gone["id"].is_null());
  EXPECT_NE(gone["notes"][0].get<std::string>().find("card 3 is not in /proc/asound/cards"),
            std::string::npos);
}

}  // namespace
}  // namespace xrunlab
