#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs clang-tidy (Debian 12's clang-tidy 14; the checks and why some are off: .clang-tidy) on
# every C++ file of engine/, clients/ and tools/ that build/compile_commands.json compiles, and
# on the project headers they include; $(nproc) files at a time. Prints each finding and exits 1
# if there is one. Needs a configured and built build/ (its compile commands and generated
# files): scripts/test.sh runs it after the main build.
#
#   scripts/tidy.sh                    every file; one that passed before with the same source,
#                                      headers, compile command, clang-tidy and .clang-tidy is
#                                      not checked again (build/tidy/passed/)
#   scripts/tidy.sh --all              every file, the record of passes ignored
#   scripts/tidy.sh -j N               N files at a time (default: nproc)
#   scripts/tidy.sh FILE...            only these files (paths from the top folder)
#   scripts/tidy.sh --function-sizes   lists the functions longer than 120 lines
#                                      (readability-function-size), longest first; a report,
#                                      never a failure
#
# clang-tidy reads build/tidy/compile_commands.json: build/'s commands without the precompiled
# header (a GCC PCH means nothing to clang, and without it a missing #include shows) and
# without -Werror.
# Exit codes: 0 no finding, 1 a finding, 2 bad arguments, 3 clang-tidy or build/ missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

usage() { sed -n '2,22p' "$0"; }
jobs=$(nproc)
all=0
sizes=0
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --all) all=1 ;;
    --function-sizes) sizes=1 ;;
    -j)
      [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] ||
        { echo "tidy.sh: error: -j needs a positive number" >&2; exit 2; }
      jobs=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "tidy.sh: error: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) [ -f "$1" ] || { echo "tidy.sh: error: no file '$1'" >&2; exit 2; }
       files+=("$(realpath "$1")") ;;
  esac
  shift
done

tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[ -n "$tidy" ] ||
  { echo "tidy.sh: error: clang-tidy not found; run scripts/setup.sh (it installs clang-tidy)" >&2
    exit 3; }
[ -f build/compile_commands.json ] ||
  { echo "tidy.sh: error: no build/compile_commands.json; build first (scripts/setup.sh)" >&2
    exit 3; }

# Known findings not fixed yet, as FILE:LINE:CHECK, matched exactly (so one that moves fails
# again): printed on every run, never failed on, and their files checked again every time.
# An entry is a finding whose fix is under way in its file; the list is empty once they land.
pending=()

out=build/tidy
# A report has a folder of its own, so it may run while the checks do.
if [ "$sizes" = 1 ]; then out=build/tidy/function-sizes; fi
mkdir -p "$out/passed" "$out/logs"

# The compile database without the PCH, and one line per file to check: KEY FILE. KEY hashes
# what clang-tidy's verdict depends on: clang-tidy's version, .clang-tidy, the compile command,
# the file and every project header its last compile read (the build's .d file; without one
# the key is unique, so the file is checked).
"$tidy" --version >"$out/version"
/usr/bin/python3 - "$root" "$out" "${files[@]}" >"$out/todo" <<'EOF'
import hashlib, json, os, shlex, sys

root, out, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
mine = tuple(os.path.join(root, d) + "/" for d in ("engine", "clients", "tools"))
db = json.load(open(os.path.join(root, "build", "compile_commands.json")))


def without_pch(args):
    # GCC: -Winvalid-pch -include <dir>/cmake_pch.hxx; clang: -Xclang -include-pch -Xclang <pch>
    # -Xclang -include -Xclang <dir>/cmake_pch.hxx. And -Werror: clang's own warnings are not
    # what is checked here (g++ builds it; clang-tidy reports only the checks'), so they must
    # not turn into errors.
    kept, i = [], 0
    while i < len(args):
        a = args[i]
        if a in ("-Winvalid-pch", "-Werror"):
            i += 1
        elif a == "-include" and i + 1 < len(args) and "cmake_pch" in args[i + 1]:
            i += 2
        elif a == "-Xclang" and i + 1 < len(args) and args[i + 1] in ("-include-pch", "-include"):
            i += 4
        else:
            kept.append(a)
            i += 1
    return kept


def depfile(entry, args):
    if "-o" not in args:
        return None
    return os.path.join(entry["directory"], args[args.index("-o") + 1] + ".d")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


common = hashlib.sha256(read(os.path.join(out, "version")) +
                        (read(os.path.join(root, ".clang-tidy")) or b"")).digest()
kept = []
for e in db:
    f = os.path.realpath(e["file"])
    if not f.startswith(mine) or (only and f not in only):
        continue
    args = without_pch(shlex.split(e["command"]))
    kept.append({"directory": e["directory"], "file": f, "command": shlex.join(args)})
    h = hashlib.sha256(common + shlex.join(args).encode())
    deps = read(depfile(e, args) or "")
    if deps is None:
        h.update(os.urandom(16))
        deps = b""
    names = deps.replace(b"\\\n", b" ").split(b":", 1)[-1].split()
    for n in sorted({f.encode()} | set(names)):
        p = os.path.realpath(os.path.join(e["directory"], n.decode()))
        h.update(p.encode())
        if p.startswith(root + "/") and not p.endswith((".gch", ".pch")):
            h.update(read(p) or b"missing")
    print(h.hexdigest(), os.path.relpath(f, root))
json.dump(kept, open(os.path.join(out, "compile_commands.json"), "w"), indent=1)
EOF
[ -s "$out/todo" ] || { echo "tidy.sh: no file of engine/, clients/ or tools/ to check" >&2; exit 2; }

# ---- --function-sizes: a report ------------------------------------------------------------------
if [ "$sizes" = 1 ]; then
  config='{Checks: "-*,readability-function-size", CheckOptions: [{key:
    readability-function-size.LineThreshold, value: 120}]}'
  awk '{print $2}' "$out/todo" |
    xargs -P "$jobs" -n 1 "$tidy" -p "$out" --quiet --config="$config" \
      --header-filter="^$root/(engine|clients|tools)/" 2>/dev/null |
    awk -v root="$root/" '
      / warning: function .* exceeds recommended size/ {
        loc = $1; sub(/:[0-9]+:$/, "", loc); sub(root, "", loc)
        match($0, /function .* exceeds/); fn = substr($0, RSTART + 10, RLENGTH - 19)
      }
      / note: [0-9]+ lines including/ && loc != "" {
        match($0, /note: [0-9]+ lines/); n = substr($0, RSTART + 6, RLENGTH - 12)
        print n "\t" loc "\t" fn; loc = ""
      }' | sort -u | sort -t$'\t' -k1,1nr |
    awk -F'\t' 'BEGIN { print "lines  function (file:line)" }
                { printf "%5d  %s (%s)\n", $1, $3, $2 } END { print NR " functions over 120 lines" }'
  exit 0
fi

# ---- the checks ------------------------------------------------------------------------------------
if [ "$all" = 1 ]; then rm -f "$out"/passed/*; fi
: >"$out/queue"
skipped=0
while read -r key file; do
  if [ -e "$out/passed/$key" ]; then skipped=$((skipped + 1)); else echo "$key $file" >>"$out/queue"; fi
done <"$out/todo"
total=$(wc -l <"$out/todo")
queued=$(wc -l <"$out/queue")
echo "tidy.sh: $queued of $total files to check ($skipped passed before unchanged), $jobs at a time"

# One file: its findings (clang-tidy's warnings and errors) into logs/, a pass recorded by key.
check_one() {
  local key=$1 file=$2 log
  log="$out/logs/$(tr / _ <<<"$file").log"
  if "$tidy" -p "$out" --quiet "$root/$file" >"$log" 2>&1 &&
     ! grep -q -E ': (warning|error): ' "$log"; then
    touch "$out/passed/$key"
    rm -f "$log"
  fi
}
export -f check_one
export out tidy root
rm -f "$out"/logs/*
start=$(date +%s)
xargs -P "$jobs" -L 1 bash -c 'check_one "$@"' _ <"$out/queue"
took=$(( $(date +%s) - start ))

# Each finding once (a header's shows in every file that includes it), as FILE:LINE:COL: ...
findings=$(cat "$out"/logs/*.log 2>/dev/null | grep -E ': (warning|error): ' |
           sed "s|^$root/||" | sort -u || true)
new=""
held=0
while IFS= read -r f; do
  [ -n "$f" ] || continue
  key="$(cut -d: -f1,2 <<<"$f"):$(sed -n 's/.*\[\([^]]*\)\]$/\1/p' <<<"$f")"
  if printf '%s\n' "${pending[@]}" | grep -q -x -F -e "$key"; then
    echo "tidy.sh: pending (see the list in scripts/tidy.sh): $f"
    held=$((held + 1))
  else
    new+="$f"$'\n'
  fi
done <<<"$findings"
if [ -n "$new" ]; then
  printf '%s' "$new"
  echo "tidy.sh: FAILED: $(grep -c . <<<"$new") finding(s) (${took} s); each file's full" \
       "output is in $out/logs/" >&2
  exit 1
fi
if [ "$held" -gt 0 ]; then pend=", but $held pending"; else pend=""; fi
echo "tidy.sh: no finding in $total files$pend (${took} s)"
