#include "plan/plan_macs.h"

#include "ir/op_decl.h"
#include "support/diag.h"

namespace tinyfit::plan {
namespace {

// Channels a chunked call divides its node's work by: output channels for
// kChunk, input channels for kAccumulate (channels are the last axis).
int64_t count_divided_channels(const ir::Graph& graph, const KernelCall& call) {
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
  const ir::Tensor& tensor =
      call.mode == CallMode::kChunk ? graph.output_tensor(node, 0) : graph.input_tensor(node, 0);
  TINYFIT_CHECK(!tensor.shape.empty() && tensor.shape.back() > 0)
      << "node '" << node.name << "': no channel axis to chunk";
  return tensor.shape.back();
}

// MACs of `call` over `channels` of its `total` channels, without overflow:
// macs * channels / total, split so no product exceeds macs.
int64_t scale_macs(int64_t macs, int64_t channels, int64_t total) {
  return macs / total * channels + macs % total * channels / total;
}

int64_t count_call_macs(const ir::Graph& graph, const KernelCall& call, int64_t chunk_channels) {
  if (call.mode == CallMode::kFinalize || call.mode == CallMode::kCopy) return 0;
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
  const int64_t macs = ir::op_decl(node.op).count_macs(graph, node);
  if (call.mode == CallMode::kWhole) return macs;
  return scale_macs(macs, chunk_channels, count_divided_channels(graph, call));
}

}  // namespace

int64_t count_plan_macs(const ir::Graph& graph, const Plan& plan) {
  int64_t total = 0;
  for (const Step& step : plan.steps) {
    if (!step.is_loop()) {
      total += count_call_macs(graph, step.call(), 0);
      continue;
    }
    const Loop& loop = step.loop();
    // Every full iteration covers `tile` channels; the last may be shorter.
    const int64_t iterations = count_iterations(loop);
    const int64_t last_chunk = chunk_of_iteration(loop, iterations - 1).size();
    for (const KernelCall& call : loop.body) {
      if (call.mode == CallMode::kWhole) {
        total += iterations * count_call_macs(graph, call, 0);
      } else {
        total += (iterations - 1) * count_call_macs(graph, call, loop.tile) + count_call_macs(graph, call, last_chunk);
      }
    }
  }
  return total;
}

}  // namespace tinyfit::plan
