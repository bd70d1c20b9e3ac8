// SPDX-License-Identifier: GPL-2.0-or-later
// The campaign file reader (engine/campaign/campaign_spec.hpp): parse_campaign on the input as
// TOML, then adjust_campaign as --scale and --duration do. Both throw only xrunlab::Error
// (kUsage) naming the file; anything else escapes and crashes the target. An accepted campaign
// is in the documented ranges, every axis and option has a value, the axes are distinct from
// the fixed options, and each [[cases]] case has options but no duration.
#include <cmath>
#include <string>

#include "engine/base/errors.hpp"
#include "engine/campaign/campaign_spec.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

void check_spec(const xrunlab::CampaignSpec& s) {
  FUZZ_CHECK(!s.name.empty());
  FUZZ_CHECK(s.repetitions >= 1 && s.repetitions <= 1000);
  FUZZ_CHECK(s.order == "shuffled" || s.order == "sequential");
  FUZZ_CHECK(s.warmup_s >= 0 && s.warmup_s <= 3600);  // also false for NaN
  for (const auto& o : s.fixed) FUZZ_CHECK(!o.key.empty() && !o.values.empty());
  for (const auto& a : s.axes) {
    FUZZ_CHECK(!a.key.empty() && !a.values.empty());
    for (const auto& o : s.fixed) FUZZ_CHECK(o.key != a.key);
  }
  // A [[cases]] case has options, none of them the duration every run shares.
  for (const auto& c : s.extra_cases) {
    FUZZ_CHECK(!c.options.empty());
    for (const auto& o : c.options) {
      FUZZ_CHECK(!o.key.empty() && !o.values.empty() && o.key != "duration");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(xrunlab::fuzz::text_of(data, size));
  xrunlab::CampaignSpec spec;
  try {
    spec = xrunlab::parse_campaign(text, "fuzz.toml");
  } catch (const xrunlab::Error& e) {
    FUZZ_CHECK(e.code() == xrunlab::ExitCode::kUsage);
    FUZZ_CHECK(std::string(e.what()).rfind("fuzz.toml", 0) == 0);
    return 0;
  }
  FUZZ_CHECK(spec.text == text && spec.path == "fuzz.toml");
  check_spec(spec);
  for (const auto& [scale, duration] :
       {std::pair<std::optional<double>, std::optional<double>>{0.5, std::nullopt},
        {std::nullopt, 60.0},
        {2.0, 30.0}}) {
    xrunlab::CampaignSpec adjusted = spec;
    try {
      xrunlab::adjust_campaign(adjusted, scale, duration, std::nullopt);
    } catch (const xrunlab::Error& e) {
      FUZZ_CHECK(e.code() == xrunlab::ExitCode::kUsage);
      continue;
    }
    check_spec(adjusted);
    int durations = 0;
    for (const auto& o : adjusted.fixed) {
      if (o.key != "duration") continue;
      ++durations;
      FUZZ_CHECK(o.values.size() == 1);
      const double d = std::stod(o.values.front());
      FUZZ_CHECK(std::isfinite(d) && d >= 1);
    }
    FUZZ_CHECK(durations >= 1);
  }
  return 0;
}
