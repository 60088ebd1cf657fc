// `tinyfit compile --devices N`: the multi-device pipeline (issue 14,
// MemoriaNova). Thin, like compile_pipeline: the passes in order, each from
// src/devices/:
//   choose-k1k2          the partition of every operator (MemoriaNova eqs.
//                        4-5), over the model's own operator order; or
//   choose-min-memory    tinyfit's memory-first partition (--partition min-memory);
//   search-partition     tinyfit's latency search (--partition search);
//   build-device-plan    buffers, parts and transfers per device;
//   place-device-buffers one arena per device;
//   execute-device-plan  every device in its own poisoned arena of exactly
//                        its size, compared with the reference interpreter;
//   predict-plan-latency the plan's predicted latency (devices/device_latency.h).
// Not built yet (exit 2 at the command line): a search over the operator
// order (the model's own is used) and per-device kernel workspaces. The
// single-device techniques compose with devices through --partition rows
// (driver/compile_device_rows.h), not with these per-operator partitions. Per-device
// emitted C (--emit c) is driver/device_programs.h, run by the command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "devices/device_latency.h"
#include "devices/device_memory.h"
#include "devices/device_plan.h"
#include "devices/search_partition.h"
#include "driver/compile_verify.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct DeviceCompileOptions {
  devices::DeviceLimits limits;
  bool execute = true;   // false: --no-verify
  std::string partition = "k1k2";  // or "min-memory", "search"
  std::string target = "cortex-m4";  // the cost table predicting each device's instructions
  double device_mhz = 100;           // instructions per second / 1e6 (one per cycle)
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
  // The plan's predicted latency; absent (with the reason) when the latency
  // model cannot predict a part (a kernel its table has no row for).
  std::optional<devices::PlanLatency> latency;
  std::string latency_error;
  // The same model on one device, every operator whole (no link): the base
  // of the speedup. Absent with latency.
  std::optional<double> one_device_seconds;
  double device_mhz = 100;
  std::string target = "cortex-m4";
  // --partition search: every plan it compared, and which it chose.
  std::vector<devices::SearchCandidate> search_candidates;
  int search_chosen = -1;

  // Devices whose arena or flash exceeds its limit (flash limit 0: none).
  std::vector<int> count_over_limit() const;
  bool fits() const { return count_over_limit().empty(); }
};

// Requires: limits with at least one device, sram > 0 each, flash empty or one per device;
// partition "search": limits.link_bytes_per_second > 0 and device_mhz > 0.
// Guarantees: verification.verified only after the plan ran and every output
// matched the reference (int8 bit-exact). A kernel not built for a part is
// its exit-2 error; a mismatch is an internal error (our bug).
Result<DeviceCompileReport> compile_on_devices(const ir::Graph& graph, const DeviceCompileOptions& options);

// "device 1: arena 140,288 bytes > 131,072 (SRAM), ..." for the devices over their limits.
std::string describe_device_shortfall(const DeviceCompileReport& report);

}  // namespace tinyfit::driver
