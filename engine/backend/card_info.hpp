// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The card part of run.json for the `alsa[:DEVICE]` backend: the card a PCM name means, its
// interrupt lines and their threads' scheduling, and notes on what is not known. A pure
// builder, plus collect_card_info() over the real files whose root is a parameter
// (proc_root) so tests can point it at a folder of fake files.
// Non-realtime: called by the engine before (and after) a run; never from a process callback.
#include <optional>
#include <string>
#include <vector>

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/card_irqs.hpp"
#include "engine/result/backend_record.hpp"

namespace xrunlab {

// The card part of run.json (AlsaCardInfo): the PCM, its device number, the card's index, id,
// driver, names, interrupt lines and interrupt threads, and notes. What is not known is nullopt
// and a note says why (no card for the name, /proc/interrupts unreadable, a card without
// interrupts, a USB controller's interrupt, no interrupt threads on this kernel, a thread whose
// scheduling could not be read).
// `card` nullopt: the PCM names no card; `irqs`/`threads` nullopt: could not be read.
AlsaCardInfo card_info(const AlsaDevice& device, const std::optional<AlsaCard>& card,
                       const std::optional<std::vector<IrqLine>>& irqs,
                       const std::optional<std::vector<IrqThread>>& threads);

// card_info() over the real files under PROC_ROOT (cards, interrupts, irq threads and their
// scheduling). Never throws.
AlsaCardInfo collect_card_info(const AlsaDevice& device, const std::string& proc_root = "/proc");

}  // namespace xrunlab
