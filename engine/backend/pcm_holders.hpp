// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// Whether an ALSA PCM can be opened now, who holds it when it cannot (the processes with a
// /dev/snd/pcmC*D* node open), and the one-line messages that say so, for the `alsa[:DEVICE]`
// backend. Pure parsers and message builders, plus thin readers of /proc whose root is a
// parameter (proc_root) so tests can point them at a folder of fake files.
// Non-realtime: called by the engine before a run; never from a process callback.
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace xrunlab {

// A process that has a PCM device node open.
struct PcmHolder {
  pid_t pid = 0;
  std::string comm;
  std::string node;  // "/dev/snd/pcmC0D0p"
};

// "/dev/snd/pcmC0D3c" -> {card 0, device 3, 'c'}; nullopt for other paths.
struct PcmNode {
  int card = -1, device = -1;
  char stream = 'p';  // 'p' playback, 'c' capture
};
std::optional<PcmNode> parse_pcm_node(std::string_view path);

// Processes under PROC_ROOT with an fd on /dev/snd/pcmC<card>D<device>[pc] (card or device -1:
// any). Ascending pid, one entry per process and node.
std::vector<PcmHolder> find_pcm_holders(int card, int device,
                                        const std::string& proc_root = "/proc");

// The -EBUSY line of pcm_busy_reason(): "ALSA device hw:0 is in use by another program
// (held by pipewire (pid 1234)); stop it or use --backend attach"; with no holders known the
// parenthesis guesses "(PipeWire, PulseAudio or another JACK?)".
std::string pcm_busy_message(const std::string& pcm, const std::vector<PcmHolder>& holders);

// The line for other snd_pcm_open errors (negative errno values, 0 = that direction opened):
// "ALSA device hw:0 cannot be opened: No such file or directory (this machine has no sound
// card); check the name with aplay -l / aplay -L, or use --backend vcard". `no_card_note`
// ("" for none) is put in the parenthesis.
std::string pcm_open_error_message(const std::string& pcm, int playback_err, int capture_err,
                                   const std::string& no_card_note);

// "" when `pcm` can be opened now (playback or capture: a one-direction device is fine);
// otherwise ONE line: -EBUSY -> "ALSA device hw:0 is in use by another program (...); stop it
// or use --backend attach", naming the holders when /proc shows them ("held by pipewire
// (pid 1234)"); any other error -> the device, snd_strerror of each direction and what to do.
// Opens with SND_PCM_NONBLOCK and closes at once; silences alsa-lib's stderr messages meanwhile.
// PROC_ROOT is where the cards and the holders are looked up.
std::string pcm_busy_reason(const std::string& pcm, const std::string& proc_root = "/proc");

}  // namespace xrunlab
