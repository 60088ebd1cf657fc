// Softmax along one axis, and LRN across channels (NHWC: the last axis).
#include "ir/ops/decl_helpers.h"

namespace tinyfit::ir::ops {
namespace {

Result<std::vector<Shape>> infer_softmax(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const Shape& x = graph.input_tensor(node, 0).shape;
  const int axis = node.attr<SoftmaxAttrs>().axis;
  if (axis < 0 || axis >= static_cast<int>(x.size())) {
    return fail("axis " + str(axis) + " out of range for shape " + format_shape(x));
  }
  return std::vector<Shape>{x};
}

Result<std::vector<Shape>> infer_lrn(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  TINYFIT_RETURN_IF_ERROR(expect_rank(graph, node.inputs[0], 4, "input"));
  if (node.attr<LrnAttrs>().size < 1) return fail("size must be at least 1");
  return std::vector<Shape>{graph.input_tensor(node, 0).shape};
}

// exp, sum and divide: counted as one operation per element.
int64_t macs_softmax(const Graph& graph, const Node& node) { return output_elements(graph, node); }
int64_t macs_lrn(const Graph& graph, const Node& node) {
  return output_elements(graph, node) * node.attr<LrnAttrs>().size;
}

OpKind kind_softmax(const Graph& graph, const Node& node) {
  const int last = static_cast<int>(graph.input_tensor(node, 0).shape.size()) - 1;
  return node.attr<SoftmaxAttrs>().axis == last ? OpKind::kOther : OpKind::kChannelwise;
}
OpKind kind_other(const Graph&, const Node&) { return OpKind::kOther; }

AxisMap axes_softmax(const Graph& graph, const Node& node) {
  AxisMap map = identity_axis_map(graph, node, graph.output_tensor(node, 0).shape.size());
  map.reduced.push_back({0, node.attr<SoftmaxAttrs>().axis});
  return map;
}

AxisMap axes_lrn(const Graph& graph, const Node& node) {
  AxisMap map;
  for (int axis = 0; axis < 3; ++axis) map.links.push_back({axis, 0, axis, AxisRole::kIdentity, {}, 1, false});
  const int64_t size = node.attr<LrnAttrs>().size;
  // Channel c reads channels [c - (size-1)/2, c + size/2] (ONNX LRN).
  map.links.push_back({3, 0, 3, AxisRole::kWindow, {size, 1, 1, (size - 1) / 2}, 1, false});
  (void)graph;
  return map;
}

}  // namespace

const OpDecl& softmax_decl() {
  static const OpDecl decl{"Softmax", infer_softmax, macs_softmax, kind_softmax, axes_softmax,
                           InplaceRule::kElementwise, false};
  return decl;
}

const OpDecl& lrn_decl() {
  static const OpDecl decl{"LRN", infer_lrn, macs_lrn, kind_other, axes_lrn, InplaceRule::kNever, false};
  return decl;
}

}  // namespace tinyfit::ir::ops
