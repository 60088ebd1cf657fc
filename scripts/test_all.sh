#!/usr/bin/env bash
# README command 2: the whole test suite.
#   1. optimised build (RelWithDebInfo, -O2 -g) in build/, every test: ctest --output-on-failure
#   2. sanitizer build (ASan + UBSan) in build-asan/, the unit, errors and fuzz labels
# Both suites always run; the script fails if either failed. The last thing it
# prints is ctest's own summary line.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
build=${TINYFIT_BUILD_DIR:-build}            # overridable so a shared checkout can
asan_build=${TINYFIT_ASAN_BUILD_DIR:-build-asan}  # keep its own build folders
start=$SECONDS

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPython3_EXECUTABLE=/usr/bin/python3
cmake --build "$build" -j"$jobs"
release_status=0
(cd "$build" && ctest --output-on-failure -j"$jobs") || release_status=$?

cmake -S . -B "$asan_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTINYFIT_SANITIZE=ON \
  -DPython3_EXECUTABLE=/usr/bin/python3
# Build only what the sanitizer suite runs, not the model, property and mcu
# suites: a second full build would cost CI minutes for nothing it runs. Its
# tests are targets of the same name, except bench_memory_smoke (it runs
# tinyfit_bench_memory) and the cross-compile check (no host target).
asan_labels='^(unit|errors|fuzz)$'
mapfile -t asan_tests < <(cd "$asan_build" && ctest -N -L "$asan_labels" | sed -n 's/^ *Test *#[0-9]*: //p')
mapfile -t known_targets < <(cmake --build "$asan_build" --target help | sed -n 's/^\.\.\. //p')
asan_targets=()
for t in "${asan_tests[@]}"; do
  if printf '%s\n' "${known_targets[@]}" | grep -qx -- "$t"; then asan_targets+=("$t"); fi
done
cmake --build "$asan_build" -j"$jobs" --target tinyfit tinyfit_bench_memory "${asan_targets[@]}"
echo "test_all: release suite exit ${release_status}; $((SECONDS - start)) s so far; sanitizer suite next"
asan_status=0
(cd "$asan_build" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -L "$asan_labels") || asan_status=$?

if [[ $release_status -ne 0 || $asan_status -ne 0 ]]; then exit 1; fi
