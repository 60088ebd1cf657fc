// The kernel of one device's part of an operator and the views it runs on,
// shared by the host verification (execute_device_plan.h) and the per-device
// C (driver/device_programs.h), so that the emitted code runs exactly the
// kernel form and views that were verified.
//
// The kernel is prepared on a one-call plan that tells the binding which form
// to pick (exec/kernel_call.h): a call whose output view sweeps rows for the
// window kernels' part form, a channel chunk for FullyConnected, a whole call
// otherwise. The views it runs on are the part's boxes (make_part_view), so
// the plan's views only choose the kernel.
#pragma once

#include <memory>

#include "devices/device_plan.h"
#include "exec/kernel_call.h"
#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::devices {

struct PartKernel {
  // Null for an alias (a byte copy of the input into the output's buffer).
  // Shared: the kernel and the one-call plan it was prepared on live together.
  std::shared_ptr<const exec::PreparedKernel> kernel;
  // The one-call plan's call the kernel was prepared for (lives as long as
  // `kernel`): its node and mode, for the latency model (device_latency.h).
  const plan::KernelCall* call = nullptr;
  bool chunk_of_channels = false;  // the kernel takes the output box's channels as its chunk
};

Result<PartKernel> prepare_part_kernel(const ir::Graph& graph, const Stage& stage, const PartCompute& compute);

// A view of `box` inside a buffer holding the dense box `held`: the box's
// extents, the held box's strides, and the box's first index as origin.
plan::ViewInstance make_part_view(const Box& held, const Box& box);

}  // namespace tinyfit::devices
