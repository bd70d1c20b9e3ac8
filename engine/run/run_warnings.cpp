// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/run/run_warnings.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace xrunlab {

std::vector<std::string> count_warnings(const RunResult& r) {
  std::vector<std::string> out;
  // Where the backend's driver xruns reach the clients (vcard, alsa), the monitor counts them
  // too, and jackd's log has them as driver lines: the log's side of the comparison is both.
  const XrunCounts& x = r.xruns;
  if (r.xrun_cycles.present) {
    // The cycle table says which cycles were xruns: each source is judged against it, not
    // against the other source's timing-grouped count (engine/result/xrun_cycles.hpp).
    const SourceTally* monitor = nullptr;
    const SourceTally* log = nullptr;
    for (const SourceTally& t : r.xrun_cycles.sources) {
      if (t.key == "monitor") monitor = &t;
      if (t.key == "jackd_log") log = &t;
    }
    // PipeWire's JACK writes no xrun log: the monitor is judged alone. Reports that no chain
    // event explains are no warning: they are the run's xrun events outside the chain
    // (engine/result/xrun_causes.hpp).
    if (monitor != nullptr && log == nullptr && monitor->events_missed > 0) {
      out.push_back(fmt::format(
          "of the cycle table's {} xrun event(s) in the chain, the monitor did not report {} "
          "(see \"Xrun events by cycle\")",
          r.xrun_cycles.events, monitor->events_missed));
    }
    if (monitor != nullptr && log != nullptr && monitor->events_missed + log->events_missed > 0) {
      out.push_back(fmt::format(
          "of the cycle table's {} xrun event(s) in the chain, the monitor did not report {} and "
          "jackd's log {} (see \"Xrun events by cycle\")",
          r.xrun_cycles.events, monitor->events_missed, log->events_missed));
    }
  } else if (!r.driver_xruns_reach_monitor && x.monitor_events != x.log_client_events) {
    out.push_back(fmt::format(
        "the monitor counted {} client xrun events, jackd's log {}: they should agree; the "
        "monitor's count is used",
        x.monitor_events, x.log_client_events));
  } else if (r.driver_xruns_reach_monitor &&
             x.monitor_events != x.log_client_events + x.log_driver_xruns) {
    out.push_back(fmt::format(
        "the monitor counted {} xrun events, jackd's log {} ({} of clients, {} of the driver): "
        "they should agree; the monitor's count is used",
        x.monitor_events, x.log_client_events + x.log_driver_xruns, x.log_client_events,
        x.log_driver_xruns));
  }
  for (const ClientResult& c : r.client_results) {
    if (c.ring_dropped > 0) {
      out.push_back(fmt::format("{} lost {} cycle records (ring full)", c.name, c.ring_dropped));
    }
  }
  if (r.audio) {
    const AudioResult& a = *r.audio;
    if (!a.final_received) {
      out.push_back("the chain's tail sent no audio totals: the audio check is incomplete");
    }
    if (a.totals.ring_dropped > 0) {
      out.push_back(fmt::format(
          "the tail lost {} audio chunks before checking them: glitches there are not real",
          a.totals.ring_dropped));
    }
    if (!a.totals.not_checked.empty()) {
      out.push_back("--source: the audio was played but not checked: " + a.totals.not_checked);
    } else if (!a.source.empty() && a.final_received && a.totals.unjudged_blocks > 0) {
      out.push_back(fmt::format(
          "--source: {} of {} blocks could not be judged (equal to the block before or after: a "
          "drop or repeat there is inaudible and not counted)",
          a.totals.unjudged_blocks, a.totals.judged_blocks + a.totals.unjudged_blocks));
    }
    if (a.totals.clipped_samples > 0) {
      out.push_back(fmt::format("the FLAC recording clipped {} samples beyond +-1.0",
                                a.totals.clipped_samples));
    }
  }
  return out;
}

namespace {

// Glitches against xruns, as the result matched them (by cycle or by time).
std::vector<std::string> match_lines(const RunResult& r) {
  std::vector<std::string> out;
  const AudioResult& a = *r.audio;
  if (!a.totals.not_checked.empty()) return out;  // nothing was listened to
  if (a.matched_by == "cycle") {
    if (a.glitches_without_xrun > 0) {
      out.push_back(fmt::format(
          "{} audible glitch(es) in no xrun cycle nor within {} cycles after one: the chain "
          "lost audio in cycles that met their deadline (see \"Xrun events by cycle\")",
          a.glitches_without_xrun, XrunCycles::kHeardWithinCycles));
    }
    if (a.xruns_without_glitch > 0) {
      out.push_back(fmt::format(
          "{} xrun event(s) of the cycle table with no audible glitch (nothing was lost on the "
          "checked port)",
          a.xruns_without_glitch));
    }
    return out;
  }
  if (a.glitches_without_xrun > 0) {
    out.push_back(fmt::format(
        "{} audible glitch(es) with no xrun within {} ms: the chain lost audio that no xrun "
        "reported",
        a.glitches_without_xrun, AudioResult::kMatchWindowMs));
  }
  if (a.xruns_without_glitch > 0) {
    out.push_back(fmt::format(
        "{} xrun(s) with no audible glitch within {} ms (nothing was lost on the checked port)",
        a.xruns_without_glitch, AudioResult::kMatchWindowMs));
  }
  return out;
}

// Under PipeWire's JACK a lost block without an xrun report is how its reporting works, not a
// fault of the check: said once, for that backend only, whenever the tail heard more glitch
// events than xrun callbacks came. What PipeWire 0.3.65 does (pipewire-jack.c cycle_run,
// impl-node.c node_ready/check_states): the xrun callback runs in a client's cycle when the
// driver's activation xrun_count changed since its last cycle (so at most once a cycle, and
// never for the first one); a late client is counted on its own node's activation, and the
// Dummy-Driver raises no xrun of its own.
std::string pipewire_glitch_note(const RunResult& r) {
  if (!r.backend.is_pipewire()) return "";
  const AudioResult& a = *r.audio;
  if (a.glitches_total() == 0 || r.xruns.monitor_events >= a.events) return "";
  return fmt::format(
      "PipeWire: {} audible glitch event(s), {} xrun callback(s): PipeWire's JACK calls the xrun "
      "callback at most once a cycle and only when its driver counted an xrun (not for a late "
      "client, which is counted on the client's own node, and the Dummy-Driver counts none of "
      "its own), so the chain lost audio that no xrun reported; the cycle table's xrun cycles "
      "and the audible check are this backend's witnesses",
      a.events, r.xruns.monitor_events);
}

}  // namespace

std::vector<std::string> audio_match_warnings(const RunResult& r) {
  if (!r.audio) return {};
  std::vector<std::string> out = match_lines(r);
  if (std::string note = pipewire_glitch_note(r); !note.empty()) out.push_back(std::move(note));
  return out;
}

std::vector<std::string> reclaim_warnings(const ReclaimResult& rr) {
  std::vector<std::string> out;
  if (!rr.reclaimed.empty()) {
    out.push_back(fmt::format("freed {} JACK registry slot(s) held by dead xrunlab servers: {}",
                              rr.reclaimed.size(), fmt::join(rr.reclaimed, ", ")));
  }
  if (!rr.removed_files.empty()) {
    constexpr size_t kNamed = 4;
    const std::vector<std::string> named(
        rr.removed_files.begin(), rr.removed_files.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                 kNamed, rr.removed_files.size())));
    out.push_back(fmt::format(
        "removed {} /dev/shm file(s) (semaphores, sockets, card records, cycle tables) of dead "
        "xrunlab servers: {}{}",
        rr.removed_files.size(), fmt::join(named, ", "),
        rr.removed_files.size() > kNamed ? ", ..." : ""));
  }
  if (!rr.warning.empty()) out.push_back(rr.warning);
  return out;
}

}  // namespace xrunlab
