// Mean over a set of axes (GlobalAveragePool is Mean over rows and cols).
#include <algorithm>

#include "ir/ops/decl_helpers.h"

namespace tinyfit::ir::ops {
namespace {

bool reduces(const ReduceAttrs& a, int axis) {
  return std::find(a.axes.begin(), a.axes.end(), axis) != a.axes.end();
}

Result<std::vector<Shape>> infer(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  const auto& a = node.attr<ReduceAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  if (a.axes.empty()) return fail("reduces no axes");
  for (int axis : a.axes) {
    if (axis < 0 || axis >= static_cast<int>(x.size())) {
      return fail("axis " + str(axis) + " out of range for shape " + format_shape(x));
    }
  }
  Shape out;
  for (int axis = 0; axis < static_cast<int>(x.size()); ++axis) {
    if (!reduces(a, axis)) {
      out.push_back(x[axis]);
    } else if (a.keep_dims) {
      out.push_back(1);
    }
  }
  return std::vector<Shape>{out};
}

int64_t macs(const Graph& graph, const Node& node) { return graph.input_tensor(node, 0).num_elements(); }

// Channel-wise when the channel axis (last) survives, as in global pooling.
OpKind kind(const Graph& graph, const Node& node) {
  const int last = static_cast<int>(graph.input_tensor(node, 0).shape.size()) - 1;
  return reduces(node.attr<ReduceAttrs>(), last) ? OpKind::kOther : OpKind::kChannelwise;
}

AxisMap axes(const Graph& graph, const Node& node) {
  const auto& a = node.attr<ReduceAttrs>();
  const int rank = static_cast<int>(graph.input_tensor(node, 0).shape.size());
  AxisMap map;
  int out_axis = 0;
  for (int axis = 0; axis < rank; ++axis) {
    if (reduces(a, axis)) {
      map.reduced.push_back({0, axis});
      if (a.keep_dims) ++out_axis;
    } else {
      map.links.push_back({out_axis++, 0, axis, AxisRole::kIdentity, {}, 1, false});
    }
  }
  return map;
}

}  // namespace

const OpDecl& mean_decl() {
  static const OpDecl decl{"Mean", infer, macs, kind, axes, InplaceRule::kNever, false};
  return decl;
}

}  // namespace tinyfit::ir::ops
