// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/alsa_cards.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <utility>

#include "engine/backend/proc_numbers.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

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
  for (const std::string_view piece : split(args, ',')) {  // "" and "a," keep their empty items
    const std::string_view item = trim(piece);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      out.positional.emplace_back(unquote(item));
    } else {
      std::string key(trim(item.substr(0, eq)));
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
      out.keyed.emplace_back(key, std::string(unquote(item.substr(eq + 1))));
    }
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

}  // namespace xrunlab
