#!/usr/bin/env bash
# README command 2: the whole test suite.
#   1. optimised build (RelWithDebInfo, -O2 -g) in build/, every test: ctest --output-on-failure
#   2. sanitizer build (ASan + UBSan, -O1 -g1, the layers as shared libraries)
#      in build-asan/, the unit, errors and fuzz labels
# scripts/cmake_args.sh has the CMake arguments of both (TINYFIT_DEBUG_INFO=0: no -g).
# TINYFIT_UNIT_UNDER_SANITIZERS_ONLY=1 (CI sets it): the release run builds
# and runs every suite but the unit tests (target release_suite), which the
# sanitizer run takes: each unit test runs once, under the sanitizers.
# Both suites always run; the script fails if either failed. The last thing it
# prints is ctest's own summary line.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
build=${TINYFIT_BUILD_DIR:-build}            # overridable so a shared checkout can
asan_build=${TINYFIT_ASAN_BUILD_DIR:-build-asan}  # keep its own build folders
start=$SECONDS

source scripts/cmake_args.sh
cmake -S . -B "$build" "${release_args[@]}"
release_status=0
if [[ ${TINYFIT_UNIT_UNDER_SANITIZERS_ONLY:-0} == 1 ]]; then
  cmake --build "$build" -j"$jobs" --target release_suite
  (cd "$build" && ctest --output-on-failure -j"$jobs" -LE '^unit$') || release_status=$?
else
  cmake --build "$build" -j"$jobs"
  (cd "$build" && ctest --output-on-failure -j"$jobs") || release_status=$?
fi

# TINYFIT_FREE_DISK=1 (CI sets it): the release tree's test programs and
# objects are deleted once their suite has run, keeping tinyfit and the main
# job's output, so that the two trees are never on disk together (a CI machine
# ran out of disk in the sanitizer build with both present, about 1.6 GB).
if [[ ${TINYFIT_FREE_DISK:-0} == 1 ]]; then
  find "$build" -mindepth 1 -maxdepth 1 ! -name tinyfit ! -name 'mobilenetv2-224-int8*' -exec rm -rf {} +
  echo "test_all: release tree pruned (TINYFIT_FREE_DISK=1): $(du -sh "$build" | cut -f1) left"
fi

cmake -S . -B "$asan_build" "${asan_args[@]}"
# Only what the sanitizer suite runs (target sanitizer_suite, CMakeLists.txt):
# a second full build would cost CI minutes for nothing it runs.
asan_labels='^(unit|errors|fuzz)$'
cmake --build "$asan_build" -j"$jobs" --target sanitizer_suite
echo "test_all: release suite exit ${release_status}; $((SECONDS - start)) s so far; sanitizer suite next"
asan_status=0
(cd "$asan_build" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -L "$asan_labels") || asan_status=$?

if [[ $release_status -ne 0 || $asan_status -ne 0 ]]; then exit 1; fi
