#!/usr/bin/env bash
# README command 1: install the dependencies, build tinyfit (release) and run the
# main job on the default zoo model. Run from anywhere; builds in <repo>/build.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install_deps.sh
jobs=$(nproc)
build=${TINYFIT_BUILD_DIR:-build}
source scripts/cmake_args.sh
cmake -S . -B "$build" "${release_args[@]}"
cmake --build "$build" --target tinyfit -j"$jobs"

# The main job: MobileNetV2-224 int8 needs 1,505,280 bytes of activations under
# ordinary execution (PEX Table 3); fit it into 640 KiB of SRAM, prove the plan
# by running it against the reference interpreter, and emit the firmware's C
# (a CMake library) and the memory chart. A few seconds.
"$build"/tinyfit compile zoo:mobilenetv2-224-int8 --sram 640KiB \
  --emit c --out "$build"/mobilenetv2-224-int8 --svg "$build"/mobilenetv2-224-int8.svg
