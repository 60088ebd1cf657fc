// Issue 13's tables for tinyfit_bench_mcu (docs/benchmarks/mcu_latency.md).
//
// The fastest plan that fits the board's 320 KiB, per model of issue 13's
// table: ordinary, in-place and partial execution (PEX tiles as large as fit,
// PEX Remark 4), each with the workspaces of the fastest kernels
// (exec/add_kernel_workspaces.h); every candidate that links within the RAM
// region runs on the emulated Cortex-M4 and the fewest instructions win.
// Beside it: TFLite Micro + CMSIS-NN measured the same way
// (../shared/notes/BASELINES.md), tinyfit before the fast kernels (issue 13's
// own table), instructions per MAC, and the code bytes of the runtime kernels
// the program ships (and in the notes each candidate's .rodata). Then PEX's overhead with the fast kernels: smallest-peak
// PEX over ordinary execution, both with workspaces, per CI model.
// Rows are measured only when the board's output bytes equal the plan
// executor's; one that cannot be measured says why in its place.
#pragma once

#include <string>

namespace tinyfit::mcu {

// Prints both tables as Markdown for the models whose short name is `only`
// (all when empty); returns how many models it measured. With
// `flash_budgets`, the fastest-plan table's programs keep the
// convolutions' weights widened within each model's flash budget (the
// board's 4 MiB, kCiBoardFlashBytes, unless the model is built for less:
// tinyfit compile --flash, driver/widen_weights.h); without, none.
int print_fast_kernel_tables(const std::string& only, bool flash_budgets);

}  // namespace tinyfit::mcu
