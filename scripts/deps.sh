#!/usr/bin/env bash
# The one list of Debian packages PipeScope needs to build, test and run.
# Sourced by scripts/run and scripts/test; installs only what is missing.
set -euo pipefail

PIPESCOPE_DEBIAN_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  libsqlite3-dev sqlite3 zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev libsimdjson-dev libre2-dev
  libopenblas-dev libopenmpi-dev openmpi-bin
  qt6-base-dev qt6-svg-dev qt6-charts-dev libgl-dev
  xvfb xauth fonts-dejavu-core
  clang clang-format libclang-rt-14-dev
  ccache lld
)

pipescope_install_deps() {
  local missing=()
  for pkg in "${PIPESCOPE_DEBIAN_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "pipescope: missing Debian packages: ${missing[*]}" >&2
      echo "pipescope: not root and sudo is absent; install them as root, then rerun." >&2
      exit 1
    fi
  fi
  echo "pipescope: installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
