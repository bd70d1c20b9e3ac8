// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/card_irqs.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "engine/backend/proc_numbers.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

// The handler name without a ":cardN" / ":usbN" suffix, lower-cased.
std::string action_base(std::string_view action) {
  std::string base(action.substr(0, action.find(':')));
  std::transform(base.begin(), base.end(), base.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return base;
}

// ":card3" -> 3; nullopt when the name has no card suffix.
std::optional<int> action_card(std::string_view action) {
  const size_t colon = action.find(":card");
  if (colon == std::string_view::npos) return std::nullopt;
  return parse_number<int>(action.substr(colon + 5));
}

// "HDA-Intel" -> {"snd_hda_intel", "hda_intel"}.
std::vector<std::string> driver_action_names(const std::string& driver) {
  std::string norm;
  for (char c : trim(driver)) {
    const auto u = static_cast<unsigned char>(c);
    norm += (c == '-' || c == ' ') ? '_' : static_cast<char>(std::tolower(u));
  }
  if (norm.empty()) return {};
  if (starts_with(norm, "snd_")) return {norm, norm.substr(4)};
  return {"snd_" + norm, norm};
}

bool is_usb_host_action(std::string_view action) {
  const std::string base = action_base(action);
  return base.find("hcd") != std::string::npos || starts_with(base, "xhci") ||
         starts_with(base, "ehci") || starts_with(base, "ohci") || starts_with(base, "uhci") ||
         starts_with(base, "dwc") || starts_with(base, "musb");
}

// "... at usb-0000:00:14.0-2, high speed" -> "0000:00:14.0"; "" when the long name has no USB
// path.
std::string usb_bus_id(std::string_view long_name) {
  const size_t at = long_name.find(" at usb-");
  if (at == std::string_view::npos) return "";
  std::string_view path = long_name.substr(at + 8);
  path = path.substr(0, path.find_first_of(", "));
  const size_t dash = path.rfind('-');  // the port path follows the last '-'
  if (dash == std::string_view::npos || dash == 0) return "";
  return std::string(path.substr(0, dash));
}

// "HDA Intel PCH at 0xf7f10000 irq 32" -> 32.
std::optional<int> long_name_irq(std::string_view long_name) {
  size_t pos = 0;
  while ((pos = long_name.find("irq ", pos)) != std::string_view::npos) {
    const bool word_start = pos == 0 || long_name[pos - 1] == ' ' || long_name[pos - 1] == ',';
    std::string_view digits = long_name.substr(pos + 4);
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    if (word_start) {
      if (auto irq = parse_number<int>(digits)) return irq;
    }
    pos += 4;
  }
  return std::nullopt;
}

// The PCI address that an x86 PCI-MSI hwirq encodes (domain << 27 | bus << 19 | devfn << 11 |
// vector index), as in "IR-PCI-MSI 327680-edge" -> "0000:00:14.0"; "" when the chip text is
// not of that form.
std::string pci_address_from_msi_chip(std::string_view chip) {
  const size_t msi = chip.find("PCI-MSI ");
  if (msi == std::string_view::npos) return "";
  std::string_view rest = trim(chip.substr(msi + 8));
  rest = rest.substr(0, rest.find_first_not_of("0123456789"));
  const auto hwirq = parse_number<uint64_t>(rest);
  if (!hwirq) return "";
  const uint64_t dev_id = (*hwirq >> 11) & 0xffff;
  const uint64_t domain = *hwirq >> 27;
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, dev_id >> 8, (dev_id >> 3) & 0x1f,
                     dev_id & 0x7);
}

// The trigger/handler column: "2-edge", "514048-edge", "PCI-MSI-edge", "IO-APIC-fasteoi",
// "Level", "Edge".
bool is_trigger_token(std::string_view s) {
  if (s.empty() || s.find(' ') != std::string_view::npos) return false;
  if (s == "Edge" || s == "Level") return true;
  static const char* const kHandlers[] = {"-edge",   "-level",        "-fasteoi", "-simple",
                                          "-percpu", "-percpu_devid", "-bad",     "-untracked"};
  for (const char* h : kHandlers) {
    if (ends_with(s, h)) return true;
  }
  const size_t dash = s.find('-');
  return dash != std::string_view::npos &&
         std::all_of(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(dash),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::vector<IrqLine> parse_interrupts(std::string_view text) {
  std::vector<IrqLine> out;
  size_t ncpus = 0;
  for (std::string_view line : lines(text)) {
    std::string_view s = trim(line);
    if (starts_with(s, "CPU")) {
      std::istringstream words{std::string(s)};
      std::string w;
      ncpus = 0;
      while (words >> w) ncpus += starts_with(w, "CPU") ? 1 : 0;
      continue;
    }
    const size_t colon = s.find(':');
    if (colon == std::string_view::npos) continue;
    const auto irq = parse_number<int>(s.substr(0, colon));
    if (!irq) continue;  // NMI:, LOC:, ERR: ...
    IrqLine l;
    l.irq = *irq;
    s.remove_prefix(colon + 1);
    for (size_t n = 0; ncpus == 0 || n < ncpus; ++n) {
      const std::string_view rest = trim(s);
      const size_t end = rest.find_first_of(" \t");
      const auto count = parse_number<uint64_t>(rest.substr(0, end));
      if (!count) break;
      l.count += *count;
      s = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    }
    s = trim(s);
    // The kernel prints two blanks before the first handler name; names are joined by ", ".
    const size_t gap = s.rfind("  ");
    const std::string_view last = gap == std::string_view::npos ? s : trim(s.substr(gap));
    const std::string_view last_word = last.substr(last.rfind(' ') + 1);  // npos + 1 == 0
    if (gap != std::string_view::npos && !is_trigger_token(last_word)) {
      l.chip = std::string(trim(s.substr(0, gap)));
      l.action = std::string(last);
    } else {
      l.chip = std::string(s);
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::optional<std::vector<IrqLine>> read_interrupts(const std::string& proc_root) {
  const auto text = read_file(proc_root + "/interrupts");
  if (!text) return std::nullopt;
  return parse_interrupts(*text);
}

std::vector<std::string> split_irq_actions(std::string_view action) {
  std::vector<std::string> out;
  for (const std::string_view piece : split(action, ',')) {
    const std::string_view name = trim(piece);
    if (!name.empty()) out.emplace_back(name);
  }
  return out;
}

std::vector<IrqLine> card_irqs(const AlsaCard& card, const std::vector<IrqLine>& all) {
  std::vector<IrqLine> out;
  const auto irq_number = long_name_irq(card.long_name);
  const auto driver_names = driver_action_names(card.driver);

  for (const IrqLine& line : all) {
    std::vector<std::string> reasons;
    std::vector<std::string> mine;
    if (irq_number && *irq_number == line.irq) {
      reasons.push_back(fmt::format("the card's long name says irq {}", line.irq));
    }
    for (const std::string& a : split_irq_actions(line.action)) {
      const std::string base = action_base(a);
      if (std::find(driver_names.begin(), driver_names.end(), base) == driver_names.end()) {
        continue;
      }
      const auto other = action_card(a);
      if (other && *other != card.index) continue;  // the same driver's other card
      mine.push_back(a);
    }
    if (!mine.empty()) {
      reasons.push_back(fmt::format("handler {} is the card's driver", mine.front()));
    }
    if (reasons.empty()) continue;
    IrqLine l = line;
    l.card_actions = std::move(mine);
    l.matched_by = reasons.front();
    for (size_t i = 1; i < reasons.size(); ++i) l.matched_by += "; " + reasons[i];
    out.push_back(std::move(l));
  }
  if (!out.empty()) return out;

  // USB audio: its data moves with the USB host controller's interrupt.
  const bool usb =
      card.driver == "USB-Audio" || card.long_name.find(" at usb-") != std::string::npos;
  if (!usb) return out;
  const std::string bus = usb_bus_id(card.long_name);
  std::vector<IrqLine> by_address, any_host;
  for (const IrqLine& line : all) {
    std::vector<std::string> hosts;
    for (const std::string& a : split_irq_actions(line.action)) {
      if (is_usb_host_action(a)) hosts.push_back(a);
    }
    if (hosts.empty()) continue;
    IrqLine l = line;
    l.card_actions = hosts;
    const bool here = !bus.empty() && (line.chip.find(bus) != std::string::npos ||
                                       line.action.find(bus) != std::string::npos ||
                                       pci_address_from_msi_chip(line.chip) == bus);
    if (here) {
      l.matched_by = fmt::format(
          "the USB host controller at {} that the card is on (a USB card has no interrupt of its "
          "own; this one is shared by every device on that controller)",
          bus);
      by_address.push_back(std::move(l));
    } else {
      l.matched_by = fmt::format(
          "a USB host controller; /proc/interrupts does not tell which one the card ({}) is on "
          "(a USB card has no interrupt of its own)",
          bus.empty() ? std::string("bus unknown") : "on " + bus);
      any_host.push_back(std::move(l));
    }
  }
  return by_address.empty() ? any_host : by_address;
}

std::optional<IrqThread> parse_irq_thread_comm(pid_t pid, std::string_view comm) {
  const std::string_view c = trim(comm);
  if (!starts_with(c, "irq/")) return std::nullopt;
  const std::string_view rest = c.substr(4);
  const size_t dash = rest.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const auto irq = parse_number<int>(rest.substr(0, dash));
  if (!irq) return std::nullopt;
  IrqThread t;
  t.pid = pid;
  t.comm = std::string(c);
  t.irq = *irq;
  std::string_view name = rest.substr(dash + 1);
  if (starts_with(name, "s-")) name.remove_prefix(2);  // "irq/N-s-NAME": a secondary handler
  t.name = std::string(name);
  return t;
}

std::vector<IrqThread> irq_threads_for(const std::vector<TaskComm>& tasks, int irq,
                                       const std::vector<std::string>& actions) {
  std::vector<IrqThread> out;
  for (const TaskComm& task : tasks) {
    auto t = parse_irq_thread_comm(task.pid, task.comm);
    if (!t || t->irq != irq) continue;
    const bool named =
        actions.empty() || std::any_of(actions.begin(), actions.end(), [&](const std::string& a) {
          return starts_with(a, t->name);  // comm may be cut to 15 characters
        });
    if (named) out.push_back(std::move(*t));
  }
  std::sort(out.begin(), out.end(),
            [](const IrqThread& a, const IrqThread& b) { return a.pid < b.pid; });
  return out;
}

std::vector<IrqThread> card_irq_threads(const std::vector<TaskComm>& tasks,
                                        const std::vector<IrqLine>& irqs) {
  std::vector<IrqLine> sorted = irqs;
  std::sort(sorted.begin(), sorted.end(),
            [](const IrqLine& a, const IrqLine& b) { return a.irq < b.irq; });
  std::vector<IrqThread> out;
  for (const IrqLine& l : sorted) {
    for (IrqThread& t : irq_threads_for(tasks, l.irq, l.card_actions)) {
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::vector<TaskComm> read_task_comms(const std::string& proc_root) {
  std::vector<TaskComm> out;
  for (pid_t pid : numeric_entries(proc_root)) {
    auto comm = read_first_line(fmt::format("{}/{}/comm", proc_root, pid));
    if (comm) out.push_back({pid, *comm});  // gone meanwhile: skipped
  }
  return out;
}

void read_irq_thread_sched(std::vector<IrqThread>& threads) {
  for (IrqThread& t : threads) {
    t.policy = -1;
    t.rt_priority = -1;
    const int policy = sched_getscheduler(t.pid);
    sched_param param{};
    if (policy < 0 || sched_getparam(t.pid, &param) != 0) continue;
    t.policy = policy & ~SCHED_RESET_ON_FORK;
    t.rt_priority = param.sched_priority;
  }
}

}  // namespace xrunlab
