#!/usr/bin/env bash
# Issue 14's --partition rows plans as emitted C on linked devices
# (docs/benchmarks/devices.md, "Emitted and run"): per model and device
# count, tinyfit_bench_devices_rows compiles the rows plan, emits one folder
# per device, runs them as MPI processes and as QEMU mps2-an386 boards linked
# by UART sockets (outputs compared with the reference on both), and prints
# per device SRAM, flash, bytes and measured Cortex-M4 instructions, then the
# latency at SPI 10 Mbit/s and UART 1 Mbit/s against the same techniques on
# one board. One run; about ten minutes per row on 2 cores.
# Usage: bench/devices_rows_boards.sh [build dir] [models dir]
set -uo pipefail
build=${1:-build}
models=${2:-../shared/models}
rows=(
  "zoo:mobilenetv2-224-int8|2|128KiB"
  "zoo:mobilenetv2-224-int8|4|128KiB"
  "$models/tflite/mcunet/mcunetv2_se_large_224.tflite|2|128KiB"
  "$models/tflite/mcunet/mcunetv2_se_large_224.tflite|4|128KiB"
  "$models/tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite|2|64KiB"
  "$models/tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite|4|64KiB"
)
status=0
for row in "${rows[@]}"; do
  IFS='|' read -r model devices sram <<<"$row"
  "$build/bench/tinyfit_bench_devices_rows" --model "$model" --devices "$devices" --device-sram "$sram" || status=1
  echo
done
exit $status
