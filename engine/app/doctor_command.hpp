// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// `xrunlab doctor`: reads the system (engine/doctor/snapshot), runs the checks and prints the
// table (a terminal: fitted to its width) or --json. Returns the exit code: 0, 20 (WARN) or 21
// (FAIL), as engine/base/errors.hpp documents.
#include "engine/app/cli.hpp"

namespace xrunlab {

int run_doctor_command(const DoctorOptions& o);

}  // namespace xrunlab
