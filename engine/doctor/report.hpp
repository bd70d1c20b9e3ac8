// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab doctor`'s two outputs of the same check results: a table for people (fitted to the
// terminal's width, or plain when piped) and JSON for tools; and its exit code.
// Non-realtime.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/base/errors.hpp"
#include "engine/doctor/checks.hpp"

namespace xrunlab {

// The table: one row per check (STATUS, CHECK, FOUND); under every WARN, FAIL and ROOT row its
// why and fix. width > 0: every line is wrapped to `width` columns (a terminal); width 0: no
// wrapping (piped). `color`: the status words in ANSI colours (a terminal without NO_COLOR).
// The last line counts the statuses and names the exit code.
std::string format_doctor_table(const std::vector<CheckResult>& results, int width,
                                bool color = false);

// {"schema_version": 1, "checks": [{id, title, status, found, why, fix}] (keys in this order),
//  "summary": {ok, warn, fail, needs_root, skipped, worst, exit_code}}.
nlohmann::ordered_json doctor_json(const std::vector<CheckResult>& results);

// 0 when the worst status is OK, skipped or needs root; ExitCode::kDoctorWarn for WARN;
// ExitCode::kDoctorFail for FAIL.
ExitCode doctor_exit_code(const std::vector<CheckResult>& results);

}  // namespace xrunlab
