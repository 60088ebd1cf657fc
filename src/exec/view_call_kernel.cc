#include "exec/view_call_kernel.h"

#include <string>

namespace tinyfit::exec {

Status check_view_ranks(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  for (const auto* tensors : {&node.inputs, &node.outputs}) {
    for (ir::TensorId t : *tensors) {
      if (t == ir::kNoTensor) continue;
      const size_t rank = context.graph.tensor(t).shape.size();
      if (rank > 4) return fail_no_kernel(context, "tensors of rank " + std::to_string(rank));
    }
  }
  return {};
}

Status check_whole_or_channel_chunk(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const bool channelwise = ir::op_decl(node.op).kind(context.graph, node) == ir::OpKind::kChannelwise;
  if (context.call.mode == plan::CallMode::kWhole || (context.call.mode == plan::CallMode::kChunk && channelwise)) {
    return {};
  }
  return fail_no_kernel(context, std::string(ir::op_type_name(node.op)));
}

}  // namespace tinyfit::exec
