// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/alsa_cards.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"
#include "tests/support/alsa_proc_fixtures.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::cards_of;
using testing_support::kDesktopCards;
using testing_support::kPiCards;
using testing_support::kSoftwareCards;
using testing_support::TempDir;

// ---------------------------------------------------------------------------------------------
// /proc/asound/cards

TEST(ParseAsoundCards, DesktopExactValues) {
  const auto cards = parse_asound_cards(kDesktopCards);
  ASSERT_EQ(cards.size(), 3u);
  EXPECT_EQ(cards[0].index, 0);
  EXPECT_EQ(cards[0].id, "PCH");
  EXPECT_EQ(cards[0].driver, "HDA-Intel");
  EXPECT_EQ(cards[0].name, "HDA Intel PCH");
  EXPECT_EQ(cards[0].long_name, "HDA Intel PCH at 0xf7f10000 irq 32");
  EXPECT_EQ(cards[1].index, 1);
  EXPECT_EQ(cards[1].id, "NVidia");
  EXPECT_EQ(cards[1].name, "HDA NVidia");
  EXPECT_EQ(cards[2].index, 2);
  EXPECT_EQ(cards[2].id, "Device");
  EXPECT_EQ(cards[2].driver, "USB-Audio");
  EXPECT_EQ(cards[2].name, "USB Audio Device");
  EXPECT_EQ(cards[2].long_name,
            "C-Media Electronics Inc. USB Audio Device at usb-0000:00:14.0-2, full speed");
}

TEST(ParseAsoundCards, SoftwareCardsAndTruncatedDriverName) {
  const auto soft = parse_asound_cards(kSoftwareCards);
  ASSERT_EQ(soft.size(), 2u);
  EXPECT_EQ(soft[0].id, "Dummy");
  EXPECT_EQ(soft[0].driver, "Dummy");
  EXPECT_EQ(soft[0].long_name, "Dummy 1");
  EXPECT_EQ(soft[1].id, "Loopback");
  EXPECT_EQ(soft[1].long_name, "Loopback 1");

  const auto pi = parse_asound_cards(kPiCards);
  ASSERT_EQ(pi.size(), 2u);
  EXPECT_EQ(pi[0].id, "Headphones");
  EXPECT_EQ(pi[0].driver, "bcm2835_headpho");
  EXPECT_EQ(pi[0].name, "bcm2835 Headphones");
  EXPECT_EQ(pi[1].index, 1);
}

TEST(ParseAsoundCards, DriverWithBlanksAndTwoDigitIndex) {
  const auto cards = parse_asound_cards(
      "10 [Generic        ]: HD-Audio Generic - HD-Audio Generic\n"
      "                      HD-Audio Generic at 0xfcb00000 irq 70\n");
  ASSERT_EQ(cards.size(), 1u);
  EXPECT_EQ(cards[0].index, 10);
  EXPECT_EQ(cards[0].driver, "HD-Audio Generic");
  EXPECT_EQ(cards[0].name, "HD-Audio Generic");
  EXPECT_EQ(cards[0].long_name, "HD-Audio Generic at 0xfcb00000 irq 70");
}

TEST(ParseAsoundCards, CardLineWithoutLongNameLine) {
  const auto cards = parse_asound_cards(
      " 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n"
      " 1 [Device         ]: USB-Audio - USB Audio Device\n");
  ASSERT_EQ(cards.size(), 2u);
  EXPECT_EQ(cards[0].long_name, "");
  EXPECT_EQ(cards[1].id, "Device");
}

TEST(ParseAsoundCards, NoSoundcardsAndEmptyText) {
  EXPECT_TRUE(parse_asound_cards("--- no soundcards ---\n").empty());
  EXPECT_TRUE(parse_asound_cards(" --- no soundcards ---\n").empty());
  EXPECT_TRUE(parse_asound_cards("").empty());
}

TEST(ReadAsoundCards, FakeProcRoot) {
  TempDir root;
  root.write("asound/cards", kDesktopCards);
  const auto cards = read_asound_cards(root.str());
  ASSERT_TRUE(cards.has_value());
  ASSERT_EQ(cards->size(), 3u);
  EXPECT_EQ((*cards)[2].id, "Device");
  EXPECT_TRUE(has_sound_card(root.str()));
}

TEST(ReadAsoundCards, NoSoundcardsFile) {
  TempDir root;
  root.write("asound/cards", " --- no soundcards ---\n");
  const auto cards = read_asound_cards(root.str());
  ASSERT_TRUE(cards.has_value());
  EXPECT_TRUE(cards->empty());
  EXPECT_FALSE(has_sound_card(root.str()));
}

TEST(ReadAsoundCards, MissingFileMeansNoSoundSubsystem) {
  TempDir root;
  EXPECT_FALSE(read_asound_cards(root.str()).has_value());
  EXPECT_FALSE(has_sound_card(root.str()));
}

TEST(ReadAsoundCards, ThisMachineAgreesWithItsProc) {
  // No assumption about the machine: has_sound_card() must agree with the file.
  const auto cards = read_asound_cards();
  EXPECT_EQ(has_sound_card(), cards.has_value() && !cards->empty());
}

// ---------------------------------------------------------------------------------------------
// Resolving a device

TEST(ResolveAlsaDevice, EmptyMeansFirstCard) {
  const auto d = resolve_alsa_device("", cards_of(kDesktopCards));
  EXPECT_EQ(d.pcm, "hw:0");
  EXPECT_EQ(d.card, 0);
  EXPECT_EQ(d.device, 0);

  const auto later = resolve_alsa_device("", cards_of(" 3 [Device         ]: USB-Audio - X\n"
                                                      "                      X at usb-1-1\n"));
  EXPECT_EQ(later.pcm, "hw:3");
  EXPECT_EQ(later.card, 3);
}

TEST(ResolveAlsaDevice, HwNumbersAndIds) {
  const auto cards = cards_of(kDesktopCards);
  auto d = resolve_alsa_device("hw:1", cards);
  EXPECT_EQ(d.pcm, "hw:1");
  EXPECT_EQ(d.card, 1);
  EXPECT_EQ(d.device, 0);

  d = resolve_alsa_device("hw:PCH,3", cards);
  EXPECT_EQ(d.pcm, "hw:PCH,3");
  EXPECT_EQ(d.card, 0);
  EXPECT_EQ(d.device, 3);

  d = resolve_alsa_device("hw:2,0", cards);
  EXPECT_EQ(d.card, 2);
  EXPECT_EQ(d.device, 0);

  d = resolve_alsa_device("plughw:Device", cards);
  EXPECT_EQ(d.pcm, "plughw:Device");
  EXPECT_EQ(d.card, 2);

  d = resolve_alsa_device("hw:CARD=NVidia,DEV=7", cards);
  EXPECT_EQ(d.card, 1);
  EXPECT_EQ(d.device, 7);

  d = resolve_alsa_device("plughw:\"PCH\",1", cards);
  EXPECT_EQ(d.card, 0);
  EXPECT_EQ(d.device, 1);
}

TEST(ResolveAlsaDevice, OtherPcmNames) {
  const auto cards = cards_of(kDesktopCards);
  auto d = resolve_alsa_device("default", cards);
  EXPECT_EQ(d.pcm, "default");
  EXPECT_EQ(d.card, -1);
  EXPECT_EQ(d.device, -1);

  d = resolve_alsa_device("pipewire", cards);
  EXPECT_EQ(d.card, -1);

  d = resolve_alsa_device("front:PCH", cards);
  EXPECT_EQ(d.pcm, "front:PCH");
  EXPECT_EQ(d.card, 0);
  EXPECT_EQ(d.device, -1);

  d = resolve_alsa_device("dmix:CARD=Device,DEV=0", cards);
  EXPECT_EQ(d.card, 2);

  d = resolve_alsa_device("sysdefault:1", cards);
  EXPECT_EQ(d.card, 1);

  // A plugin name with no card works without any card.
  d = resolve_alsa_device("pulse", std::nullopt);
  EXPECT_EQ(d.card, -1);
}

// The message of the Error that resolve_alsa_device throws (and checks it is a usage error).
std::string resolve_error(const std::string& device,
                          const std::optional<std::vector<AlsaCard>>& cards) {
  try {
    resolve_alsa_device(device, cards);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kUsage);
    return e.what();
  }
  ADD_FAILURE() << "no error for " << device;
  return "";
}

TEST(ResolveAlsaDevice, UnknownCardNumberNamesDeviceAndListsCards) {
  const std::string msg = resolve_error("hw:5", cards_of(kDesktopCards));
  EXPECT_EQ(msg,
            "ALSA device \"hw:5\": there is no card 5 (cards present: 0 [PCH] HDA Intel PCH, "
            "1 [NVidia] HDA NVidia, 2 [Device] USB Audio Device); use one of them, e.g. "
            "--backend alsa:hw:0 or alsa:hw:PCH, or --backend vcard");
  EXPECT_EQ(msg.find('\n'), std::string::npos);
}

TEST(ResolveAlsaDevice, UnknownCardIdNamesDeviceAndListsCards) {
  const std::string msg = resolve_error("plughw:Scarlett,0", cards_of(kDesktopCards));
  EXPECT_NE(msg.find("\"plughw:Scarlett,0\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("no card with id \"Scarlett\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("2 [Device] USB Audio Device"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--backend vcard"), std::string::npos) << msg;

  // Ids are case-sensitive, as in alsa-lib.
  EXPECT_NE(resolve_error("hw:pch", cards_of(kDesktopCards)).find("\"pch\""), std::string::npos);
  EXPECT_NE(resolve_error("front:CARD=Nope", cards_of(kDesktopCards)).find("front:CARD=Nope"),
            std::string::npos);
}

TEST(ResolveAlsaDevice, NoSoundCards) {
  const std::string none = resolve_error("", std::vector<AlsaCard>{});
  EXPECT_EQ(none,
            "ALSA device \"\" (the first card): this machine has no sound card "
            "(/proc/asound/cards: no soundcards); use --backend vcard");
  EXPECT_NE(resolve_error("hw:0", std::vector<AlsaCard>{})
                .find("\"hw:0\": this machine has no "
                      "sound card"),
            std::string::npos);
}

TEST(ResolveAlsaDevice, NoSoundSubsystem) {
  const std::string msg = resolve_error("hw:0", std::nullopt);
  EXPECT_NE(msg.find("\"hw:0\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("no ALSA sound subsystem"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--backend vcard"), std::string::npos) << msg;
  EXPECT_NE(resolve_error("", std::nullopt).find("no ALSA sound subsystem"), std::string::npos);
}

TEST(ResolveAlsaDevice, MalformedHwNames) {
  const auto cards = cards_of(kDesktopCards);
  EXPECT_NE(resolve_error("hw:0,x", cards).find("PCM device \"x\" is not a number"),
            std::string::npos);
  EXPECT_NE(resolve_error("hw:", cards).find("the card is missing"), std::string::npos);
}

}  // namespace
}  // namespace xrunlab
