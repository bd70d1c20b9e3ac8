// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/backend/pcm_holders.hpp"

#include <alsa/asoundlib.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <set>

#include "engine/backend/alsa_cards.hpp"
#include "engine/backend/proc_numbers.hpp"
#include "engine/base/errors.hpp"
#include "engine/base/file.hpp"
#include "engine/base/text.hpp"

namespace xrunlab {
namespace {

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

}  // namespace

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

}  // namespace xrunlab
