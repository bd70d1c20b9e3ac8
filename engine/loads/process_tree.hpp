// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The processes below one process, as /proc shows them at the moment of the call: how
// xrunlab-load finds every process of its load (children, their children, and the orphans it
// adopts as a child subreaper) to stop them, and how the tests see that none is left.
// Non-realtime.
#include <sys/types.h>

#include <vector>

namespace xrunlab {

// Pids of the living processes (zombies included) whose parent chain leads to `root`, from
// /proc; `root` itself is not listed.
std::vector<pid_t> descendant_pids(pid_t root);

}  // namespace xrunlab
