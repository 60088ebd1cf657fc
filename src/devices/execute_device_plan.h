// Host verification of a multi-device plan (DESIGN.md "Several devices"):
// every device runs in its own arena of exactly its arena_bytes (a heap block,
// so AddressSanitizer sees a byte past it), filled with the plan executor's
// poison first; stages run in order, each transfer copying its box from the
// sender's arena into the receiver's, then every device's part of the
// operator running with the runtime kernels the plan executor uses
// (exec/kernel_call.h): the window kernels over the part's rows and channels
// from the views' origins, FullyConnected over its chunk of channels, the
// element-wise kernels on the part's box. The outputs, read from device 0,
// are what the caller compares with the reference interpreter.
#pragma once

#include <vector>

#include "devices/device_plan.h"
#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "support/diag.h"

namespace tinyfit::devices {

// Requires: `plan` built from `graph` (build_device_plan) and placed
// (place_device_buffers); `inputs` one per graph input with its dtype and
// shape (a mismatch is a user error naming the input).
// Guarantees: one TensorData per graph output. Every part's kernel is
// prepared before any runs, so a missing kernel fails (exit 2) before work.
Result<std::vector<exec::TensorData>> execute_device_plan(const ir::Graph& graph, const DevicePlan& plan,
                                                          const std::vector<exec::TensorData>& inputs);

}  // namespace tinyfit::devices
