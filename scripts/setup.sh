#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs what xrunlab needs on Debian 12 (apt-get through sudo unless run as root), builds it,
# and - unless --no-demo is given - runs a short measurement that ends with a summary and plots.
#
#   scripts/setup.sh            install, build, run the demo
#   scripts/setup.sh --no-demo  install and build only (what CI does before the tests)
set -euo pipefail
cd "$(dirname "$0")/.."

demo=1
for arg in "$@"; do
  case "$arg" in
    --no-demo) demo=0 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) echo "setup.sh: error: unknown argument '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

packages=(
  build-essential cmake pkg-config ccache
  jackd2 libjack-jackd2-dev libasound2-dev libsndfile1-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libtomlplusplus-dev libfmt-dev
  gnuplot-nox rt-tests stress-ng procps xvfb mesa-utils jq python3 trace-cmd
  help2man python3-jsonschema python3-yaml libsqlite3-dev dpkg-dev file debootstrap clang-format
  clang-tidy
  zlib1g-dev
  clang-14 libfuzzer-14-dev libclang-rt-14-dev
  pipewire pipewire-bin pipewire-jack libspa-0.2-modules
  chromium-headless-shell
  iproute2 nftables
)
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup.sh: installing ${missing[*]}"
  $sudo apt-get update -qq
  # --no-install-recommends: jackd2's recommends pull in a whole desktop. Noninteractive: its
  # set-up would ask whether to enable realtime limits (xrunlab's preflight says what to do).
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi

# For /usr, as the .deb installs it, so scripts/package.sh packs this build instead of compiling
# another (`cmake --install build --prefix DIR` installs anywhere: the programs find their
# files relative to their own folder).
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
  -DXRUNLAB_WERROR=ON >/dev/null
cmake --build build -j"$(nproc)"

if [ "$demo" = 1 ]; then
  # The demo: 14 clients x 4 ports like jack_test, but 256 frames and 10 s: on a small VM the
  # default 64 frames mostly measures the VM's timer noise (docs/architecture.md, Timer noise
  # on small VMs), and a newcomer should see a summary in seconds. `build/bin/xrunlab run`
  # alone is the full jack_test setting.
  priority=()
  if [ "$(id -u)" -ne 0 ] && [ "$(ulimit -r)" != unlimited ] && [ "$(ulimit -r)" -lt 70 ]; then
    echo "setup.sh: note: realtime scheduling is not permitted for $(id -un) (ulimit -r is" \
         "$(ulimit -r)); the demo runs without it (--priority 0). To allow it: add" \
         "'@audio - rtprio 95' to /etc/security/limits.d/audio.conf, join the audio group," \
         "log in again." >&2
    priority=(--priority 0)
  fi
  build/bin/xrunlab run --period 256 --duration 10 --label demo "${priority[@]}"
fi
