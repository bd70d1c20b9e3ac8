#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks the C++ formatting (clang-format), builds xrunlab, runs clang-tidy on the engine and
# the clients (scripts/tidy.sh: any finding fails) and runs every test: the lock-free parts (the
# ring, the card's seqlock, the process callback's context shared with the drain thread) under
# ThreadSanitizer, a short run of the callback benchmark (it must work; its numbers are for
# people and are not asserted), every libFuzzer target for 10 s (scripts/fuzz.sh: clang, ASan +
# UBSan, in build-fuzz; any finding fails), then all unit tests and the integration tests
# against the real jackd (ctest, last).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"

# The C++ sources as .clang-format has them (clang-format 14, Debian 12's): a file that is not
# fails here, before anything is built. `git ls-files` where there is git; find elsewhere.
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z '*.cpp' '*.hpp' '*.h' | xargs -0 clang-format --dry-run --Werror
else
  find engine clients tests tools -name '*.cpp' -o -name '*.hpp' -o -name '*.h' |
    tr '\n' '\0' | xargs -0 clang-format --dry-run --Werror
fi

# For /usr, as the .deb installs it, so scripts/package.sh packs this build instead of compiling
# another (`cmake --install build --prefix DIR` installs anywhere: the programs find their
# files relative to their own folder).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
  -DXRUNLAB_WERROR=ON >/dev/null
cmake --build build -j"$jobs"

# After the build: clang-tidy reads its compile commands and generated files.
scripts/tidy.sh -j "$jobs"

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DXRUNLAB_SANITIZE=thread -DXRUNLAB_WERROR=ON \
  -DXRUNLAB_BENCHMARKS=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target spsc_ring_test vcard_seqlock_test process_callback_test
build-tsan/bin/spsc_ring_test
build-tsan/bin/vcard_seqlock_test
build-tsan/bin/process_callback_test

build/bin/callback_bench --benchmark_min_time=0.05 --benchmark_filter=BM_Bookkeeping

scripts/fuzz.sh 10

# The unit tests side by side, $jobs at a time; every integration test alone (RUN_SERIAL in
# tests/CMakeLists.txt: real jackd runs under realtime scheduling share the cores, and some
# assert exact counts), as do the unit tests that hold a machine-wide resource (RESOURCE_LOCK).
ctest --test-dir build --output-on-failure -j "$jobs"
