// choose-k1k2: MemoriaNova's baseline partition rule (§2.1.2, eqs. 2-5), per
// operator of a given order. For a convolution (any window operator: Conv2D,
// DepthwiseConv2D, pooling with no weights) with input, output and weight
// bytes M_in, M_out, M_kernel, and M_others the bytes of the other tensors
// live at its step in ordinary execution, over devices of total memory
// M_full = m1 + ... + mn:
//   k1 = floor((M_full - M_others - M_kernel - M_out) / M_in)   (cout, eq. 4)
//   k2 = floor((M_full - M_others - M_in - M_out) / M_kernel)   (fmh, eq. 5;
//        unbounded without weights)
// the largest partition counts whose copies of the input (cout) or of the
// weights (fmh) fit in M_full. As the paper says: cout when k1 < k2, else
// fmh, over min(k, n) devices (whole when that is below 2, or when the
// kernels do not serve the split: split_support.h). The rule applies only
// to convolutions; FullyConnected runs cout on every device, element-wise
// operators len on every device, everything else whole. Whole operators run
// on the device with the most SRAM (the lowest id among equals).
#pragma once

#include <vector>

#include "devices/device_plan.h"
#include "ir/graph.h"

namespace tinyfit::devices {

// Requires: `order` a topological order of every node of `graph`.
std::vector<OperatorChoice> choose_by_k1k2(const ir::Graph& graph, const std::vector<ir::NodeId>& order,
                                           const DeviceLimits& limits);

}  // namespace tinyfit::devices
