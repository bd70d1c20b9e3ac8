// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The ALSA cards present (/proc/asound/cards) and which card a PCM name means, for the
// `alsa[:DEVICE]` backend. Pure parsers over text, plus thin readers of the real file whose root
// is a parameter (proc_root) so tests can point them at a folder of fake files.
// Non-realtime: called by the engine before (and after) a run; never from a process callback.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

// One card of /proc/asound/cards:
//  " 0 [PCH            ]: HDA-Intel - HDA Intel PCH"
//  "                      HDA Intel PCH at 0xf7f10000 irq 32"
struct AlsaCard {
  int index = -1;
  std::string id;         // "PCH" (what hw:ID names)
  std::string driver;     // "HDA-Intel", "USB-Audio", "Dummy", "Loopback"
  std::string name;       // short name: "HDA Intel PCH"
  std::string long_name;  // "HDA Intel PCH at 0xf7f10000 irq 32"
};

// The cards in the text of /proc/asound/cards, in file order. " --- no soundcards ---", an
// empty text or lines that are not card lines -> no cards (never throws).
std::vector<AlsaCard> parse_asound_cards(std::string_view text);

// Reads PROC_ROOT/asound/cards. nullopt when the file does not exist (no ALSA sound subsystem:
// snd not loaded or not built); an empty list when it says there is no card.
std::optional<std::vector<AlsaCard>> read_asound_cards(const std::string& proc_root = "/proc");

// True when PROC_ROOT/asound/cards lists at least one card.
bool has_sound_card(const std::string& proc_root = "/proc");

// The card of `cards` with this index, or with this id ("PCH"; case-sensitive, as in
// alsa-lib); nullptr when there is none.
const AlsaCard* find_card(const std::vector<AlsaCard>& cards, int index);
const AlsaCard* find_card(const std::vector<AlsaCard>& cards, std::string_view id);

// What to give jackd for `--backend alsa[:DEVICE]`.
struct AlsaDevice {
  std::string pcm;  // the PCM name for jackd -d alsa -d PCM: "hw:0", "plughw:PCH,1", "default"
  int card = -1;    // card index when the name says which card, else -1 ("default", "pipewire")
  int device = -1;  // PCM device number when the name says it (hw:0 -> 0), else -1
};

// Resolves DEVICE against the cards present (`cards` nullopt = no sound subsystem):
//  ""                          -> the first card, "hw:N"
//  "hw:N", "hw:N,D", "hw:ID", "hw:ID,D", "hw:CARD=ID,DEV=D", and the same for "plughw:"
//                              -> the name unchanged, the card looked up by number or id
//  "front:ID", "dmix:N", "sysdefault:CARD=ID" ... (card-first PCMs, or CARD= anywhere)
//                              -> the name unchanged, the card looked up
//  any other name ("default", "pipewire", "pulse", "jack") -> unchanged, card -1
// An unknown card number or id, no card for "", or a malformed hw name throws
// Error(kUsage) with ONE line naming the device, listing the cards present (or saying there is
// none) and what to do (--backend alsa:hw:N with a card present, or --backend vcard).
AlsaDevice resolve_alsa_device(const std::string& device,
                               const std::optional<std::vector<AlsaCard>>& cards);

// "0 [PCH] HDA Intel PCH, 1 [Device] USB Audio Device", or "none" for no cards.
std::string format_card_list(const std::vector<AlsaCard>& cards);

}  // namespace xrunlab
