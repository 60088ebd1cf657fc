#include "import/fold_padding.h"

#include "import/graph_rewrite.h"

namespace tinyfit::import {

void fold_padding(ir::Graph& graph) {
  std::vector<bool> dead(graph.nodes.size(), false);
  const auto producers = graph.compute_producers();
  const auto consumers = graph.compute_consumers();
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    ir::Node& conv = graph.nodes[n];
    if (conv.op != ir::OpType::kConv2D && conv.op != ir::OpType::kDepthwiseConv2D) continue;
    const ir::TensorId padded = conv.inputs[0];
    const ir::NodeId p = producers[static_cast<size_t>(padded)];
    if (p < 0 || dead[static_cast<size_t>(p)]) continue;
    const ir::Node& pad = graph.nodes[static_cast<size_t>(p)];
    if (pad.op != ir::OpType::kPad || consumers[static_cast<size_t>(padded)].size() != 1 ||
        is_graph_output(graph, padded)) {
      continue;
    }
    const auto& a = pad.attr<ir::PadAttrs>();
    if (a.before.size() != 4 || a.before[0] || a.after[0] || a.before[3] || a.after[3]) continue;
    // Quantized tensors pad with the zero point, which is real 0.
    if (a.value != 0.0f) continue;
    auto& attrs = std::get<ir::ConvAttrs>(conv.attrs);
    attrs.pad.top += a.before[1];
    attrs.pad.bottom += a.after[1];
    attrs.pad.left += a.before[2];
    attrs.pad.right += a.after[2];
    conv.inputs[0] = pad.inputs[0];
    absorb_before(conv, pad);
    dead[static_cast<size_t>(p)] = true;
  }
  erase_nodes(graph, dead);
}

}  // namespace tinyfit::import
