// The widened weight layout of a Conv2D (exec/conv_primitive.h
// kIm2colWideDsp): which nodes of a plan can take it and what it costs in
// flash, and marking a plan's calls with it (plan::KernelCall::wide_weights).
// The choice of which nodes to widen is driver/widen_weights.h's.
#pragma once

#include <cstdint>
#include <set>
#include <vector>

#include "ir/graph.h"
#include "plan/plan.h"
#include "support/diag.h"

namespace tinyfit::exec {

struct WidenableNode {
  ir::NodeId node = -1;
  // Flash the widened weights add: int16 lanes instead of the im2col
  // kernels' int8 pairs, ceil(Cout / 2) x ceil(K / 4) x 8 bytes.
  int64_t extra_bytes = 0;
};

// The nodes every call of which runs the im2col __dsp kernel over int8 pairs
// today and would run its _wide twin if marked (Conv2D, 1x1 or KxK, quantized, not
// accumulating, each call given its workspace), in node order. A node with
// any other call (a PEX accumulation, the workspace-free 1x1 kernel) is not
// listed: its weights would be stored in two layouts.
Result<std::vector<WidenableNode>> find_widenable_nodes(const ir::Graph& graph, const plan::Plan& plan);

// Marks every call of `nodes` wide_weights (and every other call not), and
// returns how many calls it marked.
// Requires: `nodes` from find_widenable_nodes of this plan.
int mark_wide_weights(plan::Plan& plan, const std::set<ir::NodeId>& nodes);

}  // namespace tinyfit::exec
