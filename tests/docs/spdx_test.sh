#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# spdx_test.sh SOURCE_DIR: every source, build, script and test file names its licence in its
# first two lines (after a shebang), as LICENSE says; data files (fixtures, golden files, fuzz
# corpora and dictionaries, results) are left out. Prints each file without it and exits 1.
set -euo pipefail
cd "$1"
missing=0
while IFS= read -r -d '' f; do
  if ! head -n 2 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later'; then
    echo "no SPDX-License-Identifier in the first two lines: $f"
    missing=$((missing + 1))
  fi
done < <(find CMakeLists.txt .ci engine clients tests tools scripts cmake packaging docs \
           \( -path tests/fixtures -o -path tests/golden -o -path tests/fuzz/corpus \
              -o -path tests/fuzz/dict -o -path docs/img \) -prune -o -type f \
           \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cmake' -o -name '*.sh' \
              -o -name '*.py' -o -name '*.gp' -o -name '*.yaml' -o -name CMakeLists.txt \
              -o -path .ci/run -o -path docs/completion/xrunlab \) -print0)
if [ "$missing" -gt 0 ]; then
  echo "spdx_test: $missing file(s) without a licence line"
  exit 1
fi
echo "spdx_test: every source file names its licence"
