// FullyConnected: x[..., In] viewed as [B, In] (B = elements / In),
// w[Out, In], bias[Out]; output [B, Out].
#include "ir/ops/decl_helpers.h"

namespace tinyfit::ir::ops {
namespace {

Result<std::vector<Shape>> infer(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 2, 3));
  TINYFIT_RETURN_IF_ERROR(expect_rank(graph, node.inputs[1], 2, "weights"));
  const Tensor& x = graph.input_tensor(node, 0);
  const Shape& w = graph.input_tensor(node, 1).shape;
  if (w[1] <= 0 || x.num_elements() % w[1] != 0) {
    return fail("input " + format_shape(x.shape) + " is not a whole number of rows of " + str(w[1]) +
                " features");
  }
  if (graph.has_input(node, 2)) {
    const Shape& b = graph.input_tensor(node, 2).shape;
    if (b.size() != 1 || b[0] != w[0]) {
      return fail("bias shape " + format_shape(b) + " must be [" + str(w[0]) + "]");
    }
  }
  return std::vector<Shape>{{x.num_elements() / w[1], w[0]}};
}

int64_t macs(const Graph& graph, const Node& node) {
  return graph.output_tensor(node, 0).num_elements() * graph.input_tensor(node, 1).shape[1];
}

OpKind kind(const Graph&, const Node&) { return OpKind::kAggregating; }

AxisMap axes(const Graph& graph, const Node& node) {
  AxisMap map;
  const Tensor& x = graph.input_tensor(node, 0);
  // Rows map to rows when the input is already [B, In]; features are reduced.
  if (x.shape.size() == 2) map.links.push_back({0, 0, 0, AxisRole::kIdentity, {}, 1, false});
  for (size_t axis = x.shape.size() == 2 ? 1 : 0; axis < x.shape.size(); ++axis) {
    map.reduced.push_back({0, static_cast<int>(axis)});
  }
  (void)graph;
  return map;
}

}  // namespace

const OpDecl& fully_connected_decl() {
  static const OpDecl decl{"FullyConnected", infer, macs, kind, axes, InplaceRule::kNever, false, true};
  return decl;
}

}  // namespace tinyfit::ir::ops
