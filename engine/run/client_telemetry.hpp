// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What one telemetry message of a client (engine/wire/telemetry.hpp) changes in the run's
// result. A pure function of the result and the message: the hub's thread calls it under the
// result's lock, and tests call it directly.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "engine/result/result.hpp"
#include "engine/wire/telemetry.hpp"

namespace xrunlab {

// run.json keeps the first glitches; their total is exact in the audio totals.
inline constexpr size_t kMaxGlitchesKept = kGlitchesKept;  // the result's bound (result.hpp)

// Applies one line of client `index0` (0-based) to r.client_results[index0] (and r.audio for
// the chain's tail). `window_start_us` (0 before the window opens) turns glitch times into
// seconds since the window start. A line that is not a valid message becomes a warning naming
// the client.
void apply_client_line(RunResult& r, size_t index0, std::string_view line,
                       uint64_t window_start_us);

}  // namespace xrunlab
