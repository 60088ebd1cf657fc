#include "devices/split_support.h"

#include "devices/part_boxes.h"
#include "exec/kernel_call.h"

namespace tinyfit::devices {

bool reads_view_origins(const ir::Node& node) {
  switch (node.op) {
    case ir::OpType::kConv2D: return node.attr<ir::ConvAttrs>().groups == 1;
    case ir::OpType::kDepthwiseConv2D:
    case ir::OpType::kMaxPool:
    case ir::OpType::kAveragePool: return true;
    default: return false;
  }
}

namespace {

bool is_plain_elementwise(const ir::Graph& graph, const ir::Node& node) {
  if (!exec::serves_output_rows(node) || reads_view_origins(node) || node.outputs.size() != 1) return false;
  if (ir::op_decl(node.op).is_alias) return false;
  const ir::Shape& shape = graph.output_tensor(node, 0).shape;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!graph.has_input(node, i)) continue;
    const ir::Tensor& input = graph.input_tensor(node, i);
    if (input.is_constant || input.shape != shape) return false;
  }
  return true;
}

}  // namespace

bool serves_split(const ir::Graph& graph, const ir::Node& node, Split split, int parts) {
  if (split == Split::kWhole) return true;
  if (node.outputs.size() != 1 || parts < 2) return false;
  const ir::Shape& shape = graph.output_tensor(node, 0).shape;
  const int axis = find_split_axis(shape, split);
  if (axis < 0 || shape[static_cast<size_t>(axis)] < parts) return false;
  if (reads_view_origins(node)) return shape.size() == 4 && (split == Split::kRows || split == Split::kChannels);
  if (node.op == ir::OpType::kFullyConnected) return split == Split::kChannels && shape.size() == 2;
  if (is_plain_elementwise(graph, node)) return true;
  return false;
}

}  // namespace tinyfit::devices
