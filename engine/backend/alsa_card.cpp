#include "engine/backend/alsa_card.hpp"

#include <alsa/asoundlib.h>
#include <dirent.h>
#include <fmt/format.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <set>
#include <sstream>
#include <system_error>

#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"
#include "engine/wire/thread_sched.hpp"

namespace xrunlab {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// A whole decimal number; nullopt on anything else (sign, blanks, overflow).
template <typename T>
std::optional<T> parse_number(std::string_view s) {
  if (!all_digits(s)) return std::nullopt;
  T value{};
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return value;
}

// The numeric entries of a /proc-like folder, ascending.
std::vector<pid_t> numeric_entries(const std::string& dir) {
  std::vector<pid_t> pids;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return pids;
  while (const dirent* e = readdir(d)) {
    if (auto pid = parse_number<pid_t>(e->d_name)) pids.push_back(*pid);
  }
  closedir(d);
  std::sort(pids.begin(), pids.end());
  return pids;
}

// " 0 [PCH            ]: HDA-Intel - HDA Intel PCH" -> the card without long_name.
std::optional<AlsaCard> parse_card_line(std::string_view line) {
  line = trim(line);
  const size_t open = line.find('[');
  const size_t close = line.find("]:");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  const auto index = parse_number<int>(trim(line.substr(0, open)));
  if (!index) return std::nullopt;
  AlsaCard card;
  card.index = *index;
  card.id = std::string(trim(line.substr(open + 1, close - open - 1)));
  const std::string_view rest = trim(line.substr(close + 2));
  const size_t dash = rest.find(" - ");
  if (dash == std::string_view::npos) {
    card.driver = std::string(rest);
  } else {
    card.driver = std::string(trim(rest.substr(0, dash)));
    card.name = std::string(trim(rest.substr(dash + 3)));
  }
  return card;
}

const AlsaCard* find_card(const std::vector<AlsaCard>& cards, int index) {
  for (const AlsaCard& c : cards) {
    if (c.index == index) return &c;
  }
  return nullptr;
}

const AlsaCard* find_card(const std::vector<AlsaCard>& cards, std::string_view id) {
  for (const AlsaCard& c : cards) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

// "PCH" -> PCH, "\"PCH\"" -> PCH, "'PCH'" -> PCH.
std::string_view unquote(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

// The arguments of "NAME:ARGS": positional ones and KEY=VALUE ones (keys upper-cased).
struct PcmArgs {
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> keyed;
  const std::string* key(std::string_view k) const {
    for (const auto& kv : keyed) {
      if (kv.first == k) return &kv.second;
    }
    return nullptr;
  }
};

PcmArgs split_pcm_args(std::string_view args) {
  PcmArgs out;
  while (true) {
    const size_t comma = args.find(',');
    const std::string_view item = trim(args.substr(0, comma));
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      out.positional.emplace_back(unquote(item));
    } else {
      std::string key(trim(item.substr(0, eq)));
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      out.keyed.emplace_back(key, std::string(unquote(item.substr(eq + 1))));
    }
    if (comma == std::string_view::npos) break;
    args.remove_prefix(comma + 1);
  }
  return out;
}

// PCMs of alsa.conf whose first argument is the card.
bool card_first_pcm(std::string_view name) {
  static const char* const kNames[] = {
      "hw",         "plughw",     "front",      "rear",       "center_lfe", "side",
      "surround21", "surround40", "surround41", "surround50", "surround51", "surround71",
      "iec958",     "spdif",      "hdmi",       "dmix",       "dsnoop",     "sysdefault"};
  return std::any_of(std::begin(kNames), std::end(kNames),
                     [&](const char* n) { return name == n; });
}

std::string device_label(const std::string& device) {
  return device.empty() ? std::string("\"\" (the first card)") : fmt::format("\"{}\"", device);
}

[[noreturn]] void throw_no_card(const std::string& device, const std::string& what,
                                const std::optional<std::vector<AlsaCard>>& cards) {
  std::string msg = fmt::format("ALSA device {}: ", device_label(device));
  if (!cards) {
    msg +=
        "this machine has no ALSA sound subsystem (/proc/asound/cards does not exist), so no "
        "sound card; use --backend vcard";
  } else if (cards->empty()) {
    msg +=
        "this machine has no sound card (/proc/asound/cards: no soundcards); use --backend "
        "vcard";
  } else {
    const AlsaCard& first = cards->front();
    msg += fmt::format(
        "{} (cards present: {}); use one of them, e.g. --backend alsa:hw:{} or alsa:hw:{}, or "
        "--backend vcard",
        what, format_card_list(*cards), first.index, first.id);
  }
  throw Error(ExitCode::kUsage, msg);
}

[[noreturn]] void throw_malformed(const std::string& device, const std::string& why) {
  throw Error(ExitCode::kUsage,
              fmt::format("ALSA device {}: {}; write hw:CARD or hw:CARD,DEVICE with a card number "
                          "or id from /proc/asound/cards (e.g. hw:0, hw:PCH,0), or use --backend "
                          "vcard",
                          device_label(device), why));
}

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

std::string holders_text(const std::vector<PcmHolder>& holders) {
  std::vector<std::string> parts;
  std::set<pid_t> seen;
  for (const PcmHolder& h : holders) {
    if (!seen.insert(h.pid).second) continue;
    parts.push_back(fmt::format("{} (pid {})", h.comm.empty() ? "?" : h.comm, h.pid));
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : ", ") + parts[i];
  return out;
}

void silent_alsa_error(const char* /*file*/, int /*line*/, const char* /*function*/, int /*err*/,
                       const char* /*fmt*/, ...) {}

// 0 when `pcm` opens in `stream` (closed again), else the negative errno.
int try_open(const std::string& pcm, snd_pcm_stream_t stream) {
  snd_pcm_t* handle = nullptr;
  const int err = snd_pcm_open(&handle, pcm.c_str(), stream, SND_PCM_NONBLOCK);
  if (err < 0) return err;
  snd_pcm_close(handle);
  return 0;
}

bool is_software_driver(const std::string& driver) {
  return driver == "Dummy" || driver == "Loopback" || driver == "Virtual MIDI" ||
         driver == "VirMIDI";
}

}  // namespace

std::vector<AlsaCard> parse_asound_cards(std::string_view text) {
  std::vector<AlsaCard> cards;
  const std::vector<std::string_view> rows = lines(text);
  for (size_t i = 0; i < rows.size(); ++i) {
    auto card = parse_card_line(rows[i]);
    if (!card) continue;
    if (i + 1 < rows.size() && !parse_card_line(rows[i + 1]) && !trim(rows[i + 1]).empty()) {
      card->long_name = std::string(trim(rows[i + 1]));
      ++i;
    }
    cards.push_back(std::move(*card));
  }
  return cards;
}

std::optional<std::vector<AlsaCard>> read_asound_cards(const std::string& proc_root) {
  const auto text = read_file(proc_root + "/asound/cards");
  if (!text) return std::nullopt;
  return parse_asound_cards(*text);
}

bool has_sound_card(const std::string& proc_root) {
  const auto cards = read_asound_cards(proc_root);
  return cards && !cards->empty();
}

std::string format_card_list(const std::vector<AlsaCard>& cards) {
  if (cards.empty()) return "none";
  std::string out;
  for (const AlsaCard& c : cards) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} [{}] {}", c.index, c.id, c.name.empty() ? c.driver : c.name);
  }
  return out;
}

AlsaDevice resolve_alsa_device(const std::string& device,
                               const std::optional<std::vector<AlsaCard>>& cards) {
  AlsaDevice out;
  const std::string_view spec = trim(device);
  if (spec.empty()) {
    if (!cards || cards->empty()) throw_no_card(device, "", cards);
    out.card = cards->front().index;
    out.device = 0;
    out.pcm = fmt::format("hw:{}", out.card);
    return out;
  }
  out.pcm = std::string(spec);
  const size_t colon = spec.find(':');
  const std::string_view name = spec.substr(0, colon);
  const bool hw = name == "hw" || name == "plughw";
  PcmArgs args;
  if (colon != std::string_view::npos) args = split_pcm_args(spec.substr(colon + 1));

  std::optional<std::string> card_arg;
  if (const std::string* k = args.key("CARD")) {
    card_arg = *k;
  } else if (card_first_pcm(name) && !args.positional.empty()) {
    card_arg = args.positional[0];
  } else if (hw) {
    card_arg = "0";  // alsa.conf: defaults.pcm.card
  }
  if (!card_arg) return out;  // "default", "pipewire", "pulse", "jack": no card named
  if (card_arg->empty()) throw_malformed(device, "the card is missing");

  const AlsaCard* card = nullptr;
  if (!cards || cards->empty()) throw_no_card(device, "", cards);
  if (auto index = parse_number<int>(*card_arg)) {
    card = find_card(*cards, *index);
    if (card == nullptr) throw_no_card(device, fmt::format("there is no card {}", *index), cards);
  } else {
    card = find_card(*cards, std::string_view(*card_arg));
    if (card == nullptr) {
      throw_no_card(device, fmt::format("there is no card with id \"{}\"", *card_arg), cards);
    }
  }
  out.card = card->index;

  if (hw) {
    std::optional<std::string> dev_arg;
    if (const std::string* k = args.key("DEV")) {
      dev_arg = *k;
    } else if (args.positional.size() >= 2) {
      dev_arg = args.positional[1];
    }
    if (!dev_arg) {
      out.device = 0;  // alsa.conf: DEV defaults to 0
    } else if (auto dev = parse_number<int>(*dev_arg)) {
      out.device = *dev;
    } else {
      throw_malformed(device, fmt::format("the PCM device \"{}\" is not a number", *dev_arg));
    }
  }
  return out;
}

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
  while (!action.empty()) {
    const size_t comma = action.find(',');
    const std::string_view name = trim(action.substr(0, comma));
    if (!name.empty()) out.emplace_back(name);
    if (comma == std::string_view::npos) break;
    action.remove_prefix(comma + 1);
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

std::optional<PcmNode> parse_pcm_node(std::string_view path) {
  constexpr std::string_view kPrefix = "/dev/snd/pcmC";
  if (!starts_with(path, kPrefix) || path.size() < kPrefix.size() + 4) return std::nullopt;
  std::string_view rest = path.substr(kPrefix.size());
  const char stream = rest.back();
  if (stream != 'p' && stream != 'c') return std::nullopt;
  rest.remove_suffix(1);
  const size_t d = rest.find('D');
  if (d == std::string_view::npos) return std::nullopt;
  const auto card = parse_number<int>(rest.substr(0, d));
  const auto device = parse_number<int>(rest.substr(d + 1));
  if (!card || !device) return std::nullopt;
  return PcmNode{*card, *device, stream};
}

std::vector<PcmHolder> find_pcm_holders(int card, int device, const std::string& proc_root) {
  std::vector<PcmHolder> out;
  for (pid_t pid : numeric_entries(proc_root)) {
    const std::string fd_dir = fmt::format("{}/{}/fd", proc_root, pid);
    std::set<std::string> nodes;
    for (pid_t fd : numeric_entries(fd_dir)) {
      char target[256];
      const std::string link = fmt::format("{}/{}", fd_dir, fd);
      const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
      if (n <= 0) continue;
      const std::string_view path(target, static_cast<size_t>(n));
      const auto node = parse_pcm_node(path);
      if (!node || (card >= 0 && node->card != card) || (device >= 0 && node->device != device)) {
        continue;
      }
      nodes.emplace(path);
    }
    if (nodes.empty()) continue;
    const std::string comm =
        read_first_line(fmt::format("{}/{}/comm", proc_root, pid)).value_or("");
    for (const std::string& node : nodes) out.push_back({pid, comm, node});
  }
  return out;
}

std::string pcm_busy_message(const std::string& pcm, const std::vector<PcmHolder>& holders) {
  const std::string who = holders.empty() ? std::string("PipeWire, PulseAudio or another JACK?")
                                          : "held by " + holders_text(holders);
  return fmt::format(
      "ALSA device {} is in use by another program ({}); stop it or use --backend attach", pcm,
      who);
}

std::string pcm_open_error_message(const std::string& pcm, int playback_err, int capture_err,
                                   const std::string& no_card_note) {
  std::string why;
  if (playback_err == capture_err || capture_err == 0) {
    why = snd_strerror(playback_err);
  } else if (playback_err == 0) {
    why = snd_strerror(capture_err);
  } else {
    why = fmt::format("{} (playback), {} (capture)", snd_strerror(playback_err),
                      snd_strerror(capture_err));
  }
  return fmt::format(
      "ALSA device {} cannot be opened: {}{}; check the name with aplay -l / aplay -L, or use "
      "--backend vcard",
      pcm, why, no_card_note.empty() ? std::string() : " (" + no_card_note + ")");
}

std::string pcm_busy_reason(const std::string& pcm, const std::string& proc_root) {
  snd_lib_error_set_handler(&silent_alsa_error);
  const int playback = try_open(pcm, SND_PCM_STREAM_PLAYBACK);
  const int capture = try_open(pcm, SND_PCM_STREAM_CAPTURE);
  snd_lib_error_set_handler(nullptr);
  snd_config_update_free_global();  // alsa-lib's cached configuration, for leak checkers

  const auto cards = read_asound_cards(proc_root);
  if (playback == -EBUSY || capture == -EBUSY) {
    int card = -1, device = -1;
    try {
      const AlsaDevice d = resolve_alsa_device(pcm, cards);
      card = d.card;
      device = d.device;
    } catch (const Error&) {
      // An unknown card cannot be busy; look for any holder.
    }
    return pcm_busy_message(pcm, find_pcm_holders(card, device, proc_root));
  }
  if (playback == 0 || capture == 0) return "";
  std::string note;
  if (!cards) {
    note = "this machine has no ALSA sound subsystem: no /proc/asound";
  } else if (cards->empty()) {
    note = "this machine has no sound card";
  }
  return pcm_open_error_message(pcm, playback, capture, note);
}

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
