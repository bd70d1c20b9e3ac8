#!/usr/bin/env bash
# Builds xrunlab and runs every test: unit tests, integration tests against the real jackd,
# and the lock-free ring test again under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure

cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DXRUNLAB_SANITIZE=thread \
  -DXRUNLAB_BENCHMARKS=OFF >/dev/null
cmake --build build-tsan -j"$jobs" --target spsc_ring_test
build-tsan/bin/spsc_ring_test

# The callback benchmark, briefly: proves it runs (its numbers are for people, not asserted).
build/bin/callback_bench --benchmark_min_time=0.05 --benchmark_filter=BM_Bookkeeping
