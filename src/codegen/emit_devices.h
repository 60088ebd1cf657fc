// The C of a multi-device model (issue 14 §5): one folder per device, each
// the single-device emitter's output (emit_model.h) for that device's plan
// with its exchanges as link calls, plus the link layer the firmware
// implements and two implementations of it (runtime/link/):
//   device0/ model.h model.c tinyfit_link.h CMakeLists.txt README.md runtime/
//   device1/ ...
//   link/    tinyfit_link.h, tinyfit_link_mpi.{h,c} (host processes, MPI),
//            tinyfit_link_cmsdk_uart.{h,c} (MPS2 boards' UARTs)
//   README.md  the devices, their SRAM and flash, the bytes each pair exchanges
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/emit_model.h"
#include "codegen/device_steps.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::codegen {

// One device's part of the model as the emitter takes it: plain records, so
// that any multi-device planner can hand its result over (the driver
// converts).
struct DeviceProgram {
  const ir::Graph* graph = nullptr;  // the graph its steps refer to (node ids, weights)
  // Its buffers, placed (offsets, arena_bytes) and its model inputs / outputs
  // (-1 where another device holds them); its steps when the device runs a
  // plan of its own (PlanStepRef).
  const plan::Plan* plan = nullptr;
  std::vector<DeviceStep> steps;  // what it runs, in order
  std::vector<GraphPlan> more_plans;  // EmitOptions::more_plans: more plans it runs in the same arena
};

struct EmittedDevices {
  std::vector<EmittedModel> devices;  // device d's files go to device<d>/
  std::vector<EmittedFile> files;     // README.md and link/, relative to the output directory
  int64_t link_bytes = 0;             // bytes sent over the link per inference, all devices
};

// The folder of device `d`: "device0".
std::string device_folder(int device);

// What: emit_c_model of every device (options.name, device d of N, its
// steps), and the files above.
// Requires: at least one device; every plan placed and verified for its
// graph; for every ordered pair of devices, the bytes one sends the other
// equal the bytes the other receives from it (checked: an internal error
// otherwise).
// Guarantees: deterministic; each device folder builds on its own (its
// weights only: the constants its plan's calls use) once the firmware links
// an implementation of tinyfit_link.h.
Result<EmittedDevices> emit_device_models(const std::vector<DeviceProgram>& devices, const EmitOptions& options);

// Writes every file under `directory`. Errors name the path.
Status write_emitted_devices(const EmittedDevices& emitted, const std::string& directory);

}  // namespace tinyfit::codegen
