#!/usr/bin/python3
"""Instructions per function and per address of emitted C on the emulated Cortex-M4.

Usage: bench/mcu_pc_profile.py EMITTED_DIR [--steps N] [--work DIR] [--ram BYTES] [--function NAME] [--top K]

Builds EMITTED_DIR (a `tinyfit compile --emit c` directory) into a program
whose main fills the input as bench/mcu_call_profile.py does and runs one
inference, cut after the invoke function's first N steps (--steps; all
without it), then runs it on QEMU mps2-an386 under -icount shift=0 with
`-d exec,nochain,in_asm`: every translation block's disassembly once and a
line for each of its executions. Each block's executions times its
instructions give the retired instructions per address. Prints the total
and the instructions per function (the ELF's symbols), then, with
--function, that function's hottest runs of consecutive addresses that
executed equally often (loop bodies), each as start-end, executions x
length; --listing writes every executed address with its count and
disassembly. bench/mcu_call_profile.py says which call is slow; this says
which loop of it. QEMU logs about 60 bytes an executed block, which the
script reads from a pipe (a 20 M-instruction call: about 4 s).
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys

from mcu_board import REPO, build_command, qemu_command


def cut_invoke(model_c, steps):
    """model.c with its invoke function returning before step `steps` (None: whole)."""
    prefix = re.search(r"int (\w+)_invoke\(void\) \{", model_c).group(1)
    start = model_c.index("int %s_invoke(void) {" % prefix)
    end = model_c.index("\n}\n", start)
    cut = model_c.find("/* step %d:" % steps, start) if steps is not None else -1
    if 0 <= cut < end:
        model_c = model_c[:cut] + "return 0;\n" + model_c[cut:]
    return prefix, model_c


def build(emitted, work, steps, ram):
    prefix, model_c = cut_invoke(open(os.path.join(emitted, "model.c")).read(), steps)
    model_path, main_path, elf = (os.path.join(work, n) for n in ("model_cut.c", "main.c", "pc_profile.elf"))
    with open(model_path, "w") as f:
        f.write(model_c)
    with open(main_path, "w") as f:
        f.write("\n".join([
            '#include "board.h"', '#include "model.h"', "int main(void) {",
            "  int8_t* in = (int8_t*)%s_input(0);" % prefix, "  uint32_t i;",
            "  for (i = 0; i < %s_INPUT0_BYTES; ++i) in[i] = (int8_t)(i * 37u + 11u);" % prefix.upper(),
            "  %s_invoke();" % prefix, "  return 0;", "}", ""]))
    subprocess.run(build_command(emitted, elf, [main_path, model_path], ram), check=True)
    return elf


def profile(elf):
    """{address: (executed instructions, disassembly)} from QEMU's execution log."""
    qemu = subprocess.Popen(qemu_command(elf, ["-d", "exec,nochain,in_asm", "-D", "/dev/stdout"]),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1 << 20)
    blocks, runs, block = {}, collections.Counter(), None  # block start -> [(address, text)]; start -> executions
    for line in qemu.stdout:
        if line.startswith("Trace"):
            runs[int(line.split("[", 1)[1].split("/", 2)[1], 16)] += 1  # [flags/pc/...]
        elif line.startswith("0x"):
            address, text = line.split(":", 1)
            if block is None:
                block = blocks.setdefault(int(address, 16), [])
            block.append((int(address, 16), text.strip()))
        else:
            block = None
    if qemu.wait() != 0:
        sys.exit("mcu_pc_profile: qemu-system-arm failed")
    executed = {}
    for start, count in runs.items():
        for address, text in blocks.get(start, []):
            executed[address] = (executed.get(address, (0, text))[0] + count, text)
    return executed


def symbols(elf):
    nm = subprocess.run(["arm-none-eabi-nm", "-n", elf], stdout=subprocess.PIPE, text=True, check=True).stdout
    table = [(int(f[0], 16) & ~1, f[2]) for f in (l.split() for l in nm.split("\n")) if len(f) == 3 and f[1] in "tT"]
    starts = [s for s, _ in table]
    return lambda address: table[bisect.bisect_right(starts, address) - 1][1] if starts and address >= starts[0] else "?"


def hot_runs(rows):
    """Runs of consecutive addresses (at most 4 bytes apart) with equal counts: [start, end, count, length]."""
    runs = []
    for address, count in rows:
        if runs and runs[-1][2] == count and address - runs[-1][1] <= 4:
            runs[-1][1] = address
            runs[-1][3] += 1
        else:
            runs.append([address, address, count, 1])
    return sorted(runs, key=lambda r: -r[2] * r[3])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("emitted")
    parser.add_argument("--steps", type=int, help="run only the invoke function's first N steps")
    parser.add_argument("--work", default=os.path.join(REPO, "build", "bench", "pc_profile"))
    parser.add_argument("--ram", type=int, default=4194304, help="the board's RAM the program links in (bytes)")
    parser.add_argument("--function", help="list this function's hottest loop bodies")
    parser.add_argument("--top", type=int, default=20, help="how many of them")
    parser.add_argument("--listing", help="write every executed address, its count and disassembly to this file")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    elf = build(args.emitted, args.work, args.steps, args.ram)
    executed = profile(elf)
    function_of = symbols(elf)
    per_function = collections.Counter()
    for address, (count, _) in executed.items():
        per_function[function_of(address)] += count
    total = sum(per_function.values())
    print("total: %d M4 instructions" % total)
    for name, count in per_function.most_common():
        print("%12d %5.1f%%  %s" % (count, 100.0 * count / total, name))
    if args.function:
        rows = sorted((a, c) for a, (c, _) in executed.items() if function_of(a) == args.function)
        print("\n%s: %d" % (args.function, sum(c for _, c in rows)))
        for start, end, count, length in hot_runs(rows)[:args.top]:
            print("  %08x-%08x  %10d x %3d = %11d" % (start, end, count, length, count * length))
    if args.listing:
        with open(args.listing, "w") as f:
            for address in sorted(executed):
                count, text = executed[address]
                f.write("%-40s %08x %10d  %s\n" % (function_of(address), address, count, text))


if __name__ == "__main__":
    main()
