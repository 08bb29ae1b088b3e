#!/usr/bin/env bash
# Installs the Debian 12 packages hxsim needs, only those missing. Idempotent, non-interactive.
# (make: Verilator builds a user's RTL design with its generated Makefile at run time.)
set -euo pipefail
pkgs=(g++ make cmake ninja-build pkgconf git ccache libsystemc-dev libyaml-cpp-dev nlohmann-json3-dev
      libgtest-dev libboost-graph-dev libcli11-dev python3-matplotlib verilator yosys libopenmpi-dev openmpi-bin)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
