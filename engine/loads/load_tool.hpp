// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// xrunlab-load: one process per background load (compile loop, hackbench, CPU hogs, streaming
// file I/O, loopback TCP, any user command). It is a child subreaper, so every process the load
// runs stays its descendant; on SIGTERM/SIGINT/SIGHUP (or PR_SET_PDEATHSIG from the engine) it
// stops all of them (SIGTERM, 1 s grace, SIGKILL, reaps until none is left), removes its
// scratch folder and writes a JSON report atomically.
//
//   xrunlab-load --report FILE --scratch DIR [--nice N] KIND [ARGS...]
//
// Exit codes: 0 stopped by a signal, everything cleaned up, report written; 1 the load could not
// be set up or cleaned up (report written when possible); 2 bad usage; 3 a program is missing.
// Never launches through a shell: programs run from argv vectors (spawn_process, fork + exec).

namespace xrunlab {

// The whole xrunlab-load program; main() only calls this.
int load_tool_main(int argc, char** argv);

}  // namespace xrunlab
