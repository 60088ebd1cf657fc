#!/usr/bin/env bash
# Issue 14's models on 2 and 4 devices with --partition rows (docs/benchmarks/
# devices.md, "Bands of rows with the single-device techniques"): the first
# operators by bands of rows on every device, the tail by bands again in
# later stages where the latency model prefers it, the rest on device 0, every
# part compiled with every single-device technique inside its device's SRAM.
# Per device: SRAM (its largest plan's arena) and flash; the first cut, the
# stage count, the MACs the halos recompute (every stage's bands over their
# operators'), the bytes gathered and scattered over the link, the predicted
# latency at SPI's 10 Mbit/s (1,250,000 bytes/s) and 100 MHz against the
# same techniques on one device, whether it fits and whether it was verified
# (every plan in a poisoned arena of exactly its size, outputs equal to the
# reference). One run; prints Markdown rows.
# Usage: bench/devices_rows.sh [build/tinyfit] [models dir] [latency budget]
set -uo pipefail
tinyfit=${1:-build/tinyfit}
models=${2:-../shared/models}
budget=${3:-1.05}
rows=(
  "zoo:mobilenetv2-224-int8|131072"
  "$models/tflite/mcunet/mcunetv2_se_large_224.tflite|131072"
  "zoo:nasnet-a-imagenet-int8|131072"
  "$models/tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite|65536"
)
echo "| model | devices x SRAM | cut after | stages | SRAM per device (bytes) | flash per device (bytes) | halo MACs | exchanged (bytes) | latency (ms) | one device (ms) | lower | fits | verified |"
echo "|---|---|---|---:|---|---|---:|---:|---:|---:|---:|---|---|"
for row in "${rows[@]}"; do
  model=${row%|*}
  sram=${row#*|}
  for n in 2 4; do
    "$tinyfit" compile "$model" --devices "$n" --device-sram "$sram" --partition rows \
      --link-bytes-per-second 1250000 --latency-budget "$budget" --time-limit 600 --json 2>/dev/null |
      /usr/bin/python3 -c '
import json, sys
text = sys.stdin.read()
model, n, sram = sys.argv[1].split("/")[-1], sys.argv[2], int(sys.argv[3]) // 1024
if not text.strip():
    print("| " + model + " | " + n + " x " + str(sram) + " KiB | (no plan: see the command'"'"'s error) |")
    sys.exit(0)
j = json.loads(text)
def fmt(v): return format(v, ",")
def yes(b): return "yes" if b else "no"
ms = lambda s: "-" if s is None else format(s * 1e3, ",.1f")
srams = " / ".join(fmt(d["sram_bytes"]) for d in j["devices"])
flash = " / ".join(fmt(d["flash_bytes"]) for d in j["devices"])
band_macs = j["band_macs"] + sum(s["band_macs"] for s in j["later_stages"])
head_macs = j["head_macs"] + sum(s["head_macs"] for s in j["later_stages"])
halo = format((band_macs / head_macs - 1) * 100, ".1f") + "%" if head_macs else "-"
lower = "-" if j["seconds"] is None or j["one_device_seconds"] is None else \
    format((1 - j["seconds"] / j["one_device_seconds"]) * 100, ".1f") + "%"
cells = [model, n + " x " + str(sram) + " KiB", j["cut_after"] + " (" + str(j["head_nodes"]) + " ops)",
         str(1 + len(j["later_stages"])), srams, flash,
         halo, fmt(j["exchanged_bytes"]), ms(j["seconds"]), ms(j["one_device_seconds"]), lower, yes(j["fits"]),
         yes(j["verified"])]
print("| " + " | ".join(cells) + " |")
' "$model" "$n" "$sram"
  done
done
