// Test graphs of inverted bottlenecks (MobileNetV2 / MCUNet blocks) on top of
// conv_test_nets.h: expand Conv2D -> DepthwiseConv2D -> 1x1 project Conv2D
// [-> Add of the block input], with TensorFlow's SAME padding, and plans that
// place a call's output at a chosen offset from its input (vMCU overlap).
#pragma once

#include <algorithm>
#include <string>

#include "support/conv_test_nets.h"

namespace tinyfit::exec::conv_test {

// TensorFlow SAME padding of one axis: out = ceil(in / stride), the padding
// split with the extra element after.
inline void same_padding(int64_t in, int64_t kernel, int64_t stride, int64_t& before, int64_t& after) {
  const int64_t out = (in + stride - 1) / stride;
  const int64_t total = std::max<int64_t>((out - 1) * stride + kernel - in, 0);
  before = total / 2;
  after = total - before;
}

inline Layer make_same_layer(ir::OpType op, int64_t out_channels, int64_t kernel, int64_t stride, int64_t in_rows,
                             int64_t in_cols, ir::FusedActivation activation) {
  Layer layer;
  layer.op = op;
  layer.out_channels = out_channels;
  layer.kernel_h = layer.kernel_w = kernel;
  layer.stride = stride;
  same_padding(in_rows, kernel, stride, layer.pad.top, layer.pad.bottom);
  same_padding(in_cols, kernel, stride, layer.pad.left, layer.pad.right);
  layer.activation = activation;
  return layer;
}

// Add(a, b) with an output scale that holds the sum's range.
inline ir::TensorId add_residual_add(Net& net, const std::string& name, ir::TensorId a, ir::TensorId b) {
  const ir::Tensor& ta = net.graph.tensor(a);
  const float scale = ta.quant ? ta.quant->scale[0] + net.graph.tensor(b).quant->scale[0] : 1.0f;
  const ir::TensorId y = net.add_tensor(name + "_y", net.dtype, ta.shape, net.activation_quant(scale));
  ir::Node node;
  node.name = name;
  node.op = ir::OpType::kAdd;
  node.inputs = {a, b};
  node.outputs = {y};
  net.graph.add_node(std::move(node));
  return y;
}

struct BottleneckConfig {
  int64_t mid_channels = 8;
  int64_t out_channels = 4;
  int64_t expand_kernel = 1, expand_stride = 1;  // a stem conv (3, 2) as MCUNet's first block
  int64_t dw_kernel = 3, dw_stride = 1;
  bool residual = false;           // requires out_channels == input channels and strides 1
  bool residual_input_first = true;  // Add(x, project) or Add(project, x)
  ir::FusedActivation expand_activation = relu6();
  ir::FusedActivation project_activation = {};  // none: the type's range
};

// Appends the block reading x; returns its output tensor.
inline ir::TensorId add_inverted_bottleneck(Net& net, const std::string& name, ir::TensorId x,
                                            const BottleneckConfig& c) {
  const ir::Shape xs = net.graph.tensor(x).shape;
  const ir::TensorId mid = net.add_layer(
      name + "/expand", x,
      make_same_layer(ir::OpType::kConv2D, c.mid_channels, c.expand_kernel, c.expand_stride, xs[1], xs[2],
                      c.expand_activation));
  const ir::Shape ms = net.graph.tensor(mid).shape;
  const ir::TensorId dw = net.add_layer(
      name + "/depthwise", mid,
      make_same_layer(ir::OpType::kDepthwiseConv2D, c.mid_channels, c.dw_kernel, c.dw_stride, ms[1], ms[2], relu6()));
  Layer project;
  project.out_channels = c.out_channels;
  project.activation = c.project_activation;
  const ir::TensorId y = net.add_layer(name + "/project", dw, project);
  if (!c.residual) return y;
  return c.residual_input_first ? add_residual_add(net, name + "/add", x, y) : add_residual_add(net, name + "/add", y, x);
}

}  // namespace tinyfit::exec::conv_test
