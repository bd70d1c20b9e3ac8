// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// A run's identity across machines and tools: the key of its row in a history database and of
// its tests in the exports (KCIDB, SQUAD, OpenMetrics).
//
// A run of this version carries run.json "run_id": a random UUID (version 4, from the kernel's
// getrandom) drawn when the run starts, so two runs never share one, even on two machines
// started in the same second. A run.json from before run_id gets a derived one, the same every
// time it is read: "h-" followed by 16 hex digits of FNV-1a 64 over its host name, start time
// and private JACK server name (unique per run on one machine). Non-realtime.
#include <string>

namespace xrunlab {

struct RunResult;

// A new random UUID, "xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx" (N: 8, 9, a or b). Throws
// Error(kRunFailed) when the kernel gives no random bytes.
std::string new_run_id();

// r.run_id when set, else the derived id above.
std::string run_identity(const RunResult& r);

}  // namespace xrunlab
