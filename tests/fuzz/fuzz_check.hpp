// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once
// What every fuzz target shares: FUZZ_CHECK, an invariant that aborts (the fuzzer then keeps the
// input as a crash) with the file, line and condition on stderr; and the input as text.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#define FUZZ_CHECK(cond)                                                                \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                     \
    }                                                                                   \
  } while (0)

namespace xrunlab::fuzz {

inline std::string_view text_of(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace xrunlab::fuzz
