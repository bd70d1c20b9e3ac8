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

nlohmann::json card_info_json(const AlsaDevice& device, const std::optional<AlsaCard>& card,
                              const std::optional<std::vector<IrqLine>>& irqs,
                              const std::optional<std::vector<IrqThread>>& threads) {
  nlohmann::json j;
  nlohmann::json notes = nlohmann::json::array();
  j["pcm"] = device.pcm;
  j["device"] = device.device >= 0 ? nlohmann::json(device.device) : nlohmann::json(nullptr);
  if (!card) {
    for (const char* k : {"card", "id", "driver", "name", "long_name", "irqs", "irq_threads"}) {
      j[k] = nullptr;
    }
    notes.push_back(device.card >= 0
                        ? fmt::format("card {} is not in /proc/asound/cards: card, interrupts and "
                                      "interrupt threads unknown",
                                      device.card)
                        : fmt::format("the PCM name \"{}\" does not say which card it uses: card, "
                                      "interrupts and interrupt threads unknown",
                                      device.pcm));
    j["notes"] = notes;
    return j;
  }
  j["card"] = card->index;
  j["id"] = card->id;
  j["driver"] = card->driver;
  j["name"] = card->name;
  j["long_name"] = card->long_name;
  if (card->long_name.empty()) notes.push_back("/proc/asound/cards gives no long name");

  bool usb = false;
  if (!irqs) {
    j["irqs"] = nullptr;
    notes.push_back("/proc/interrupts could not be read: interrupts unknown");
  } else {
    nlohmann::json arr = nlohmann::json::array();
    for (const IrqLine& l : *irqs) {
      usb = usb || l.matched_by.find("USB host controller") != std::string::npos;
      arr.push_back({{"irq", l.irq},
                     {"count", l.count},
                     {"action", l.action},
                     {"card_actions", l.card_actions},
                     {"matched_by", l.matched_by}});
    }
    j["irqs"] = arr;
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
    j["irq_threads"] = nullptr;
    notes.push_back("interrupt threads unknown (the interrupts are)");
  } else if (!threads) {
    j["irq_threads"] = nullptr;
    notes.push_back("the process list could not be read: interrupt threads unknown");
  } else {
    nlohmann::json arr = nlohmann::json::array();
    for (const IrqThread& t : *threads) {
      const bool known = t.policy >= 0;
      arr.push_back({{"pid", t.pid},
                     {"comm", t.comm},
                     {"irq", t.irq},
                     {"policy", known ? nlohmann::json(policy_name(t.policy)) : nullptr},
                     {"priority", known ? nlohmann::json(t.rt_priority) : nullptr}});
      if (!known) {
        notes.push_back(
            fmt::format("the scheduling of {} (pid {}) could not be read", t.comm, t.pid));
      }
    }
    j["irq_threads"] = arr;
    if (threads->empty() && !irqs->empty()) {
      notes.push_back(
          "no irq/N-name kernel threads for these interrupts: their handlers run in hard "
          "interrupt context (interrupts are threaded only on PREEMPT_RT kernels or with the "
          "threadirqs boot option)");
    }
  }
  j["notes"] = notes;
  return j;
}

nlohmann::json collect_card_info_json(const AlsaDevice& device, const std::string& proc_root) {
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
  return card_info_json(device, card, irqs, threads);
}

}  // namespace xrunlab
