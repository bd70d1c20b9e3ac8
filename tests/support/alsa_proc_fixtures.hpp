// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The /proc texts of the ALSA card tests (alsa_cards, card_irqs, card_info): /proc/asound/cards
// and /proc/interrupts of a few real machines, and the task list of a kernel with threaded
// interrupts.
#include <vector>

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/card_irqs.hpp"

namespace xrunlab::testing_support {

// A desktop (Skylake PCH + NVidia HDMI) with a C-Media USB dongle, kernel 5.x.
inline constexpr char kDesktopCards[] =
    " 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n"
    "                      HDA Intel PCH at 0xf7f10000 irq 32\n"
    " 1 [NVidia         ]: HDA-Intel - HDA NVidia\n"
    "                      HDA NVidia at 0xf7080000 irq 17\n"
    " 2 [Device         ]: USB-Audio - USB Audio Device\n"
    "                      C-Media Electronics Inc. USB Audio Device at usb-0000:00:14.0-2, full "
    "speed\n";

// The same machine's /proc/interrupts: 4 CPUs; IR-PCI-MSI hwirqs encode the PCI address
// (327680 -> 00:14.0, the xhci controller; 514048 -> 00:1f.3, the PCH audio).
inline constexpr char kDesktopInterrupts[] =
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
inline constexpr char kLaptopCards[] =
    " 0 [PCH            ]: HDA-Intel - HDA Intel PCH\n"
    "                      HDA Intel PCH at 0x6001110000 irq 130\n"
    " 1 [USB            ]: USB-Audio - Scarlett 2i2 USB\n"
    "                      Focusrite Scarlett 2i2 USB at usb-0000:3c:00.0-1, high speed\n";

inline constexpr char kLaptopInterrupts[] =
    "           CPU0       CPU1       \n"
    "   1:          0       5032  IR-IO-APIC    1-edge      i8042\n"
    " 127:          0      45678  IR-PCI-MSI-0000:00:14.0    0-edge      xhci_hcd\n"
    " 128:        100     200000  IR-PCI-MSI-0000:3c:00.0    0-edge      xhci_hcd\n"
    " 130:        512       9000  IR-PCI-MSI-0000:00:1f.3    0-edge      snd_hda_intel:card0\n"
    " NMI:          0          0   Non-maskable interrupts\n";

// An old PC (3.x kernel, threadirqs): a Sound Blaster Live! sharing IRQ 18 with a UHCI port.
inline constexpr char kOldPcCards[] =
    " 0 [Live           ]: EMU10K1 - SB Live 5.1 [SB0220]\n"
    "                      SB Live 5.1 [SB0220] (rev.7, serial:0x80611102) at 0xe800, irq 18\n";

inline constexpr char kOldPcInterrupts[] =
    "           CPU0       CPU1       \n"
    "  0:        127          0   IO-APIC-edge      timer\n"
    " 16:      52301        120   IO-APIC-fasteoi   uhci_hcd:usb3, ehci_hcd:usb1\n"
    " 18:       2345         11   IO-APIC-fasteoi   uhci_hcd:usb4, snd_emu10k1\n"
    " 19:          0          0   IO-APIC-fasteoi \n";

// Raspberry Pi 3: on-board audio and a USB dongle behind the dwc_otg controller (no PCI).
inline constexpr char kPiCards[] =
    " 0 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones\n"
    "                      bcm2835 Headphones\n"
    " 1 [Device         ]: USB-Audio - USB PnP Sound Device\n"
    "                      C-Media Electronics Inc. USB PnP Sound Device at usb-3f980000.usb-1.3, "
    "full speed\n";

inline constexpr char kPiInterrupts[] =
    "           CPU0       CPU1       CPU2       CPU3       \n"
    " 17:     123456     100000     110000     120000     GICv2  29 Level     arch_timer\n"
    " 33:          0          0          0          0     GICv2  35 Level\n"
    " 56:    2100000          0          0          0  bcm2836-armctrl-ic  17 Edge      "
    "dwc_otg, dwc_otg_pcd, dwc_otg_hcd:usb1\n";

// snd-dummy and snd-aloop: software cards, no interrupt.
inline constexpr char kSoftwareCards[] =
    " 0 [Dummy          ]: Dummy - Dummy\n"
    "                      Dummy 1\n"
    " 1 [Loopback       ]: Loopback - Loopback\n"
    "                      Loopback 1\n";

// The cards of a /proc/asound/cards text.
inline std::vector<AlsaCard> cards_of(const char* text) {
  return parse_asound_cards(text);
}

// The tasks of a kernel with threaded interrupts (PREEMPT_RT or threadirqs): irq/N-name threads,
// some cut to 15 characters, among other processes.
inline const std::vector<TaskComm> kRtTasks = {
    {1, "systemd"},           {12, "ksoftirqd/0"},      {150, "irq/32-snd_hda_"},
    {140, "irq/26-xhci_hcd"}, {91, "irq/18-snd_emu"},   {90, "irq/18-uhci_hc"},
    {160, "irq/9-acpi"},      {145, "irq/32-snd_hda_"}, {2000, "pipewire"}};

}  // namespace xrunlab::testing_support
