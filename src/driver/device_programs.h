// emit-c for several devices (issue 14 §5): a multi-device plan
// (devices/device_plan.h) as the C emitter's records (codegen/device_steps.h),
// one program per device: its buffers as a placed plan::Plan (the arena,
// the model inputs and outputs it holds), and its projection of the plan's
// stages, in stage order: for each stage, the transfers it sends or
// receives (a local copy when both ends are its own), then its part of the
// operator. Every device follows the one global stage order, so each send
// meets its receive and the link's byte streams stay in order.
#pragma once

#include <vector>

#include "codegen/emit_devices.h"
#include "devices/device_plan.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::driver {

struct DevicePrograms {
  std::vector<plan::Plan> arenas;                     // one per device: its buffers placed, no steps
  std::vector<std::vector<codegen::DeviceStep>> steps;  // one list per device

  // The emitter's records (they refer to `arenas` and `graph`).
  std::vector<codegen::DeviceProgram> programs(const ir::Graph& graph) const;
};

// Requires: `plan` built from `graph` and placed (devices/device_memory.h
// place_device_buffers), and verified (devices/execute_device_plan.h).
// Guarantees: every part call runs the kernel the host verification ran for
// that part (devices/part_kernel.h), on the same views. A kernel that cannot
// be emitted fails with exit 2 when emitted.
Result<DevicePrograms> make_device_programs(const ir::Graph& graph, const devices::DevicePlan& plan);

}  // namespace tinyfit::driver
