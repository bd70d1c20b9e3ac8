#include "engine/backend/card_info.hpp"

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/card_irqs.hpp"
#include "engine/backend/pcm_holders.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "engine/base/errors.hpp"
#include "engine/wire/sched_target.hpp"
#include "tests/support/temp_dir.hpp"

namespace xrunlab {
namespace {

using testing_support::TempDir;

namespace fs = std::filesystem;

// A desktop (Skylake PCH + NVidia HDMI) with a C-Media USB dongle, kernel 5.x.
constexpr char kDesktopCards[] =
    " 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n"
    "                      HDA Intel PCH at 0xf7f10000 irq 32\n"
    " 1 [NVidia         ]: HDA-Intel - HDA NVidia\n"
    "                      HDA NVidia at 0xf7080000 irq 17\n"
    " 2 [Device         ]: USB-Audio - USB Audio Device\n"
    "                      C-Media Electronics Inc. USB Audio Device at usb-0000:00:14.0-2, full "
    "speed\n";

// The same machine's /proc/interrupts: 4 CPUs; IR-PCI-MSI hwirqs encode the PCI address
// (327680 -> 00:14.0, the xhci controller; 514048 -> 00:1f.3, the PCH audio).
constexpr char kDesktopInterrupts[] =
    "            CPU0       CPU1       CPU2       CPU3       \n"
    "   0:         15          0          0          0   IO-APIC   2-edge      timer\n"
    "   8:          0          0          1          0   IO-APIC   8-edge      rtc0\n"
    "   9:          0          4          0          0   IO-APIC   9-fasteoi   acpi\n"
    "  16:          0          0          0          0   IO-APIC  16-fasteoi   i801_smbus\n"
    "  17:          0       1034          0          0   IO-APIC  17-fasteoi   "
    "snd_hda_intel:card1\n"
    "  24:          0          0          0          0  DMAR-MSI   0-edge      dmar0\n"
    "  25:          0          0          0          0  IR-PCI-MSI 458752-edge\n"
    "  26:     102345          0          0         57  IR-PCI-MSI 327680-edge      xhci_hcd\n"
    "  27:          0      23456          0          0  IR-PCI-MSI 376832-edge      "
    "ahci[0000:00:17.0]\n"
    "  32:         12          0       6789          0  IR-PCI-MSI 514048-edge      "
    "snd_hda_intel:card0\n"
    " NMI:          3          2          2          2   Non-maskable interrupts\n"
    " LOC:    1234567    1134567    1034567     934567   Local timer interrupts\n"
    " ERR:          0\n"
    " MIS:          0\n";

// A laptop on Linux 6.x: MSI chips named by PCI address, two xhci controllers (the Focusrite is
// on the Thunderbolt one at 3c:00.0), 2 CPUs.
constexpr char kLaptopCards[] =
    " 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n"
    "                      HDA Intel PCH at 0x6001110000 irq 130\n"
    " 1 [USB            ]: USB-Audio - Scarlett 2i2 USB\n"
    "                      Focusrite Scarlett 2i2 USB at usb-0000:3c:00.0-1, high speed\n";

constexpr char kLaptopInterrupts[] =
    "           CPU0       CPU1       \n"
    "   1:          0       5032  IR-IO-APIC    1-edge      i8042\n"
    " 127:          0      45678  IR-PCI-MSI-0000:00:14.0    0-edge      xhci_hcd\n"
    " 128:        100     200000  IR-PCI-MSI-0000:3c:00.0    0-edge      xhci_hcd\n"
    " 130:        512       9000  IR-PCI-MSI-0000:00:1f.3    0-edge      snd_hda_intel:card0\n"
    " NMI:          0          0   Non-maskable interrupts\n";

// An old PC (3.x kernel, threadirqs): a Sound Blaster Live! sharing IRQ 18 with a UHCI port.
constexpr char kOldPcCards[] =
    " 0 [Live           ]: EMU10K1 - SB Live 5.1 [SB0220]\n"
    "                      SB Live 5.1 [SB0220] (rev.7, serial:0x80611102) at 0xe800, irq 18\n";

constexpr char kOldPcInterrupts[] =
    "           CPU0       CPU1       \n"
    "  0:        127          0   IO-APIC-edge      timer\n"
    " 16:      52301        120   IO-APIC-fasteoi   uhci_hcd:usb3, ehci_hcd:usb1\n"
    " 18:       2345         11   IO-APIC-fasteoi   uhci_hcd:usb4, snd_emu10k1\n"
    " 19:          0          0   IO-APIC-fasteoi \n";

// Raspberry Pi 3: on-board audio and a USB dongle behind the dwc_otg controller (no PCI).
constexpr char kPiCards[] =
    " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n"
    "                      bcm2835 Headphones\n"
    " 1 [Device         ]: USB-Audio - USB PnP Sound Device\n"
    "                      C-Media Electronics Inc. USB PnP Sound Device at usb-3f980000.usb-1.3, "
    "full speed\n";

constexpr char kPiInterrupts[] =
    "           CPU0       CPU1       CPU2       CPU3       \n"
    " 17:     123456     100000     110000     120000     GICv2  29 Level     arch_timer\n"
    " 33:          0          0          0          0     GICv2  35 Level\n"
    " 56:    2100000          0          0          0  bcm2836-armctrl-ic  17 Edge      "
    "dwc_otg, dwc_otg_pcd, dwc_otg_hcd:usb1\n";

// snd-dummy and snd-aloop: software cards, no interrupt.
constexpr char kSoftwareCards[] =
    " 0 [Dummy          ]: Dummy - Dummy\n"
    "                      Dummy 1\n"
    " 1 [Loopback       ]: Loopback - Loopback\n"
    "                      Loopback 1\n";

// A fresh folder under the test temp dir, removed at the end.

std::vector<AlsaCard> cards_of(const char* text) {
  return parse_asound_cards(text);
}

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

const std::vector<TaskComm> kRtTasks = {
    {1, "systemd"},           {12, "ksoftirqd/0"},      {150, "irq/32-snd_hda_"},
    {140, "irq/26-xhci_hcd"}, {91, "irq/18-snd_emu"},   {90, "irq/18-uhci_hc"},
    {160, "irq/9-acpi"},      {145, "irq/32-snd_hda_"}, {2000, "pipewire"}};

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

// ---------------------------------------------------------------------------------------------
// Who holds the PCM

TEST(PcmNode, Parses) {
  auto n = parse_pcm_node("/dev/snd/pcmC0D3c");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->card, 0);
  EXPECT_EQ(n->device, 3);
  EXPECT_EQ(n->stream, 'c');
  n = parse_pcm_node("/dev/snd/pcmC12D0p");
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n->card, 12);
  EXPECT_EQ(n->stream, 'p');
  EXPECT_FALSE(parse_pcm_node("/dev/snd/controlC0").has_value());
  EXPECT_FALSE(parse_pcm_node("/dev/snd/pcmC0D0").has_value());
  EXPECT_FALSE(parse_pcm_node("/dev/snd/pcmCxD0p").has_value());
  EXPECT_FALSE(parse_pcm_node("/dev/null").has_value());
}

TEST(FindPcmHolders, FakeProcRoot) {
  TempDir root;
  root.write("1234/comm", "pipewire\n");
  root.link("1234/fd/5", "/dev/snd/pcmC0D0p");
  root.link("1234/fd/6", "/dev/snd/controlC0");
  root.link("1234/fd/7", "/dev/snd/pcmC0D0c");
  root.write("1300/comm", "jackd\n");
  root.link("1300/fd/3", "/dev/snd/pcmC1D0c");
  root.write("1400/comm", "bash\n");
  root.link("1400/fd/0", "/dev/pts/0");

  const auto card0 = find_pcm_holders(0, 0, root.str());
  ASSERT_EQ(card0.size(), 2u);
  EXPECT_EQ(card0[0].pid, 1234);
  EXPECT_EQ(card0[0].comm, "pipewire");
  EXPECT_EQ(card0[0].node, "/dev/snd/pcmC0D0c");
  EXPECT_EQ(card0[1].node, "/dev/snd/pcmC0D0p");

  const auto any = find_pcm_holders(-1, -1, root.str());
  ASSERT_EQ(any.size(), 3u);
  EXPECT_EQ(any[2].pid, 1300);
  EXPECT_EQ(any[2].comm, "jackd");
  EXPECT_TRUE(find_pcm_holders(0, 1, root.str()).empty());
}

TEST(PcmMessages, BusyNamesHoldersOnce) {
  const std::vector<PcmHolder> holders = {{1234, "pipewire", "/dev/snd/pcmC0D0c"},
                                          {1234, "pipewire", "/dev/snd/pcmC0D0p"},
                                          {1300, "wireplumber", "/dev/snd/pcmC0D0p"}};
  EXPECT_EQ(pcm_busy_message("hw:0", holders),
            "ALSA device hw:0 is in use by another program (held by pipewire (pid 1234), "
            "wireplumber (pid 1300)); stop it or use --backend attach");
  EXPECT_EQ(pcm_busy_message("hw:0", {}),
            "ALSA device hw:0 is in use by another program (PipeWire, PulseAudio or another "
            "JACK?); stop it or use --backend attach");
}

TEST(PcmMessages, OpenErrors) {
  EXPECT_EQ(pcm_open_error_message("hw:0", -ENOENT, -ENOENT, "this machine has no sound card"),
            "ALSA device hw:0 cannot be opened: No such file or directory (this machine has no "
            "sound card); check the name with aplay -l / aplay -L, or use --backend vcard");
  const std::string both = pcm_open_error_message("hw:1,2", -ENODEV, -ENOENT, "");
  EXPECT_NE(both.find("hw:1,2"), std::string::npos);
  EXPECT_NE(both.find("No such device (playback), No such file or directory (capture)"),
            std::string::npos)
      << both;
}

TEST(PcmBusyReason, NoCardOnThisMachineNamesTheDevice) {
  if (has_sound_card()) GTEST_SKIP() << "this machine has a sound card";
  const std::string why = pcm_busy_reason("hw:0");
  EXPECT_FALSE(why.empty());
  EXPECT_NE(why.find("hw:0"), std::string::npos) << why;
  EXPECT_NE(why.find("--backend vcard"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(PcmBusyReason, UnknownPcmNameIsNamed) {
  const std::string why = pcm_busy_reason("xrunlab_no_such_pcm");
  EXPECT_NE(why.find("ALSA device xrunlab_no_such_pcm cannot be opened"), std::string::npos) << why;
}

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
