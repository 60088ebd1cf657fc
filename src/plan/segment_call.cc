#include "plan/segment_call.h"

#include <string>

namespace tinyfit::plan {
namespace {

tl::unexpected<Diag> no_segment_kernel(const ir::Node& node, const std::string& why) {
  return fail_at_node(node.name, std::string(ir::op_type_name(node.op)), "no segment kernel for " + why,
                      ExitCode::kBadCommandLine);
}

// A tensor's shape as the runtime's NHWC view sees it (left-padded with 1).
Result<ir::Shape> as_nhwc(const ir::Node& node, const ir::Shape& shape) {
  if (shape.size() > 4) return no_segment_kernel(node, "a tensor of rank " + std::to_string(shape.size()));
  ir::Shape nhwc(4 - shape.size(), 1);
  nhwc.insert(nhwc.end(), shape.begin(), shape.end());
  return nhwc;
}

ir::Window row_window_of(const ir::ConvAttrs& a) { return {a.kernel_h, a.stride_h, a.dilation_h, a.pad.top}; }
ir::Window col_window_of(const ir::ConvAttrs& a) { return {a.kernel_w, a.stride_w, a.dilation_w, a.pad.left}; }

void set_input(SegmentKernel& k, const ir::Shape& x) {
  k.batch = x[0];
  k.in_rows = x[1];
  k.in_cols = x[2];
  k.in_channels = x[3];
}

void set_output(SegmentKernel& k, const ir::Shape& y) {
  k.out_rows = y[1];
  k.out_cols = y[2];
  k.out_channels = y[3];
}

Status check_depthwise(const ir::Graph& graph, const ir::Node& node) {
  const ir::Shape& x = graph.input_tensor(node, 0).shape;
  const ir::Shape& y = graph.output_tensor(node, 0).shape;
  const auto& a = node.attr<ir::ConvAttrs>();
  if (x.back() != y.back()) return no_segment_kernel(node, "a channel multiplier above 1");
  if (a.kernel_h * a.kernel_w > kSegmentMaxTaps) {
    return no_segment_kernel(node, "a window of more than " + std::to_string(kSegmentMaxTaps) + " taps");
  }
  return {};
}

Result<SegmentKernel> describe_single(const ir::Graph& graph, const ir::Node& node) {
  SegmentKernel k;
  TINYFIT_ASSIGN_OR_RETURN(const ir::Shape x, as_nhwc(node, graph.input_tensor(node, 0).shape));
  TINYFIT_ASSIGN_OR_RETURN(const ir::Shape y, as_nhwc(node, graph.output_tensor(node, 0).shape));
  k.element_bytes = ir::dtype_size_bytes(graph.input_tensor(node, 0).dtype);
  set_input(k, x);
  switch (node.op) {
    case ir::OpType::kConv2D: {
      const auto& a = node.attr<ir::ConvAttrs>();
      if (a.groups != 1) return no_segment_kernel(node, "a grouped convolution");
      k.op = SegmentOp::kConv2D;
      k.row_window = row_window_of(a);
      k.col_window = col_window_of(a);
      k.output_block = kSegmentConvBlock;
      set_output(k, y);
      return k;
    }
    case ir::OpType::kDepthwiseConv2D: {
      TINYFIT_RETURN_IF_ERROR(check_depthwise(graph, node));
      const auto& a = node.attr<ir::ConvAttrs>();
      k.op = SegmentOp::kChannelwise;
      k.row_window = row_window_of(a);
      k.col_window = col_window_of(a);
      k.output_block = kSegmentDepthwiseBlock;
      set_output(k, y);
      return k;
    }
    case ir::OpType::kFullyConnected: {
      // tinyfit/conv.h: the features are the channels, (w, c) or (h, w, c).
      const ir::Shape& w = graph.input_tensor(node, 1).shape;
      const int64_t positions = w[1] % x[3] == 0 ? w[1] / x[3] : 0;
      k.op = SegmentOp::kConv2D;
      k.output_block = kSegmentConvBlock;
      k.row_window.kernel = positions > 1 && positions == x[1] * x[2] ? x[1] : 1;
      k.col_window.kernel = positions > 1 ? x[2] : 1;
      if (positions != 1 && positions != x[2] && positions != x[1] * x[2]) {
        return no_segment_kernel(node, "features that are not the input's trailing axes");
      }
      k.out_rows = x[1] - k.row_window.kernel + 1;
      k.out_cols = x[2] - k.col_window.kernel + 1;
      k.out_channels = w[0];
      return k;
    }
    default: break;
  }
  return no_segment_kernel(node, "this operator");
}

// expand -> depthwise -> 1x1 project [-> Add(project, expand input)].
Result<SegmentKernel> describe_fused(const ir::Graph& graph, const KernelCall& call) {
  const ir::Node& expand = graph.nodes.at(static_cast<size_t>(call.node));
  if (call.fused.size() != 2 && call.fused.size() != 3) {
    return no_segment_kernel(expand, "a fused chain of " + std::to_string(call.fused.size() + 1) + " nodes");
  }
  const ir::Node& depthwise = graph.nodes.at(static_cast<size_t>(call.fused[0]));
  const ir::Node& project = graph.nodes.at(static_cast<size_t>(call.fused[1]));
  const ir::Node* add = call.fused.size() == 3 ? &graph.nodes.at(static_cast<size_t>(call.fused[2])) : nullptr;
  const bool chain = expand.op == ir::OpType::kConv2D && depthwise.op == ir::OpType::kDepthwiseConv2D &&
                     project.op == ir::OpType::kConv2D && depthwise.inputs[0] == expand.outputs[0] &&
                     project.inputs[0] == depthwise.outputs[0];
  if (!chain) return no_segment_kernel(expand, "a fused chain other than conv -> depthwise -> conv");
  const auto& pa = project.attr<ir::ConvAttrs>();
  if (expand.attr<ir::ConvAttrs>().groups != 1 || pa.groups != 1 || pa.kernel_h != 1 || pa.kernel_w != 1 ||
      pa.stride_h != 1 || pa.stride_w != 1 || pa.pad != ir::Padding2D{}) {
    return no_segment_kernel(expand, "a fused chain whose convolutions are grouped or whose projection is not 1x1");
  }
  TINYFIT_RETURN_IF_ERROR(check_depthwise(graph, depthwise));
  if (add != nullptr) {
    const ir::TensorId block_input = expand.inputs[0];
    const bool residual = add->op == ir::OpType::kAdd && add->inputs.size() == 2 &&
                          ((add->inputs[0] == project.outputs[0] && add->inputs[1] == block_input) ||
                           (add->inputs[1] == project.outputs[0] && add->inputs[0] == block_input));
    if (!residual || graph.tensor(block_input).shape != graph.output_tensor(*add, 0).shape) {
      return no_segment_kernel(expand, "a fused chain ending in something other than the residual Add");
    }
  }
  TINYFIT_ASSIGN_OR_RETURN(const ir::Shape x, as_nhwc(expand, graph.input_tensor(expand, 0).shape));
  TINYFIT_ASSIGN_OR_RETURN(const ir::Shape mid, as_nhwc(expand, graph.output_tensor(expand, 0).shape));
  TINYFIT_ASSIGN_OR_RETURN(const ir::Shape y, as_nhwc(project, graph.output_tensor(project, 0).shape));
  SegmentKernel k;
  k.op = SegmentOp::kInvertedBottleneck;
  k.element_bytes = ir::dtype_size_bytes(graph.input_tensor(expand, 0).dtype);
  set_input(k, x);
  set_output(k, y);
  k.expand_row_window = row_window_of(expand.attr<ir::ConvAttrs>());
  k.expand_col_window = col_window_of(expand.attr<ir::ConvAttrs>());
  k.mid_rows = mid[1];
  k.mid_cols = mid[2];
  k.mid_channels = mid[3];
  k.mid_block = kSegmentConvBlock;
  k.row_window = row_window_of(depthwise.attr<ir::ConvAttrs>());
  k.col_window = col_window_of(depthwise.attr<ir::ConvAttrs>());
  k.output_block = kSegmentConvBlock;
  k.residual = add != nullptr;
  return k;
}

}  // namespace

Result<SegmentKernel> describe_segment_call(const ir::Graph& graph, const KernelCall& call, Traversal traversal) {
  TINYFIT_CHECK(call.node >= 0 && static_cast<size_t>(call.node) < graph.nodes.size())
      << "a segment kernel for call of node " << call.node;
  const ir::Node& node = graph.nodes[static_cast<size_t>(call.node)];
  if (call.mode != CallMode::kWhole) {
    return no_segment_kernel(node, std::string("a call in ") + std::string(call_mode_name(call.mode)) + " mode");
  }
  Result<SegmentKernel> kernel = call.fused.empty() ? describe_single(graph, node) : describe_fused(graph, call);
  if (!kernel) return kernel;
  kernel->traversal = traversal;
  const std::string problem = check_segment_kernel(*kernel);
  if (!problem.empty()) return no_segment_kernel(node, "these shapes (" + problem + ")");
  return kernel;
}

}  // namespace tinyfit::plan
