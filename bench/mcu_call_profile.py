#!/usr/bin/python3
"""Per-call instructions of a model's emitted C on the emulated Cortex-M4.

Usage: bench/mcu_call_profile.py MODEL [--tinyfit build/tinyfit] [--work DIR] [--emitted DIR] [--ram BYTES] [--predicted]
                                 [-- COMPILE_FLAGS...]

Compiles MODEL with `tinyfit compile --emit c` (default flags: --techniques none
--sram 320KiB, the ordinary plan that is vww_96's and most CI models' fastest
that fits), reads SysTick around every kernel call of the invoke function
(tests/mcu/board: QEMU mps2-an386 under -icount shift=0, 40 instructions a
tick), runs one warm-up and one counted inference on the same input pattern as
../shared/notes/BASELINES.md and prints one Markdown row per call (MACs and
output values from `tinyfit info --json`) and the totals per operator type.
The counter reads add about 40 instructions a call, which the total (read
around the whole invoke) includes: vww_96's 30 calls read 16,040,040 where
tinyfit_bench_mcu read 16,038,840. --emitted profiles C emitted before (e.g.
a program directory tinyfit_bench_mcu leaves under
build/tests/mcu/programs/bench/, such as overhead_mcunet_vww_pex_m4, the
smallest-peak PEX plan of its PEX table) instead of compiling MODEL. A node split over several calls counts its
MACs once per call (ordinary plans make one call a node). For finding where a
plan's instructions go; tinyfit_bench_mcu gives the table figures.
--predicted adds the latency model's prediction of every call (summed over a
loop's iterations, from build/bench/tinyfit_bench_call_costs with the same
--techniques, --latency-budget and --sram) beside the
measured instructions, and the totals per kernel: where a plan's prediction
error is. The measured column includes the counter reads (about 40 a call).
With --emitted on a program of tinyfit_bench_cost_model
(build/tests/mcu/programs/cost_model/MODEL_PLAN), pass `-- --bench-plan PLAN`
(ordinary, pex or inplace) so that the predictions are of that plan.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from mcu_board import REPO, build_command, qemu_command


def instrument(model_c, prefix):
    """model.c with a counter read around every kernel call of invoke, and the calls (step, op, kernel)."""
    start = model_c.index("int %s_invoke(void) {" % prefix)
    end = model_c.index("\n}\n", start)
    lines = model_c[start:end].split("\n")
    calls, step, block = [], ("?", "?"), -1  # (node name, op); the plan call's block
    for i, line in enumerate(lines):
        m = re.match(r"\s*/\* step (\S+): (.*) \((\w+)\)", line)
        if m:
            step = (m.group(2), m.group(3))
        m = re.match(r"\s*/\* step \S+: (.*) \*/", line)
        if m and not m.group(1).startswith("loop "):
            block += 1
            if not re.search(r"\(\w+\)", m.group(1)):
                step = (m.group(1), m.group(1))  # a copy
        m = re.match(r"^(\s*)(tf_\w+)\((.*)\);$", line)
        if m:
            lines[i] = "%s{ const uint64_t t_ = board_counter_read(); %s(%s); profile_ticks[%d] += board_counter_read() - t_; }" % (
                m.group(1), m.group(2), m.group(3), len(calls))
            calls.append((step[0], step[1], m.group(2), block))  # a chunked node has several calls
    header = '#include "board.h"\nuint64_t profile_ticks[%d];\n' % max(len(calls), 1)
    return model_c[:start] + header + "\n".join(lines) + model_c[end:], calls


def main_c(prefix, calls):
    n = len(calls)
    return "\n".join([
        '#include "board.h"', '#include "model.h"', "extern uint64_t profile_ticks[%d];" % max(n, 1),
        "int main(void) {",
        "  int8_t* in = (int8_t*)%s_input(0);" % prefix,
        "  uint32_t i;", "  uint64_t t;",
        "  for (i = 0; i < %s_INPUT0_BYTES; ++i) in[i] = (int8_t)(i * 37u + 11u);" % prefix.upper(),
        "  %s_invoke();" % prefix,
        "  for (i = 0; i < %d; ++i) profile_ticks[i] = 0;" % n,
        "  board_counter_start();",
        "  while (board_counter_read() > 0x100000u) {} /* the first read after a reset is before SysTick's reload */",
        "  t = board_counter_read();", "  %s_invoke();" % prefix, "  t = board_counter_read() - t;",
        "  board_write_u64(t * BOARD_INSTRUCTIONS_PER_TICK);",
        "  for (i = 0; i < %d; ++i) board_write_u64(profile_ticks[i] * BOARD_INSTRUCTIONS_PER_TICK);" % n,
        "  return 0;", "}", ""])


def run(command):
    """The command's stdout and stderr together (semihosting writes to QEMU's stderr)."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.exit("mcu_call_profile: %s failed:\n%s" % (command[0], result.stdout))
    return result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--tinyfit", default=os.path.join(REPO, "build", "tinyfit"))
    parser.add_argument("--work", default=os.path.join(REPO, "build", "bench", "call_profile"))
    parser.add_argument("--emitted", help="a directory of emitted C (model.c, runtime/) to profile instead")
    parser.add_argument("--ram", type=int, default=327680, help="the board's RAM the program links in (bytes)")
    parser.add_argument("--predicted", action="store_true", help="the latency model's prediction beside each call")
    parser.add_argument("compile_flags", nargs="*", default=["--techniques", "none", "--sram", "320KiB"])
    args = parser.parse_args()
    emitted = args.emitted or os.path.join(args.work, "c")
    os.makedirs(args.work, exist_ok=True)
    if not args.emitted:
        run([args.tinyfit, "compile", args.model, "--emit", "c", "--out", emitted] + args.compile_flags)
    info = json.loads(subprocess.run([args.tinyfit, "info", args.model, "--json"], stdout=subprocess.PIPE, text=True,
                                     check=True).stdout)
    prefix = re.search(r"int (\w+)_invoke\(void\)", open(os.path.join(emitted, "model.c")).read()).group(1)
    model_c, calls = instrument(open(os.path.join(emitted, "model.c")).read(), prefix)
    with open(os.path.join(args.work, "model_profiled.c"), "w") as f:
        f.write(model_c)
    with open(os.path.join(args.work, "main.c"), "w") as f:
        f.write(main_c(prefix, calls))
    elf = os.path.join(args.work, "profile.elf")
    run(build_command(emitted, elf, [os.path.join(args.work, "main.c"), os.path.join(args.work, "model_profiled.c")],
                      args.ram))
    out = run(["timeout", "600"] + qemu_command(elf))
    counts = [int(v) for v in out.split()]
    total, per_call = counts[0], counts[1:]
    operators = {node["name"]: node for node in info["operators"]}
    predicted, predicted_run = {}, None  # (plan call block, kernel) -> instructions
    if args.predicted:
        costs = run([os.path.join(os.path.dirname(args.tinyfit), "bench", "tinyfit_bench_call_costs"), args.model] +
                    args.compile_flags).split("\n")
        for line in costs:
            fields = line.split("\t")
            if len(fields) == 3:
                predicted[(int(fields[0]), fields[1])] = float(fields[2])
            elif len(fields) == 2 and fields[0] == "run":
                predicted_run = float(fields[1])
    print("| call | op | kernel | MACs | output values | M4 instructions | per MAC | per output value |" +
          (" predicted | error |" if args.predicted else ""))
    print("|---|---|---|---:|---:|---:|---:|---:|" + ("---:|---:|" if args.predicted else ""))
    sums, kernels = {}, {}
    for index, ((name, op, kernel, block), instructions) in enumerate(zip(calls, per_call)):
        node = operators.get(name, {})
        macs = int(node.get("macs", 0))
        values = 1
        for d in node.get("output_shapes", [[0]])[0]:
            values *= int(d)
        s = sums.setdefault(op, [0, 0, 0])
        s[0] += macs
        s[1] += values
        s[2] += instructions
        row = "| %d | %s | %s | %d | %d | %d | %s | %.1f |" % (
            index, op, kernel, macs, values, instructions, "%.2f" % (instructions / macs) if macs else "-",
            instructions / values if values else 0)
        if args.predicted:
            # A plan call making several calls of one kernel has one prediction for them: on its first.
            p = predicted.pop((block, kernel), 0.0)
            k = kernels.setdefault(kernel, [0, 0.0])
            k[0] += instructions
            k[1] += p
            row += " %d | %s |" % (p, "%+.1f%%" % (100.0 * (p - instructions) / instructions) if instructions else "-")
        print(row)
    print("\n| op | MACs | output values | M4 instructions | per MAC |\n|---|---:|---:|---:|---:|")
    for op, (macs, values, instructions) in sorted(sums.items(), key=lambda kv: -kv[1][2]):
        print("| %s | %d | %d | %d | %s |" % (op, macs, values, instructions,
                                             "%.2f" % (instructions / macs) if macs else "-"))
    if args.predicted:
        print("\n| kernel | M4 instructions | predicted | predicted - measured |\n|---|---:|---:|---:|")
        for kernel, (instructions, p) in sorted(kernels.items(), key=lambda kv: -abs(kv[1][1] - kv[1][0])):
            print("| %s | %d | %d | %+d |" % (kernel, instructions, p, p - instructions))
        if predicted:
            print("\npredicted calls not matched to a call of the emitted C: %s" % sorted(predicted))
        print("\npredicted, all calls and the invoke function's own counts: %d" % (
            sum(k[1] for k in kernels.values()) + (predicted_run or 0)))
    print("\ntotal (one invoke, counter read around it): %d M4 instructions" % total)


if __name__ == "__main__":
    main()
