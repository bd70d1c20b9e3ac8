#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the .deb (CPack) in build-deb/ and checks its metadata and contents; with --install it
# then installs it with apt-get (as root or through sudo), runs a short measurement with the
# installed xrunlab from an empty folder and checks the summary, the plots and `plot`,
# `summary` and `compare` on the result.
#
#   scripts/package.sh                 build build-deb/xrunlab_<version>_<arch>.deb and check it
#   scripts/package.sh --install       ... then install it here and run it
#   scripts/package.sh --clean-debian  ... then install it with apt-get into a minimal Debian 12
#                                      made by debootstrap (build-deb/clean-root, root only),
#                                      where nothing else is installed, and run it there: the
#                                      check that Depends names everything it needs (CI does
#                                      both)
#
# The package is made from build/, the folder scripts/setup.sh and scripts/test.sh build, when
# that is configured as a package needs (RelWithDebInfo for /usr, multiarch libdir
# /usr/lib/<triplet>/xrunlab, no sanitizer, no probe build of the card): nothing is compiled again, and CPack strips the
# programs it packs. Otherwise (another prefix or build type, or no build/) it is built in
# build-deb/ for /usr without the tests, with XRUNLAB_WERROR at its default (off), as a packager
# builds it. Either way the .deb and what checks it are in build-deb/. Exit 1 when a check
# fails, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."

install=0
clean_debian=0
for arg in "$@"; do
  case "$arg" in
    --install) install=1 ;;
    --clean-debian) clean_debian=1 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "package.sh: error: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

fail() { echo "package.sh: FAILED: $*" >&2; exit 1; }

# build/ as scripts/test.sh configures it, or a build of its own.
cached() { sed -n "s/^$1:[A-Z]*=//p" build/CMakeCache.txt 2>/dev/null; }
if [ "$(cached CMAKE_INSTALL_PREFIX)" = /usr ] && [ "$(cached CMAKE_BUILD_TYPE)" = RelWithDebInfo ] &&
   [ -z "$(cached XRUNLAB_SANITIZE)" ] && [ "$(cached XRUNLAB_FUZZ)" != ON ] &&
   [ "$(cached XRUNLAB_VCARD_PROBE)" != ON ]; then
  bdir=build
else
  bdir=build-deb
  cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
    -DXRUNLAB_TESTS=OFF -DXRUNLAB_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$bdir" -j"$(nproc)"
mkdir -p build-deb
rm -f build-deb/xrunlab_*.deb
cpack --config "$bdir/CPackConfig.cmake" -B "$PWD/build-deb" -G DEB >/dev/null
debs=(build-deb/xrunlab_*.deb)
[ -f "${debs[0]}" ] || fail "cpack made no build-deb/xrunlab_*.deb"
deb="${debs[0]}"
echo "package.sh: built $deb from $bdir/"

# ---- metadata ----------------------------------------------------------------------------------
field() { dpkg-deb --field "$deb" "$1"; }
version=$("$bdir"/bin/xrunlab --version | awk '{print $NF}')
[ "$(field Package)" = xrunlab ] || fail "Package is '$(field Package)', not xrunlab"
[ "$(field Version)" = "$version" ] ||
  fail "Version is '$(field Version)' but xrunlab --version says '$version'"
[ "$(field Architecture)" = "$(dpkg --print-architecture)" ] ||
  fail "Architecture is '$(field Architecture)'"
depends=$(field Depends)
for d in jackd2 'gnuplot-nox | gnuplot' libjack libasound2 libsndfile1 libsqlite3-0 libstdc++6; do
  case "$depends" in *"$d"*) ;; *) fail "Depends lacks $d: $depends" ;; esac
done
recommends=$(field Recommends)
for r in rt-tests stress-ng xvfb mesa-utils procps pipewire-jack iproute2; do
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
  "./usr/share/xrunlab/scripts/headroom.gp"
  "./usr/share/xrunlab/scripts/history.gp"
  "./usr/share/xrunlab/scripts/runqueue.gp"
  "./usr/share/xrunlab/scripts/campaigns/jack_test4.toml"
  "./usr/share/xrunlab/schema/run.schema.json"
  "./usr/share/man/man1/xrunlab.1.gz"
  "./usr/share/man/man1/xrunlab-run.1.gz"
  "./usr/share/bash-completion/completions/xrunlab"
  "./usr/share/doc/xrunlab/copyright"
  "./usr/share/doc/xrunlab/SECURITY.md"
)
paths=$(awk '{print $2}' <<<"$contents")
for e in "${expect[@]}"; do
  if [[ "$e" == ./* ]]; then
    grep -q -x -F -e "$e" <<<"$paths" || fail "the package has no ${e#.}"
  else
    grep -q -x -F -e "$e" <<<"$contents" || fail "the package has no ${e##* .} with mode ${e%% *}"
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
# The programs stripped (CPACK_STRIP_FILES): the build's debug information stays in the build.
unpacked=$(mktemp -d)
dpkg-deb -x "$deb" "$unpacked"
for p in usr/bin/xrunlab usr/libexec/xrunlab/xrunlab-client usr/libexec/xrunlab/xrunlab-load \
         usr/libexec/xrunlab/xrunlab-janitor "usr/lib/$triplet/xrunlab/libasound_module_pcm_xrunlab.so"; do
  file -b "$unpacked/$p" | grep -q ', stripped' || { rm -rf "$unpacked"; fail "/$p is not stripped"; }
done
rm -rf "$unpacked"
echo "package.sh: metadata and contents as expected ($(wc -l <<<"$contents") entries)"

# ---- a minimal Debian 12 with nothing but the package and what it depends on ---------------------
if [ "$clean_debian" = 1 ]; then
  [ "$(id -u)" -eq 0 ] || fail "--clean-debian needs root (debootstrap, chroot)"
  command -v debootstrap >/dev/null ||
    fail "--clean-debian needs debootstrap (apt-get install --no-install-recommends debootstrap)"
  root=build-deb/clean-root
  # One mount of each, undone on every exit path (the root folder itself is kept for next time).
  unmount() {
    for m in dev/shm dev proc; do
      mountpoint -q "$root/$m" && umount -l "$root/$m"
    done
    return 0
  }
  trap unmount EXIT
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    rm -rf "$root"
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null ||
      fail "debootstrap of Debian 12 into $root"
  fi
  # The /dev of this machine (jackd and the clients need /dev/null and friends), a private
  # /dev/shm (JACK's segments) and /proc.
  mount --bind /dev "$root/dev"
  mount -t tmpfs tmpfs "$root/dev/shm"
  mount -t proc proc "$root/proc"
  cp "$deb" "$root/tmp/"
  in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root "$@"; }
  # A package left from an earlier try goes first, with the dependencies it pulled in.
  in_root dpkg-query -W -f='${Status}\n' xrunlab 2>/dev/null | grep -q installed &&
    in_root env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq --autoremove xrunlab >/dev/null
  in_root apt-get update -qq >/dev/null || fail "apt-get update in $root"
  in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "/tmp/$(basename "$deb")" >"build-deb/clean-install.log" 2>&1 ||
    fail "apt-get install of the .deb in a minimal Debian 12: $(tail -n 5 build-deb/clean-install.log)"
  in_root sh -c 'cd /tmp && rm -rf clean-run && mkdir clean-run && cd clean-run &&
    xrunlab run --clients 3 --period 256 --duration 2 --label clean --output out' \
    >build-deb/clean-run.log 2>&1 ||
    fail "xrunlab run in a minimal Debian 12: $(tail -n 5 build-deb/clean-run.log)"
  crun=$(find "$root/tmp/clean-run/out/clean" -mindepth 1 -maxdepth 1 -type d | head -n 1)
  [ -n "$crun" ] && [ -s "$crun/summary.txt" ] && [ -s "$crun/plots/timeline.png" ] ||
    fail "the run in a minimal Debian 12 wrote no summary.txt or plots"
  grep -q '"status": "completed"' "$crun/run.json" ||
    fail "the run in a minimal Debian 12 did not complete"
  echo "package.sh: in a minimal Debian 12, apt-get installed $(basename "$deb") and" \
    "$(grep -c '^Setting up' build-deb/clean-install.log) packages with it; xrunlab run completed"
  unmount
  trap - EXIT
fi

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
