// Test graphs and hand-built plans for bind_conv_test.cc: chains of
// conv-family layers with deterministic data and TFLite-like quantisation
// (int8: per-channel symmetric weight scales; uint8: one weight scale and zero
// point; hybrid: float activations with int8 weights), and a small builder of
// plans with loops, partial buffers and accumulators.
#pragma once

#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "exec/tensor_data.h"
#include "ir/graph.h"
#include "plan/plan.h"

namespace tinyfit::exec::conv_test {

// Numerical Recipes' LCG: deterministic data without <random>'s
// implementation-defined distributions.
class Lcg {
 public:
  explicit Lcg(uint32_t seed) : state_(seed) {}
  uint32_t next() { return state_ = state_ * 1664525u + 1013904223u; }
  int64_t uniform_int(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>((next() >> 8) % static_cast<uint32_t>(hi - lo + 1)); }
  float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next() >> 8) / 16777216.0f; }

 private:
  uint32_t state_;
};

inline TensorData random_data(Lcg& r, ir::DType dtype, const ir::Shape& shape, int64_t lo = 0, int64_t hi = 0) {
  TensorData t = TensorData::zeros(dtype, shape);
  const auto n = static_cast<size_t>(t.num_elements());
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case ir::DType::kF32: t.mutable_values<float>()[i] = r.uniform(-1, 1); break;
      case ir::DType::kI8: t.mutable_values<int8_t>()[i] = static_cast<int8_t>(r.uniform_int(-128, 127)); break;
      case ir::DType::kU8: t.mutable_values<uint8_t>()[i] = static_cast<uint8_t>(r.uniform_int(0, 255)); break;
      case ir::DType::kI32: t.mutable_values<int32_t>()[i] = static_cast<int32_t>(r.uniform_int(lo, hi)); break;
      default: break;
    }
  }
  return t;
}

// One conv-family node of a test net.
struct Layer {
  ir::OpType op = ir::OpType::kConv2D;
  int64_t out_channels = 1;  // DepthwiseConv2D: input channels * multiplier
  int64_t kernel_h = 1, kernel_w = 1, stride = 1, dilation = 1, groups = 1;
  ir::Padding2D pad;
  ir::FusedActivation activation;
};

inline ir::FusedActivation relu6() { return {0.0f, 6.0f}; }

// A graph under construction: `dtype` is the activations' (i8, u8 or f32);
// `hybrid` gives f32 nets int8 per-channel weights.
struct Net {
  ir::Graph graph;
  std::vector<TensorData> inputs;
  ir::DType dtype = ir::DType::kI8;
  bool hybrid = false;
  float output_scale_factor = 1.0f;  // > 1: outputs spread over fewer quanta
  Lcg random{12345};

  // Activation quantisation: zero points off-centre, as real models have them.
  std::optional<ir::QuantParams> activation_quant(float scale) const {
    if (dtype == ir::DType::kF32) return std::nullopt;
    return ir::QuantParams{{scale}, {dtype == ir::DType::kI8 ? -3 : 118}, 0};
  }

  ir::TensorId add_tensor(const std::string& name, ir::DType t, const ir::Shape& shape,
                          std::optional<ir::QuantParams> quant) {
    ir::Tensor tensor;
    tensor.name = name;
    tensor.dtype = t;
    tensor.shape = shape;
    tensor.quant = std::move(quant);
    return graph.add_tensor(std::move(tensor));
  }

  ir::TensorId add_input(const ir::Shape& shape) {
    const ir::TensorId id = add_tensor("x", dtype, shape, activation_quant(0.05f));
    graph.inputs.push_back(id);
    inputs.push_back(random_data(random, dtype, shape));
    return id;
  }

  ir::TensorId add_constant(const std::string& name, const TensorData& value, std::optional<ir::QuantParams> quant) {
    const ir::TensorId id = add_tensor(name, value.dtype, value.shape, std::move(quant));
    graph.tensor(id).is_constant = true;
    graph.tensor(id).data = value.bytes;
    return id;
  }

  // Appends `layer` reading `x`; FullyConnected with `flatten` reads all of a
  // rank-4 input's (h, w, c) as features. Returns the output tensor.
  ir::TensorId add_layer(const std::string& name, ir::TensorId x, const Layer& layer, bool flatten = false) {
    const ir::Shape xs = graph.tensor(x).shape;
    const float x_scale = graph.tensor(x).quant ? graph.tensor(x).quant->scale[0] : 1.0f;
    ir::Shape w_shape, y_shape;
    int64_t taps = 0;
    if (layer.op == ir::OpType::kFullyConnected) {
      const int64_t in = flatten ? xs[1] * xs[2] * xs[3] : xs.back();
      int64_t elements = 1;
      for (int64_t d : xs) elements *= d;
      w_shape = {layer.out_channels, in};
      y_shape = {elements / in, layer.out_channels};
      taps = in;
    } else {
      const auto extent = [&](int64_t in, int64_t k, int64_t pads) {
        return (in + pads - layer.dilation * (k - 1) - 1) / layer.stride + 1;
      };
      const int64_t rows = extent(xs[1], layer.kernel_h, layer.pad.top + layer.pad.bottom);
      const int64_t cols = extent(xs[2], layer.kernel_w, layer.pad.left + layer.pad.right);
      y_shape = {xs[0], rows, cols, layer.out_channels};
      const bool depthwise = layer.op == ir::OpType::kDepthwiseConv2D;
      w_shape = depthwise ? ir::Shape{1, layer.kernel_h, layer.kernel_w, layer.out_channels}
                          : ir::Shape{layer.out_channels, layer.kernel_h, layer.kernel_w, xs[3] / layer.groups};
      taps = layer.kernel_h * layer.kernel_w * (depthwise ? 1 : xs[3] / layer.groups);
    }
    const int32_t channel_axis = layer.op == ir::OpType::kDepthwiseConv2D ? 3 : 0;
    const ir::DType w_dtype = hybrid ? ir::DType::kI8 : dtype;
    std::optional<ir::QuantParams> wq;
    float w_scale = 0.004f;
    if (w_dtype == ir::DType::kI8) {
      wq = ir::QuantParams{{}, {}, channel_axis};
      for (int64_t c = 0; c < layer.out_channels; ++c) {
        wq->scale.push_back(w_scale * static_cast<float>(1 + c % 4));  // per-channel, as TFLite int8
        wq->zero_point.push_back(0);
      }
    } else if (w_dtype == ir::DType::kU8) {
      w_scale = 0.006f;
      wq = ir::QuantParams{{w_scale}, {131}, 0};
    }
    const ir::TensorId w = add_constant(name + "_w", random_data(random, w_dtype, w_shape), wq);
    // int32 bias in accumulator units (|b| up to ~1/3 of a typical sum).
    const TensorData bias = dtype == ir::DType::kF32 ? random_data(random, ir::DType::kF32, {layer.out_channels})
                                                     : random_data(random, ir::DType::kI32, {layer.out_channels}, -3000, 3000);
    const ir::TensorId b = add_constant(name + "_b", bias, std::nullopt);
    // Output scale: (x - zp) and w are spread uniformly over 256 values (a
    // standard deviation of 74), so a sum of `taps` products has a standard
    // deviation of 74 * 74 * sqrt(taps) accumulator units; 200 * sqrt(taps)
    // units per quantum gives 27 quanta for weight channels of the base scale
    // and 110 for those of 4x: most outputs in range, some saturating.
    const float y_scale = x_scale * w_scale * 200.0f * std::sqrt(static_cast<float>(taps)) * output_scale_factor;
    const ir::TensorId y = add_tensor(name + "_y", dtype, y_shape, activation_quant(y_scale));
    ir::Node node;
    node.name = name;
    node.op = layer.op;
    node.inputs = {x, w, b};
    node.outputs = {y};
    node.activation = layer.activation;
    if (layer.op != ir::OpType::kFullyConnected) {
      ir::ConvAttrs a;
      a.kernel_h = layer.kernel_h;
      a.kernel_w = layer.kernel_w;
      a.stride_h = a.stride_w = layer.stride;
      a.dilation_h = a.dilation_w = layer.dilation;
      a.pad = layer.pad;
      a.groups = layer.groups;
      node.attrs = a;
    }
    graph.add_node(std::move(node));
    return y;
  }

  void set_output(ir::TensorId y) { graph.outputs = {y}; }
};

// expand 3x3 (ReLU6) -> depthwise 3x3 (ReLU6), both `mid_channels` wide ->
// project 1x1 to 8 channels -> 3x3 stride-2 conv to 16 channels, on an input
// of `input_shape` (NHWC): a small bottleneck whose rows need a halo.
inline Net make_bottleneck_down_net(const ir::Shape& input_shape, int64_t mid_channels) {
  Net net;
  Layer expand, depthwise, project, down;
  expand.out_channels = mid_channels, expand.kernel_h = expand.kernel_w = 3, expand.pad = {1, 1, 1, 1};
  expand.activation = relu6();
  depthwise.op = ir::OpType::kDepthwiseConv2D;
  depthwise.out_channels = mid_channels, depthwise.kernel_h = depthwise.kernel_w = 3, depthwise.pad = {1, 1, 1, 1};
  depthwise.activation = relu6();
  project.out_channels = 8;
  down.out_channels = 16, down.kernel_h = down.kernel_w = 3, down.stride = 2, down.pad = {1, 1, 1, 1};
  ir::TensorId t = net.add_layer("expand", net.add_input(input_shape), expand);
  t = net.add_layer("depthwise", t, depthwise);
  t = net.add_layer("project", t, project);
  net.set_output(net.add_layer("down", t, down));
  return net;
}

// Hand-built plans: buffers placed one after another (no reuse), so any plan
// the tests write is valid for verify_plan.
class PlanBuilder {
 public:
  plan::BufferId add_buffer(const std::string& name, plan::BufferRole role, ir::DType dtype, int64_t elements) {
    plan::PlanBuffer b;
    b.name = name;
    b.role = role;
    b.dtype = dtype;
    b.bytes = elements * ir::dtype_size_bytes(dtype);
    b.offset = plan_.arena_bytes;
    plan_.arena_bytes += (b.bytes + 3) / 4 * 4;
    plan_.buffers.push_back(b);
    const auto id = static_cast<plan::BufferId>(plan_.buffers.size() - 1);
    if (role == plan::BufferRole::kModelInput) plan_.inputs.push_back(id);
    if (role == plan::BufferRole::kModelOutput) plan_.outputs.push_back(id);
    return id;
  }
  plan::BufferId add_tensor_buffer(const ir::Graph& g, ir::TensorId t, plan::BufferRole role) {
    return add_buffer(g.tensor(t).name, role, g.tensor(t).dtype, g.tensor(t).num_elements());
  }
  void add_step(plan::KernelCall call) { plan_.steps.push_back({std::move(call)}); }
  void add_loop(int64_t extent, int64_t tile, std::vector<plan::KernelCall> body) {
    plan::Loop loop{"loop", plan::LoopAxis::kChannels, extent, tile, {}};
    for (plan::KernelCall& call : body) loop.body.push_back({std::move(call)});
    plan_.steps.push_back({std::move(loop)});
  }
  plan::Plan& plan() { return plan_; }

 private:
  plan::Plan plan_;
};

// A view of the whole tensor in `buffer` that follows the loop's chunk along
// its last axis (a channel slice: strides of the whole tensor); the loop runs
// over the tensor's channels.
inline plan::View chunk_slice(plan::BufferId buffer, const ir::Shape& shape) {
  const auto axis = static_cast<int>(shape.size()) - 1;
  return plan::follow_chunk(plan::make_dense_view(buffer, shape), 0, axis, shape.back(), false);
}

// A partial buffer holding `tile` channels of a tensor of `shape`.
inline plan::View chunk_partial(plan::BufferId buffer, const ir::Shape& shape, int64_t tile) {
  ir::Shape chunk = shape;
  chunk.back() = tile;
  const auto axis = static_cast<int>(shape.size()) - 1;
  return plan::follow_chunk(plan::make_dense_view(buffer, chunk), 0, axis, shape.back(), true);
}

inline plan::KernelCall make_call(ir::NodeId node, plan::CallMode mode, std::vector<plan::View> in,
                                  std::vector<plan::View> out, int accumulator_bits = 32) {
  plan::KernelCall call;
  call.node = node;
  call.mode = mode;
  call.inputs = std::move(in);
  call.outputs = std::move(out);
  call.accumulator_bits = accumulator_bits;
  return call;
}

}  // namespace tinyfit::exec::conv_test
