#pragma once
// What the `alsa[:DEVICE]` backend needs to know about a real ALSA card: the cards present
// (/proc/asound/cards), which card a PCM name means, the card's interrupt lines
// (/proc/interrupts) and their kernel threads (irq/N-name), whether the PCM is free, and all of
// it as JSON for run.json. Pure parsers over text, plus thin readers of the real files whose
// root is a parameter so tests can point them at a folder of fake files.
// Non-realtime: called by the engine before (and after) a run; never from a process callback.
#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

// One numbered line of /proc/interrupts.
struct IrqLine {
  int irq = -1;
  uint64_t count = 0;  // the per-CPU counts summed
  std::string chip;    // what is between the counts and the handlers: "IR-PCI-MSI 514048-edge"
  std::string action;  // the handler names as printed: "snd_hda_intel:card0", "ehci_hcd:usb1, ..."
  // Set by card_irqs(): the handler names on this line that are the card's (empty when the line
  // matched by its number only), and why the line is the card's.
  std::vector<std::string> card_actions;
  std::string matched_by;
};

// The numbered lines of /proc/interrupts (NMI:, LOC:, ERR: ... are skipped). The CPU count is
// taken from the "CPU0 CPU1 ..." header when present.
std::vector<IrqLine> parse_interrupts(std::string_view text);

// Reads PROC_ROOT/interrupts; nullopt when it cannot be read.
std::optional<std::vector<IrqLine>> read_interrupts(const std::string& proc_root = "/proc");

// The handler names of an action text: "ehci_hcd:usb1, snd_hda_intel" -> {"ehci_hcd:usb1",
// "snd_hda_intel"}.
std::vector<std::string> split_irq_actions(std::string_view action);

// The lines of `all` that serve `card`, with card_actions and matched_by set:
//  * the number in the long name's "irq NN" (PCI cards: "HDA Intel PCH at 0x... irq 32");
//  * a handler named after the driver: "HDA-Intel" -> snd_hda_intel (or hda_intel), with a
//    ":cardN" suffix only when N is this card ("snd_hda_intel:card1" is another card);
//  * USB cards ("... at usb-0000:00:14.0-2, high speed") have no interrupt of their own: the
//    USB host controller's lines (xhci_hcd, ehci_hcd, ohci_hcd, uhci_hcd, dwc_otg, dwc2) - the
//    controller at the card's bus address when the chip text names it ("PCI-MSIX-0000:00:14.0"
//    or a PCI-MSI hwirq that encodes it), else every USB host controller line.
// Software cards (snd-dummy, snd-aloop) have none: empty.
std::vector<IrqLine> card_irqs(const AlsaCard& card, const std::vector<IrqLine>& all);

// A kernel interrupt thread: "irq/32-snd_hda_intel:card0" (or truncated to 15 characters by
// older kernels: "irq/32-snd_hda_"; "irq/32-s-..." for a secondary handler).
struct IrqThread {
  pid_t pid = 0;
  std::string comm;
  int irq = -1;
  std::string name;      // the handler part of comm, maybe truncated: "snd_hda_"
  int policy = -1;       // SCHED_* number, -1 when not read (yet) or unreadable
  int rt_priority = -1;  // sched_param.sched_priority, -1 when unknown
};

struct TaskComm {
  pid_t pid = 0;
  std::string comm;
};

// "irq/32-snd_hda_" -> {irq 32, name "snd_hda_"}; nullopt for any other comm.
std::optional<IrqThread> parse_irq_thread_comm(pid_t pid, std::string_view comm);

// The interrupt threads of line `irq`: comm "irq/IRQ-NAME" where NAME is a (possibly truncated)
// prefix of one of `actions`; every thread of that irq when `actions` is empty. Ascending pid.
std::vector<IrqThread> irq_threads_for(const std::vector<TaskComm>& tasks, int irq,
                                       const std::vector<std::string>& actions = {});

// The threads of all `irqs` (each with its card_actions). Ascending irq, then pid.
std::vector<IrqThread> card_irq_threads(const std::vector<TaskComm>& tasks,
                                        const std::vector<IrqLine>& irqs);

// PID and comm of every process in PROC_ROOT (/proc/[0-9]*/comm; kernel threads are processes).
std::vector<TaskComm> read_task_comms(const std::string& proc_root = "/proc");

// Fills policy and rt_priority with sched_getscheduler/sched_getparam (left -1 on failure,
// e.g. the thread is gone).
void read_irq_thread_sched(std::vector<IrqThread>& threads);

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

// The card part of run.json. Keys: pcm, device (PCM device number or null), card (index), id,
// driver, name, long_name, irqs
// [{irq, count, action, card_actions, matched_by}], irq_threads [{pid, comm, irq, policy,
// priority}], notes [strings]. What is not known is null and a note says why (no card for the
// name, /proc/interrupts unreadable, a card without interrupts, a USB controller's interrupt,
// no interrupt threads on this kernel, a thread whose scheduling could not be read).
// `card` nullopt: the PCM names no card; `irqs`/`threads` nullopt: could not be read.
nlohmann::json card_info_json(const AlsaDevice& device, const std::optional<AlsaCard>& card,
                              const std::optional<std::vector<IrqLine>>& irqs,
                              const std::optional<std::vector<IrqThread>>& threads);

// card_info_json() over the real files under PROC_ROOT (cards, interrupts, irq threads and their
// scheduling). Never throws.
nlohmann::json collect_card_info_json(const AlsaDevice& device,
                                      const std::string& proc_root = "/proc");

}  // namespace xrunlab
