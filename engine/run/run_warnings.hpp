// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// The warnings a finished run owes its reader, as pure functions of the result: each names
// what disagrees or went missing, so the numbers are not taken for more than they are.
// Non-realtime; unit-tested in tests/run/run_warnings_test.cpp.
#include <string>
#include <vector>

#include "engine/jack/jack_registry.hpp"
#include "engine/result/result.hpp"

namespace xrunlab {

// Before finalize(): two xrun counts that should agree but do not (the monitor's events vs
// jackd's log: its client events, plus its driver xruns where those reach the monitor),
// clients that lost cycle records (ring full), and an audio check that is incomplete (no
// totals from the tail) or lost audio before checking it.
std::vector<std::string> count_warnings(const RunResult& r);

// After finalize() matched glitches with xruns: audible glitches no xrun explains, and xruns
// nobody heard on the checked port.
std::vector<std::string> audio_match_warnings(const RunResult& r);

// What freeing dead xrunlab servers' leftovers did (JACK registry slots, /dev/shm files), as
// warnings: a run that had to clean up after an earlier one says so. The first 4 files are
// named.
std::vector<std::string> reclaim_warnings(const ReclaimResult& rr);

}  // namespace xrunlab
