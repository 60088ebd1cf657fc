// Nested loops made by hand for tests (Plan v2): a channel loop inside each
// row loop, around every node call, the way PEX's channel loops would nest in
// a MOTES row partition.
#pragma once

#include <algorithm>
#include <utility>

#include "ir/op_decl.h"
#include "plan/plan.h"

namespace tinyfit::exec::testing {

// Each node call of every loop step of `plan` runs in a channel loop of its
// own nested inside it (depth 1), `tile` output channels at a time (kChunk):
// its output follows the inner loop, and so does each input with as many
// channels when the node is channel-wise (C-type: depthwise with multiplier
// 1, pools, Adds); an aggregating node (Conv2D) reads all input channels.
inline plan::Plan nest_channel_loops(const ir::Graph& graph, plan::Plan plan, int64_t tile) {
  for (plan::Step& step : plan.steps) {
    if (!step.is_loop()) continue;
    for (plan::Step& inner : std::get<plan::Loop>(step.what).body) {
      if (inner.is_loop() || inner.call().node < 0) continue;
      plan::KernelCall call = inner.call();
      const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
      const int channel_axis = call.outputs[0].rank() - 1;
      const int64_t channels = call.outputs[0].shape.back();
      const bool channelwise = ir::op_decl(node.op).kind(graph, node) == ir::OpKind::kChannelwise;
      call.mode = plan::CallMode::kChunk;
      call.outputs[0] = plan::follow_chunk(call.outputs[0], 1, channel_axis, channels, false);
      for (plan::View& input : call.inputs) {
        if (channelwise && input.shape.back() == channels) {
          input = plan::follow_chunk(input, 1, input.rank() - 1, channels, false);
        }
      }
      inner = plan::Step{plan::Loop{"channels", plan::LoopAxis::kChannels, channels, std::min(tile, channels),
                                    {plan::Step{std::move(call)}}}};
    }
  }
  return plan;
}

}  // namespace tinyfit::exec::testing
