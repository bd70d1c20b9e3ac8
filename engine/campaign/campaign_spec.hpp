// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A campaign file (TOML) as typed data: the cases as the product of the axes it lists, the fixed
// `run` options, the repetitions and their order. Parsing only: what a case runs is planned by
// campaign_plan.hpp, and whether its options are valid is checked there, before anything runs.
//
//   name = "iso-vs-fifo"            # the campaign's folder: results/campaigns/<name>/
//   repetitions = 3                 # runs per case (>= 1)
//   order = "shuffled"              # or "sequential"; shuffled interleaves the cases
//   seed = 42                       # optional: the shuffle's seed (recorded either way)
//   warmup_s = 5                    # optional: one uncounted run of the first case first
//   sections = ["maxima-spread"]    # optional: report sections beyond the usual ones
//   [run]                           # options of every run, as `xrunlab run` takes them
//   clients = 14
//   period = 128
//   duration = 15
//   [axes]                          # one list per axis; the cases are their product
//   policy = ["fifo", "iso-emu:70", "other:-20"]
//   load = ["none", "compile"]
//   [[cases]]                       # optional, repeatable: a case beyond the axes' product,
//   name = "bench alone"            #   [run]'s options with these replacing the same keys
//   load = "bench"                  #   (not duration: every run of a campaign is as long)
//   baseline = "none"
//
// Errors name the file, the line and the key: "campaign.toml:7: [axes] period: ...".
// Non-realtime.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xrunlab {

// One option of `xrunlab run`, as the file gave it: the flag (without dashes) and its values as
// text (several for a repeatable flag such as load; a bool as "true"/"false").
struct CampaignOption {
  std::string key;  // the run flag without "--", e.g. "dsp-load"
  std::vector<std::string> values;
  int line = 0;  // where the file gave it
};

struct CampaignAxis {
  std::string key;                  // the run flag without "--": policy, load, backend, ...
  std::vector<std::string> values;  // one per case along this axis; "none" for load: no load
  int line = 0;
};

// A [[cases]] table: one case beyond the axes' product. Its options replace [run]'s of the
// same key; the axes do not apply to it.
struct CampaignExtraCase {
  std::string name;                     // its `name`, or "" (the plan names it by its values)
  std::vector<CampaignOption> options;  // in file order
  int line = 0;
};

struct CampaignSpec {
  std::string path;  // the file, for messages
  std::string text;  // its whole text (campaign.json keeps it)
  std::string name;
  int repetitions = 1;
  std::string order = "shuffled";  // shuffled | sequential
  std::optional<uint64_t> seed;
  double warmup_s = 0;
  std::vector<std::string> sections;           // campaign_section_names(), each once, in file order
  std::vector<CampaignOption> fixed;           // [run], in file order
  std::vector<CampaignAxis> axes;              // [axes], in file order
  std::vector<CampaignExtraCase> extra_cases;  // [[cases]], in file order
};

// The report sections a campaign file may ask for beyond the usual ones:
//   maxima-spread  the spread of each case's maxima across its repetitions (Delay Maximum,
//                  Cycle Maximum, cyclictest's maximum) and the runs per case that would
//                  resolve a difference of 10, 20 or 50 % between two kernels at that spread
//                  (engine/campaign/maxima_spread.hpp); maxima-spread.png
//   preempt-2004   the 2004 realtime-preempt table: per load, the clients' DSP loops within
//                  100 us of nominal, the worst overhead and loop, --ping's loss
//                  (engine/campaign/preempt_2004.hpp)
//   periodic-2001  the 2001 scheduler-latency table: cyclictest's p50/p99/max against the number
//                  of cpu hogs, the audio graph beside it, a timed benchmark's slowdown
//                  (engine/campaign/periodic_2001.hpp); latency-vs-runqueue.png
const std::vector<std::string>& campaign_section_names();

// The axes a campaign may vary (run flags without dashes).
const std::vector<std::string>& campaign_axis_keys();

// Parses a campaign file's text. Throws xrunlab::Error(kUsage) with one line naming `path`, the
// line and the key at fault.
CampaignSpec parse_campaign(const std::string& text, const std::string& path);

// Shortens or lengthens a campaign (--scale, --duration, --repetitions): the runs' duration
// becomes `duration` if given, then is multiplied by `scale` (as is the warm-up); at least 1 s.
// Throws Error(kUsage) for a value out of range.
void adjust_campaign(CampaignSpec& spec, std::optional<double> scale,
                     std::optional<double> duration, std::optional<int> repetitions);

// Reads and parses the file; a file that cannot be read is Error(kUsage) naming it.
CampaignSpec load_campaign(const std::string& path);

}  // namespace xrunlab
