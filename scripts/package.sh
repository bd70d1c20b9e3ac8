#!/usr/bin/env bash
# Builds the .deb (CPack) in build-deb/ and checks its metadata and contents; with --install it
# then installs it with apt-get (as root or through sudo), runs a short measurement with the
# installed xrunlab from an empty folder and checks the summary, the plots and `plot`,
# `summary` and `compare` on the result.
#
#   scripts/package.sh            build build-deb/xrunlab_<version>_<arch>.deb and check it
#   scripts/package.sh --install  ... then install it and run it (CI does this)
#
# The package is configured for /usr (multiarch libdir: /usr/lib/<triplet>/xrunlab) without the
# tests, and with XRUNLAB_WERROR at its default (off), as a packager builds it. Exit 1 when a
# check fails, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."

install=0
for arg in "$@"; do
  case "$arg" in
    --install) install=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "package.sh: error: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "package.sh: FAILED: $*" >&2; exit 1; }

cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
  -DXRUNLAB_TESTS=OFF -DXRUNLAB_BENCHMARKS=OFF >/dev/null
cmake --build build-deb -j"$(nproc)"
rm -f build-deb/xrunlab_*.deb
(cd build-deb && cpack -G DEB >/dev/null)
debs=(build-deb/xrunlab_*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no build-deb/xrunlab_*.deb"
deb="${debs[0]}"
echo "package.sh: built $deb"

# ---- metadata ----------------------------------------------------------------------------------
field() { dpkg-deb --field "$deb" "$1"; }
version=$(build-deb/bin/xrunlab --version | awk '{print $NF}')
[ "$(field Package)" = xrunlab ] || fail "Package is '$(field Package)', not xrunlab"
[ "$(field Version)" = "$version" ] ||
  fail "Version is '$(field Version)' but xrunlab --version says '$version'"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] ||
  fail "Architecture is '$(field Architecture)'"
depends=$(field Depends)
for d in jackd2 'gnuplot-nox | gnuplot' libjack libasound2 libsndfile1 libstdc++6; do
  case "$depends" in *"$d"*) ;; *) fail "Depends lacks $d: $depends" ;; esac
done
recommends=$(field Recommends)
for r in rt-tests stress-ng pipewire-jack; do
  case "$recommends" in *"$r"*) ;; *) fail "Recommends lacks $r: $recommends" ;; esac
done

# ---- contents ----------------------------------------------------------------------------------
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
contents=$(dpkg-deb --contents "$deb" | awk '{print $1, $NF}')
expect=(
  "-rwxr-xr-x ./usr/bin/xrunlab"
  "-rwxr-xr-x ./usr/libexec/xrunlab/xrunlab-client"
  "-rwxr-xr-x ./usr/libexec/xrunlab/xrunlab-load"
  "-rwxr-xr-x ./usr/libexec/xrunlab/xrunlab-janitor"
  "./usr/lib/$triplet/xrunlab/libasound_module_pcm_xrunlab.so"
  "./usr/share/xrunlab/scripts/timeline.gp"
  "./usr/share/xrunlab/scripts/latency.gp"
  "./usr/share/xrunlab/scripts/cycles.gp"
  "./usr/share/xrunlab/scripts/compare.gp"
  "./usr/share/xrunlab/scripts/campaign.gp"
  "./usr/share/xrunlab/scripts/sweep.gp"
  "./usr/share/xrunlab/scripts/campaigns/jack_test4.toml"
  "./usr/share/xrunlab/schema/run.schema.json"
  "./usr/share/man/man1/xrunlab.1.gz"
  "./usr/share/man/man1/xrunlab-run.1.gz"
  "./usr/share/bash-completion/completions/xrunlab"
  "./usr/share/doc/xrunlab/copyright"
)
paths=$(awk '{print $2}' <<<"$contents")
for e in "${expect[@]}"; do
  if [[ "$e" == ./* ]]; then
    grep -q -x -F "$e" <<<"$paths" || fail "the package has no ${e#.}"
  else
    grep -q -x -F "$e" <<<"$contents" || fail "the package has no ${e##* .} with mode ${e%% *}"
  fi
done
# Nothing in alsa-lib's own plug-in folder, nothing outside /usr, no test programs.
if grep -q -E ' \./usr/lib/[^ ]*alsa-lib/' <<<"$contents"; then
  fail "the package puts files in alsa-lib's plug-in folder"
fi
if grep -v -q -E ' \./(usr(/.*)?)?$' <<<"$contents"; then
  fail "the package has files outside /usr: $(grep -v -E ' \./(usr(/.*)?)?$' <<<"$contents")"
fi
if grep -q -E '_test$|_bench$' <<<"$contents"; then fail "the package holds test programs"; fi
echo "package.sh: metadata and contents as expected ($(wc -l <<<"$contents") entries)"

[ "$install" = 1 ] || exit 0

# ---- install it and run it ---------------------------------------------------------------------
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "./$deb" >/dev/null
[ "$(command -v xrunlab)" = /usr/bin/xrunlab ] || fail "xrunlab is not /usr/bin/xrunlab after install"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
priority=()
if [ "$(id -u)" -ne 0 ] && [ "$(ulimit -r)" != unlimited ] && [ "$(ulimit -r)" -lt 70 ]; then
  priority=(--priority 0)
fi
# From an empty folder, with no variable pointing anywhere: the installed files only.
(
  cd "$work"
  env -u XRUNLAB_SCRIPTS xrunlab run --period 256 --duration 3 --label installed \
    --output "$work/out" "${priority[@]}"
)
run=$(find "$work/out/installed" -mindepth 1 -maxdepth 1 -type d | head -n 1)
[ -n "$run" ] && [ -f "$run/summary.txt" ] || fail "the installed xrunlab wrote no summary.txt"
grep -q '"status": "completed"' "$run/run.json" || fail "the installed run did not complete"
for p in timeline latency cycles; do
  [ -s "$run/plots/$p.png" ] || fail "the installed run drew no plots/$p.png"
done
grep -q "vcard" "$run/run.json" || fail "the installed run did not use the vcard"
grep -q "/usr/lib/$triplet/xrunlab/libasound_module_pcm_xrunlab.so" "$run/vcard-asound.conf" ||
  fail "vcard-asound.conf does not name the installed plug-in"
(
  cd "$work"
  rm -rf "$run/plots"
  env -u XRUNLAB_SCRIPTS xrunlab plot "$run" >/dev/null
  [ -s "$run/plots/timeline.png" ] || fail "xrunlab plot drew no timeline.png"
  env -u XRUNLAB_SCRIPTS xrunlab summary "$work/out" --write "$work/SUMMARY" >/dev/null
  [ -s "$work/SUMMARY" ] || fail "xrunlab summary wrote no SUMMARY"
  env -u XRUNLAB_SCRIPTS xrunlab compare "$run" --write "$work/compare.png" >/dev/null
  [ -s "$work/compare.png" ] || fail "xrunlab compare drew no compare.png"
)
echo "package.sh: installed $deb; a run from $work, then plot, summary and compare, worked"
