// A two-device plan made by cutting a single-device plan between two of its
// steps (a pipeline split: device 0 runs the steps before the cut, device 1
// the rest, the tensor that crosses the cut goes over the link). The devices
// lane's planner (src/devices) splits operators; this cut is the smallest
// multi-device plan that exercises the link layer and the per-device emitter
// on their own: per-device arenas and weights, an exchange step on each side,
// the model input on one device and the output on the other.
#pragma once

#include <vector>

#include "codegen/emit_devices.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::mcu {

struct DeviceSplit {
  std::vector<plan::Plan> plans;  // placed; inputs / outputs -1 where the other device holds them
  std::vector<std::vector<codegen::DeviceStep>> steps;  // each plan's steps and the transfer

  // The emitter's records (the plans stay owned here).
  std::vector<codegen::DeviceProgram> programs(const ir::Graph& graph) const;
};

// Requires: `whole` placed, top-level kernel calls only (no loops), 0 < cut <
// steps; exactly one buffer written before the cut is read after it (a
// chain). Each device's plan keeps its own steps and the buffers they use,
// renumbered and placed again (greedy by size). Device 0 sends the crossing
// buffer right after the step that writes it; device 1 receives it right
// before the first step that reads it, so it is live on both sides when it
// moves.
Result<DeviceSplit> split_plan_at_step(const plan::Plan& whole, int cut);

}  // namespace tinyfit::mcu
