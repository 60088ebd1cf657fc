// MaxPool and AveragePool over the rows and cols of NHWC input; channel-wise.
#include "ir/ops/decl_helpers.h"

namespace tinyfit::ir::ops {
namespace {

Result<std::vector<Shape>> infer(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 1, 1));
  TINYFIT_RETURN_IF_ERROR(expect_rank(graph, node.inputs[0], 4, "input"));
  const auto& a = node.attr<PoolAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  TINYFIT_ASSIGN_OR_RETURN(int64_t rows, windowed_extent(x[1], a.kernel_h, a.stride_h, 1, a.pad.top,
                                                         a.pad.bottom, "rows"));
  TINYFIT_ASSIGN_OR_RETURN(int64_t cols, windowed_extent(x[2], a.kernel_w, a.stride_w, 1, a.pad.left,
                                                         a.pad.right, "cols"));
  return std::vector<Shape>{{x[0], rows, cols, x[3]}};
}

// One comparison or addition per window element.
int64_t macs(const Graph& graph, const Node& node) {
  const auto& a = node.attr<PoolAttrs>();
  return graph.output_tensor(node, 0).num_elements() * a.kernel_h * a.kernel_w;
}

OpKind kind(const Graph&, const Node&) { return OpKind::kChannelwise; }

AxisMap axes(const Graph&, const Node& node) {
  const auto& a = node.attr<PoolAttrs>();
  AxisMap map;
  map.links.push_back({0, 0, 0, AxisRole::kIdentity, {}, 1, false});
  map.links.push_back({1, 0, 1, AxisRole::kWindow, {a.kernel_h, a.stride_h, 1, a.pad.top}, 1, false});
  map.links.push_back({2, 0, 2, AxisRole::kWindow, {a.kernel_w, a.stride_w, 1, a.pad.left}, 1, false});
  map.links.push_back({3, 0, 3, AxisRole::kIdentity, {}, 1, false});
  return map;
}

void set_row_padding(Node& node, int64_t before, int64_t after, int64_t /*input_rows*/) {
  auto& pad = std::get<PoolAttrs>(node.attrs).pad;
  pad.top = before;
  pad.bottom = after;
}

}  // namespace

const OpDecl& pool_decl(OpType op) {
  static const OpDecl max_pool{"MaxPool", infer, macs, kind, axes, InplaceRule::kNever, false, true,
                               set_row_padding, true};
  static const OpDecl average_pool{"AveragePool", infer, macs, kind, axes, InplaceRule::kNever, false, true,
                                   set_row_padding, true};
  TINYFIT_CHECK(op == OpType::kMaxPool || op == OpType::kAveragePool) << op_type_name(op);
  return op == OpType::kMaxPool ? max_pool : average_pool;
}

}  // namespace tinyfit::ir::ops
