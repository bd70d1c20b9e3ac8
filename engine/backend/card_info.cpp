// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/card_info.hpp"

#include <fmt/format.h>

#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

bool is_software_driver(const std::string& driver) {
  return driver == "Dummy" || driver == "Loopback" || driver == "Virtual MIDI" ||
         driver == "VirMIDI";
}

}  // namespace

AlsaCardInfo card_info(const AlsaDevice& device, const std::optional<AlsaCard>& card,
                       const std::optional<std::vector<IrqLine>>& irqs,
                       const std::optional<std::vector<IrqThread>>& threads) {
  AlsaCardInfo info;
  std::vector<std::string>& notes = info.notes;
  info.pcm = device.pcm;
  if (device.device >= 0) info.device = device.device;
  if (!card) {
    notes.push_back(device.card >= 0
                        ? fmt::format("card {} is not in /proc/asound/cards: card, interrupts and "
                                      "interrupt threads unknown",
                                      device.card)
                        : fmt::format("the PCM name \"{}\" does not say which card it uses: card, "
                                      "interrupts and interrupt threads unknown",
                                      device.pcm));
    return info;
  }
  info.card = card->index;
  info.id = card->id;
  info.driver = card->driver;
  info.name = card->name;
  info.long_name = card->long_name;
  if (card->long_name.empty()) notes.push_back("/proc/asound/cards gives no long name");

  bool usb = false;
  if (!irqs) {
    notes.push_back("/proc/interrupts could not be read: interrupts unknown");
  } else {
    std::vector<CardIrqRecord>& lines = info.irqs.emplace();
    for (const IrqLine& l : *irqs) {
      usb = usb || l.matched_by.find("USB host controller") != std::string::npos;
      lines.push_back({l.irq, l.count, l.action, l.card_actions, l.matched_by});
    }
    if (irqs->empty()) {
      notes.push_back(
          is_software_driver(card->driver)
              ? fmt::format("{} is a software card: no hardware interrupt (its periods come from "
                            "a kernel timer)",
                            card->driver)
              : fmt::format("no line of /proc/interrupts matched the card (driver {}, long name "
                            "\"{}\"): its interrupt is unknown",
                            card->driver, card->long_name));
    }
    if (usb) {
      notes.push_back(
          "USB card: the interrupts listed are the USB host controller's, shared with every "
          "device on it; the card has none of its own");
    }
  }

  if (!irqs) {
    notes.push_back("interrupt threads unknown (the interrupts are)");
  } else if (!threads) {
    notes.push_back("the process list could not be read: interrupt threads unknown");
  } else {
    std::vector<CardIrqThreadRecord>& out = info.irq_threads.emplace();
    for (const IrqThread& t : *threads) {
      CardIrqThreadRecord& r = out.emplace_back();
      r.pid = t.pid;
      r.comm = t.comm;
      r.irq = t.irq;
      if (t.policy >= 0) {
        r.policy = policy_name(t.policy);
        r.priority = t.rt_priority;
      } else {
        notes.push_back(
            fmt::format("the scheduling of {} (pid {}) could not be read", t.comm, t.pid));
      }
    }
    if (threads->empty() && !irqs->empty()) {
      notes.push_back(
          "no irq/N-name kernel threads for these interrupts: their handlers run in hard "
          "interrupt context (interrupts are threaded only on PREEMPT_RT kernels or with the "
          "threadirqs boot option)");
    }
  }
  return info;
}

AlsaCardInfo collect_card_info(const AlsaDevice& device, const std::string& proc_root) {
  std::optional<AlsaCard> card;
  if (device.card >= 0) {
    if (const auto cards = read_asound_cards(proc_root)) {
      if (const AlsaCard* c = find_card(*cards, device.card)) card = *c;
    }
  }
  std::optional<std::vector<IrqLine>> irqs;
  std::optional<std::vector<IrqThread>> threads;
  if (card) {
    if (const auto all = read_interrupts(proc_root)) {
      irqs = card_irqs(*card, *all);
      const auto tasks = read_task_comms(proc_root);
      if (!tasks.empty()) {
        threads = card_irq_threads(tasks, *irqs);
        // Only the real /proc's pids are this system's threads.
        if (proc_root == "/proc") read_irq_thread_sched(*threads);
      }
    }
  }
  return card_info(device, card, irqs, threads);
}

}  // namespace xrunlab
