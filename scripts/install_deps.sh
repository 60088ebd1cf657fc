#!/usr/bin/env bash
# Installs tinyfit's build and test dependencies from Debian 12 packages.
# Idempotent and non-interactive; uses sudo when not run as root.
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libonnx-dev libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler
  libcli11-dev nlohmann-json3-dev libexpected-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  coinor-libcbc-dev
  python3-onnx python3-numpy
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  valgrind  # host instruction counts of emitted C (bench/mcu_latency)
  libopenmpi-dev openmpi-bin  # the host link of multi-device emitted C (runtime/link/tinyfit_link_mpi.c)
)

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

# Skip the slow apt-get update when everything is already installed.
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install_deps: all ${#packages[@]} packages already installed"
  exit 0
fi
echo "install_deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update
"${sudo_cmd[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
