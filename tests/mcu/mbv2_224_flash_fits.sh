#!/usr/bin/env bash
# The zoo MobileNetV2-224 program that `tinyfit compile` emits without
# --flash fits the emulated board's flash (mps2-an386: 4 MiB, mps2.ld): its
# model.c compiled for the Cortex-M4 has at most 4,194,304 bytes of .rodata.
# Widened weights (docs/primitive_selection.md, "Flash") once took it to
# 6,032,336 B. Usage: mbv2_224_flash_fits.sh TINYFIT ARM_GCC ARM_SIZE WORK_DIR
set -euo pipefail
tinyfit=$1 gcc=$2 size=$3 work=$4
limit=4194304
rm -rf "$work"
"$tinyfit" compile zoo:mobilenetv2-224-int8 --techniques none --no-verify --emit c --out "$work" > /dev/null
"$gcc" -O2 -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -I "$work" -I "$work/runtime/include" -c "$work/model.c" \
  -o "$work/model.o"
rodata=$("$size" -A "$work/model.o" | awk '$1 == ".rodata" { print $2 }')
echo "zoo:mobilenetv2-224-int8 model.o .rodata: ${rodata} bytes (flash ${limit})"
if [[ -z $rodata || $rodata -gt $limit ]]; then
  echo "over the board's flash" >&2
  exit 1
fi
