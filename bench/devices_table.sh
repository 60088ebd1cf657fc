#!/usr/bin/env bash
# Issue 14's device table (docs/benchmarks/devices.md): every model on 2 and 4
# devices with the k1/k2 rule (MemoriaNova's baseline) and tinyfit's
# min-memory partition; per-device arena and flash, bytes exchanged, whether
# the plan fits and whether it was verified (every device in its own poisoned
# arena, outputs equal to the reference). One run; prints Markdown rows.
# Usage: bench/devices_table.sh [build/tinyfit] [models dir]
set -uo pipefail
tinyfit=${1:-build/tinyfit}
models=${2:-../shared/models}
rows=(
  "zoo:mobilenetv2-224-int8|131072"
  "$models/tflite/mcunet/mcunetv2_se_large_224.tflite|131072"
  "zoo:nasnet-a-imagenet-int8|131072"
  "$models/tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite|65536"
)
echo "| model | devices x SRAM | partition | arena per device (bytes) | flash per device (bytes) | exchanged (bytes) | fits | verified |"
echo "|---|---|---|---|---|---:|---|---|"
for row in "${rows[@]}"; do
  model=${row%|*}
  sram=${row#*|}
  for n in 2 4; do
    for partition in k1k2 min-memory; do
      "$tinyfit" compile "$model" --devices "$n" --device-sram "$sram" --partition "$partition" --json 2>/dev/null |
        /usr/bin/python3 -c '
import json, sys
j = json.load(sys.stdin)
model, n, sram = sys.argv[1].split("/")[-1], sys.argv[2], int(sys.argv[3]) // 1024
def fmt(v): return format(v, ",")
def yes(b): return "yes" if b else "no"
arenas = " / ".join(fmt(d["arena_bytes"]) for d in j["devices"])
flash = " / ".join(fmt(d["flash_bytes"]) for d in j["devices"])
cells = [model, n + " x " + str(sram) + " KiB", j["partition"], arenas, flash, fmt(j["exchanged_bytes"]),
         yes(j["fits"]), yes(j["verified"])]
print("| " + " | ".join(cells) + " |")
' "$model" "$n" "$sram"
    done
  done
done
