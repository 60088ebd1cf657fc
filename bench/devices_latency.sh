#!/usr/bin/env bash
# Issue 14's latency table (docs/benchmarks/devices.md, "Latency"): the
# predicted latency (src/devices/device_latency.h: cortex-m4 cost table at
# --device-mhz, link at --link-bytes-per-second) of every model on 4 devices
# with the k1/k2 rule, min-memory, tinyfit's latency search and the bands of
# rows composed with the single-device techniques (--partition rows: its
# latency is per stage the slowest band and the gather (and scatter), then the
# tail; its arena column is the
# largest device's SRAM; no plan when the model has no cut by rows), against the
# same model on one device (every operator whole, no link), at two link
# rates (SPI at 10 Mbit/s = 1,250,000 bytes/s, UART at 1 Mbit/s = 125,000
# bytes/s) and two memory settings: the issue's SRAM per device, and 16 MiB
# per device (memory not binding: the latency-only comparison). Every plan is
# verified (every device in its own poisoned arena, outputs equal to the
# reference) unless NO_VERIFY=1. One run; prints Markdown rows.
# PARTITIONS="k1k2 min-memory search" runs only those (default: all four).
# Usage: bench/devices_latency.sh [build/tinyfit] [models dir]
set -uo pipefail
tinyfit=${1:-build/tinyfit}
models=${2:-../shared/models}
verify_flag=()
[[ ${NO_VERIFY:-0} == 1 ]] && verify_flag=(--no-verify)
rows=(
  "zoo:mobilenetv2-224-int8|131072"
  "$models/tflite/mcunet/mcunetv2_se_large_224.tflite|131072"
  "zoo:nasnet-a-imagenet-int8|131072"
  "$models/tflite/mcunet/mcunet-320kb-1mb_imagenet.tflite|65536"
)
echo "| model | SRAM per device | link (bytes/s) | partition | latency on 4 (ms) | compute / link (ms) | one device (ms) | lower than one device | largest arena (bytes) | fits | verified |"
echo "|---|---|---:|---|---:|---:|---:|---:|---:|---|---|"
for row in "${rows[@]}"; do
  model=${row%|*}
  issue_sram=${row#*|}
  for sram in "$issue_sram" 16777216; do
    for link in 1250000 125000; do
      for partition in ${PARTITIONS:-k1k2 min-memory search rows}; do
        "$tinyfit" compile "$model" --devices 4 --device-sram "$sram" --partition "$partition" \
          --link-bytes-per-second "$link" --device-mhz 100 --time-limit 600 --json "${verify_flag[@]}" 2>/dev/null |
          /usr/bin/python3 -c '
import json, sys
text = sys.stdin.read()
model, sram, link = sys.argv[1].split("/")[-1], int(sys.argv[2]), int(sys.argv[3])
sram_text = str(sram // 1024) + " KiB" if sram < 1 << 20 else str(sram >> 20) + " MiB"
if not text.strip():
    print("| " + model + " | " + sram_text + " | " + format(link, ",") + " | " + sys.argv[4] +
          " | (no plan: see the error of the command) |")
    sys.exit(0)
j = json.loads(text)
if j["partition"] == "rows":
    link_s = j["exchanged_bytes"] / link
    j["latency"] = {"seconds": j["seconds"], "link_seconds": link_s, "compute_seconds": j["seconds"] - link_s,
                    "one_device_seconds": j["one_device_seconds"]}
    for d in j["devices"]:
        d["arena_bytes"] = d["sram_bytes"]
def fmt(v): return format(v, ",")
def yes(b): return "yes" if b else "no"
lat = j["latency"]
ms = lambda s: format(s * 1e3, ",.1f")
lower = 1 - lat["seconds"] / lat["one_device_seconds"]
cells = [model, sram_text, fmt(link), j["partition"], ms(lat["seconds"]),
         ms(lat["compute_seconds"]) + " / " + ms(lat["link_seconds"]), ms(lat["one_device_seconds"]),
         format(lower * 100, ".1f") + "%", fmt(max(d["arena_bytes"] for d in j["devices"])), yes(j["fits"]),
         yes(j["verified"])]
print("| " + " | ".join(cells) + " |")
' "$model" "$sram" "$link" "$partition"
      done
    done
  done
done
