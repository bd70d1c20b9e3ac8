// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// An ALSA card's interrupt lines (/proc/interrupts) and their kernel threads (irq/N-name), for
// the `alsa[:DEVICE]` backend. Pure parsers over text, plus thin readers of the real files
// whose root is a parameter (proc_root) so tests can point them at a folder of fake files.
// Non-realtime: called by the engine before (and after) a run; never from a process callback.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend/alsa_cards.hpp"

namespace xrunlab {

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

}  // namespace xrunlab
