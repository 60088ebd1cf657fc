// `tinyfit compile --devices N`: the multi-device pipeline (issue 14,
// MemoriaNova). Thin, like compile_pipeline: the passes in order, each from
// src/devices/:
//   choose-k1k2          the partition of every operator (MemoriaNova eqs.
//                        4-5), over the model's own operator order; or
//   choose-min-memory    tinyfit's memory-first partition (--partition min-memory);
//   build-device-plan    buffers, parts and transfers per device;
//   place-device-buffers one arena per device;
//   execute-device-plan  every device in its own poisoned arena of exactly
//                        its size, compared with the reference interpreter.
// Not built yet (exit 2 at the command line): the latency search over
// operator order and partitions, composing parts with the single-device
// techniques and per-device kernel workspaces. Per-device
// emitted C (--emit c) is driver/device_programs.h, run by the command line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "devices/device_memory.h"
#include "devices/device_plan.h"
#include "driver/compile_verify.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct DeviceCompileOptions {
  devices::DeviceLimits limits;
  bool execute = true;   // false: --no-verify
  std::string partition = "k1k2";  // or "min-memory"
  uint32_t seed = 12345; // x_0 of the deterministic input (exec::make_golden_input), seed + i for input i
};

struct DeviceCompileReport {
  std::string model;
  std::string partition = "k1k2";
  devices::DevicePlan plan;
  std::vector<devices::DeviceMemory> memory;  // one per device
  Verification verification;
  int64_t single_device_peak_bytes = 0;  // ordinary execution on one device, for comparison
  devices::DeviceLimits options_limits;  // the limits it was planned for

  // Devices whose arena or flash exceeds its limit (flash limit 0: none).
  std::vector<int> count_over_limit() const;
  bool fits() const { return count_over_limit().empty(); }
};

// Requires: limits with at least one device, sram > 0 each, flash empty or one per device.
// Guarantees: verification.verified only after the plan ran and every output
// matched the reference (int8 bit-exact). A kernel not built for a part is
// its exit-2 error; a mismatch is an internal error (our bug).
Result<DeviceCompileReport> compile_on_devices(const ir::Graph& graph, const DeviceCompileOptions& options);

// "device 1: arena 140,288 bytes > 131,072 (SRAM), ..." for the devices over their limits.
std::string describe_device_shortfall(const DeviceCompileReport& report);

}  // namespace tinyfit::driver
