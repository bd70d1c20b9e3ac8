#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The edit-build-test loop while working on xrunlab: the part of scripts/test.sh that one edit
# can break, in a minute or two instead of about eleven. CI runs scripts/test.sh, the whole
# check; run it before you push.
#
#   scripts/test-quick.sh             clang-format on the C++ files changed against HEAD (and
#                                     new ones), the build in build/ (configured as
#                                     scripts/test.sh configures it, so each reuses what the
#                                     other built), clang-tidy on the changed .cpp files of
#                                     engine/, clients/ and tools/, and every unit test
#                                     (ctest -L unit, nproc at a time)
#   scripts/test-quick.sh -R REGEX    and also the integration tests whose names match REGEX
#                                     (ctest -R, case-sensitive; each runs alone)
#
# Not run here: ThreadSanitizer, the fuzzers, the callback benchmark and the integration
# tests not asked for. Exit codes: 0 passed, 1 a step failed, 2 bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs="$(nproc)"
integration=""
while [ $# -gt 0 ]; do
  case "$1" in
    -R)
      [ $# -ge 2 ] || { echo "test-quick.sh: error: -R needs a pattern" >&2; exit 2; }
      integration=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "test-quick.sh: error: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "test-quick.sh: error: not a git checkout; run scripts/test.sh" >&2; exit 2; }
changed=()
while IFS= read -r f; do
  [ -f "$f" ] && changed+=("$f")
done < <({ git diff --name-only HEAD; git ls-files --others --exclude-standard; } |
         grep -E '\.(cpp|hpp|h)$' | sort -u)

if [ "${#changed[@]}" -gt 0 ]; then
  clang-format --dry-run --Werror "${changed[@]}" || exit 1
fi

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
  -DXRUNLAB_WERROR=ON >/dev/null
cmake --build build -j"$jobs" || exit 1

tidy_files=()
for f in "${changed[@]}"; do
  case "$f" in engine/*.cpp|clients/*.cpp|tools/*.cpp) tidy_files+=("$f") ;; esac
done
if [ "${#tidy_files[@]}" -gt 0 ]; then
  scripts/tidy.sh -j "$jobs" "${tidy_files[@]}" || exit 1
fi

ctest --test-dir build -L unit -j "$jobs" --output-on-failure || exit 1
if [ -n "$integration" ]; then
  ctest --test-dir build -L integration -R "$integration" --output-on-failure || exit 1
fi
echo "test-quick.sh: passed (the whole check is scripts/test.sh)"
