// Measuring probe programs (cost_probes.h) many at a time: each program is
// emitted as C (codegen, its own run function tinyfit_p<i>_run and arena),
// programs are batched into one firmware image per group (within the
// board's 4 MiB of flash and SRAM), and each image is built once per target
// and run once: on the Cortex-M boards under QEMU with -icount shift=0, a
// main that reads SysTick around every run function (repeating short ones so
// the 40-instruction tick is under 0.1% of the count); on the host under
// callgrind, each run function's inclusive instructions.
#pragma once

#include <string>
#include <vector>

#include "cost_probes.h"
#include "support/diag.h"
#include "toolchain.h"

namespace tinyfit::bench {

struct ProbeMeasurements {
  std::vector<double> instructions;  // per program, one inference; 0 when not measured
  std::vector<std::string> problems; // one line per image that failed to build or run
};

// Requires: the target's tools installed (mcu::find_missing_tools).
// `work_dir` gets one directory per image; `jobs` images build at once.
ProbeMeasurements measure_probe_programs(const std::vector<ProbeProgram>& programs, mcu::Target target,
                                         const std::string& work_dir, int jobs);

}  // namespace tinyfit::bench
