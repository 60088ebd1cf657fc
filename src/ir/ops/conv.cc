// Conv2D and DepthwiseConv2D on NHWC activations.
//   Conv2D           x[N,H,W,Cin], w[Cout,KH,KW,Cin/groups], bias[Cout]
//   DepthwiseConv2D  x[N,H,W,Cin], w[1,KH,KW,Cin*mult],      bias[Cin*mult]
#include "ir/ops/decl_helpers.h"

namespace tinyfit::ir::ops {
namespace {

Result<Shape> infer_spatial(const Graph& graph, const Node& node, int64_t out_channels) {
  const auto& a = node.attr<ConvAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  TINYFIT_ASSIGN_OR_RETURN(int64_t rows, windowed_extent(x[1], a.kernel_h, a.stride_h, a.dilation_h,
                                                         a.pad.top, a.pad.bottom, "rows"));
  TINYFIT_ASSIGN_OR_RETURN(int64_t cols, windowed_extent(x[2], a.kernel_w, a.stride_w, a.dilation_w,
                                                         a.pad.left, a.pad.right, "cols"));
  return Shape{x[0], rows, cols, out_channels};
}

Status check_bias(const Graph& graph, const Node& node, int64_t out_channels) {
  if (!graph.has_input(node, 2)) return {};
  const Shape& b = graph.input_tensor(node, 2).shape;
  if (b.size() != 1 || b[0] != out_channels) {
    return fail("bias shape " + format_shape(b) + " must be [" + str(out_channels) + "]");
  }
  return {};
}

Result<std::vector<Shape>> infer_conv(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 2, 3));
  TINYFIT_RETURN_IF_ERROR(expect_rank(graph, node.inputs[0], 4, "input"));
  TINYFIT_RETURN_IF_ERROR(expect_rank(graph, node.inputs[1], 4, "weights"));
  const auto& a = node.attr<ConvAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  const Shape& w = graph.input_tensor(node, 1).shape;
  if (a.groups < 1 || x[3] % a.groups != 0 || w[0] % a.groups != 0) {
    return fail("groups " + str(a.groups) + " must divide input channels " + str(x[3]) +
                " and output channels " + str(w[0]));
  }
  if (w[3] * a.groups != x[3]) {
    return fail("weights expect " + str(w[3] * a.groups) + " input channels, input has " + str(x[3]));
  }
  if (w[1] != a.kernel_h || w[2] != a.kernel_w) {
    return fail("weights kernel " + str(w[1]) + "x" + str(w[2]) + " differs from attribute " +
                str(a.kernel_h) + "x" + str(a.kernel_w));
  }
  TINYFIT_RETURN_IF_ERROR(check_bias(graph, node, w[0]));
  TINYFIT_ASSIGN_OR_RETURN(Shape out, infer_spatial(graph, node, w[0]));
  return std::vector<Shape>{out};
}

Result<std::vector<Shape>> infer_depthwise(const Graph& graph, const Node& node) {
  TINYFIT_RETURN_IF_ERROR(expect_inputs(node, 2, 3));
  TINYFIT_RETURN_IF_ERROR(expect_rank(graph, node.inputs[0], 4, "input"));
  TINYFIT_RETURN_IF_ERROR(expect_rank(graph, node.inputs[1], 4, "weights"));
  const auto& a = node.attr<ConvAttrs>();
  const Shape& x = graph.input_tensor(node, 0).shape;
  const Shape& w = graph.input_tensor(node, 1).shape;
  if (w[0] != 1 || w[1] != a.kernel_h || w[2] != a.kernel_w || x[3] == 0 || w[3] % x[3] != 0) {
    return fail("depthwise weights " + format_shape(w) + " must be [1," + str(a.kernel_h) + "," +
                str(a.kernel_w) + ",k*" + str(x[3]) + "]");
  }
  TINYFIT_RETURN_IF_ERROR(check_bias(graph, node, w[3]));
  TINYFIT_ASSIGN_OR_RETURN(Shape out, infer_spatial(graph, node, w[3]));
  return std::vector<Shape>{out};
}

int64_t macs_conv(const Graph& graph, const Node& node) {
  const Shape& w = graph.input_tensor(node, 1).shape;
  return graph.output_tensor(node, 0).num_elements() * w[1] * w[2] * w[3];
}

int64_t macs_depthwise(const Graph& graph, const Node& node) {
  const Shape& w = graph.input_tensor(node, 1).shape;
  return graph.output_tensor(node, 0).num_elements() * w[1] * w[2];
}

// Batch is identity, rows and cols slide; channels differ between the two.
AxisMap spatial_axis_map(const Node& node) {
  const auto& a = node.attr<ConvAttrs>();
  AxisMap map;
  map.links.push_back({0, 0, 0, AxisRole::kIdentity, {}, 1, false});
  map.links.push_back({1, 0, 1, AxisRole::kWindow, {a.kernel_h, a.stride_h, a.dilation_h, a.pad.top}, 1, false});
  map.links.push_back({2, 0, 2, AxisRole::kWindow, {a.kernel_w, a.stride_w, a.dilation_w, a.pad.left}, 1, false});
  return map;
}

AxisMap axes_conv(const Graph& graph, const Node& node) {
  AxisMap map = spatial_axis_map(node);
  const auto& a = node.attr<ConvAttrs>();
  if (a.groups == 1) {
    map.reduced.push_back({0, 3});  // every output channel reads all input channels
  } else {
    const Shape& w = graph.input_tensor(node, 1).shape;
    // Grouped: output channel o reads the input channels of group o / (Cout/groups).
    map.links.push_back({3, 0, 3, AxisRole::kGrouped, {}, w[0] / a.groups, false});
  }
  return map;
}

AxisMap axes_depthwise(const Graph& graph, const Node& node) {
  AxisMap map = spatial_axis_map(node);
  const int64_t multiplier = graph.input_tensor(node, 1).shape[3] / graph.input_tensor(node, 0).shape[3];
  map.links.push_back({3, 0, 3, multiplier == 1 ? AxisRole::kIdentity : AxisRole::kGrouped, {},
                       multiplier, false});
  return map;
}

OpKind kind_conv(const Graph&, const Node& node) {
  return node.attr<ConvAttrs>().groups == 1 ? OpKind::kAggregating : OpKind::kOther;
}
OpKind kind_channelwise(const Graph&, const Node&) { return OpKind::kChannelwise; }

void set_row_padding(Node& node, int64_t before, int64_t after, int64_t /*input_rows*/) {
  auto& pad = std::get<ConvAttrs>(node.attrs).pad;
  pad.top = before;
  pad.bottom = after;
}

}  // namespace

const OpDecl& conv2d_decl() {
  static const OpDecl decl{"Conv2D", infer_conv, macs_conv, kind_conv, axes_conv,
                           InplaceRule::kNever, false, true, set_row_padding};
  return decl;
}

const OpDecl& depthwise_conv2d_decl() {
  static const OpDecl decl{"DepthwiseConv2D", infer_depthwise, macs_depthwise, kind_channelwise,
                           axes_depthwise, InplaceRule::kLineBuffer, false, true, set_row_padding};
  return decl;
}

}  // namespace tinyfit::ir::ops
