// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// SplitMix64: a small pseudo-random sequence from a 64-bit seed, the same on every machine.
// xrunlab-load draws the constants of its generated C sources and the bytes its I/O and network
// workers write from it; nothing here needs to be unpredictable. Non-realtime.
#include <cstdint>

// Internal to the loads library: the parts of the xrunlab-load program.
namespace xrunlab::load_tool {

struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }
  unsigned between(unsigned lo, unsigned hi) { return lo + below(hi - lo + 1); }
};

}  // namespace xrunlab::load_tool
