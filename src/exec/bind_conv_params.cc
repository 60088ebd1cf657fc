#include "exec/bind_conv_params.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "exec/reference/kernel.h"

namespace tinyfit::exec {
namespace {

TensorData constant_data(const ir::Tensor& tensor) {
  return TensorData{tensor.dtype, tensor.shape, tensor.data};
}

// Hex float literal that reads back to the same float (finite values only).
std::string format_float(float value) {
  char text[48];
  std::snprintf(text, sizeof text, "%af", static_cast<double>(value));
  return text;
}

template <typename T>
std::span<const uint8_t> as_bytes(const std::vector<T>& values) {
  return {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(T)};
}

// The float clamp of a fused activation; an unbounded side is -/+FLT_MAX so
// that generated code can spell it (it differs from infinity only for sums
// that overflowed to infinity).
std::pair<float, float> float_clamp(const ir::FusedActivation& a) {
  return {std::isinf(a.min) ? -FLT_MAX : a.min, std::isinf(a.max) ? FLT_MAX : a.max};
}

struct Geometry {
  int64_t in_channels = 0, out_channels = 0, in_features = 0, groups = 1, depth_multiplier = 1;
};

Result<Geometry> describe(const KernelCallContext& context) {
  const ir::Node& node = context.node();
  const ir::Shape& x = context.graph.input_tensor(node, 0).shape;
  const ir::Shape& w = context.graph.input_tensor(node, 1).shape;
  Geometry g;
  g.in_channels = x.empty() ? 1 : x.back();
  switch (node.op) {
    case ir::OpType::kConv2D:
      g.out_channels = w[0];
      g.groups = node.attr<ir::ConvAttrs>().groups;
      return g;
    case ir::OpType::kDepthwiseConv2D:
      g.out_channels = w[3];
      g.depth_multiplier = w[3] / x[3];
      return g;
    default: break;
  }
  // FullyConnected: the features must be the channels, (w, c) or (h, w, c) of
  // the input seen as NHWC (fully_connected_direct.h).
  g.out_channels = w[0];
  g.in_features = w[1];
  ir::Shape x4(4 - std::min<size_t>(x.size(), 4), 1);
  x4.insert(x4.end(), x.end() - static_cast<ptrdiff_t>(std::min<size_t>(x.size(), 4)), x.end());
  const int64_t positions = g.in_channels > 0 && g.in_features % g.in_channels == 0 ? g.in_features / g.in_channels : 0;
  if (x.size() > 4 || (positions != 1 && positions != x4[2] && positions != x4[1] * x4[2])) {
    return fail_no_kernel(context, "input " + ir::format_shape(x) + " flattened to " + std::to_string(g.in_features) +
                                       " features");
  }
  return g;
}

}  // namespace

Result<std::unique_ptr<ConvConstants>> ConvConstants::prepare(const KernelCallContext& context) {
  const ir::Graph& graph = context.graph;
  const ir::Node& node = context.node();
  const ir::Tensor& x = graph.input_tensor(node, 0);
  const ir::Tensor& w = graph.input_tensor(node, 1);
  const ir::Tensor& y = graph.output_tensor(node, 0);
  if (!w.is_constant || (graph.has_input(node, 2) && !graph.input_tensor(node, 2).is_constant)) {
    return fail_no_kernel(context, "weights or bias that are not constants");
  }
  TINYFIT_ASSIGN_OR_RETURN(Geometry g, describe(context));

  // The reference's own argument bundle, so its prepare helpers run unchanged.
  const TensorData w_data = constant_data(w);
  TensorData b_data;
  reference::KernelArgs args{graph, node, {nullptr, &w_data}, {}};
  if (graph.has_input(node, 2)) {
    b_data = constant_data(graph.input_tensor(node, 2));
    args.inputs.push_back(&b_data);
  }

  auto constants = std::make_unique<ConvConstants>();
  ConvConstants& c = *constants;
  tf_conv_params& p = c.params_;
  if (x.dtype == ir::DType::kF32 && y.dtype == ir::DType::kF32) {
    c.dtype_token_ = "f32";
    c.weight_c_type_ = "float";
    TINYFIT_ASSIGN_OR_RETURN(std::vector<float> weights, reference::load_reals(args, w_data, w));
    TINYFIT_ASSIGN_OR_RETURN(c.bias_float_, reference::load_bias_reals(args, g.out_channels));
    c.weights_.assign(as_bytes(weights).begin(), as_bytes(weights).end());
    std::tie(p.float_min, p.float_max) = float_clamp(node.activation);
  } else {
    const bool qs8 = x.dtype == ir::DType::kI8 && w.dtype == ir::DType::kI8 && y.dtype == ir::DType::kI8;
    const bool qu8 = x.dtype == ir::DType::kU8 && w.dtype == ir::DType::kU8 && y.dtype == ir::DType::kU8;
    if (!qs8 && !qu8) {
      return fail_no_kernel(context, std::string(ir::dtype_name(x.dtype)) + " input, " +
                                         std::string(ir::dtype_name(w.dtype)) + " weights and " +
                                         std::string(ir::dtype_name(y.dtype)) + " output");
    }
    c.dtype_token_ = qs8 ? "qs8" : "qu8";
    c.weight_c_type_ = qs8 ? "int8_t" : "uint8_t";
    // TFLite multiplies the scales in float for fully connected and legacy
    // uint8, in double for int8 conv and depthwise (reference/kernel.h).
    const bool float_product = node.op == ir::OpType::kFullyConnected || qu8;
    TINYFIT_ASSIGN_OR_RETURN(reference::ConvQuant q, reference::prepare_conv_quant(args, g.out_channels, float_product));
    for (int32_t zp : q.weights.zero_point) {
      if (zp != q.weights.zero_point.front()) return fail_no_kernel(context, "per-channel weight zero points");
    }
    c.weights_ = w.data;
    c.bias_int_ = q.bias;
    if (node.op != ir::OpType::kDepthwiseConv2D) {
      // Row-major [Cout][...]: each output channel's weights are contiguous.
      const size_t row = c.weights_.size() / static_cast<size_t>(g.out_channels);
      for (size_t i = 0; i < c.weights_.size(); ++i) {
        if (i % row == 0) c.weight_sums_.push_back(0);
        c.weight_sums_.back() += qs8 ? static_cast<int8_t>(c.weights_[i]) : c.weights_[i];
      }
    }
    for (const reference::QuantizedMultiplier& m : q.multipliers) {
      c.multiplier_.push_back(m.multiplier);
      c.shift_.push_back(m.shift);
    }
    p.input_offset = -q.input.zero_point;
    p.weight_offset = -q.weights.zero_point.front();
    p.output_offset = q.output.zero_point;
    p.activation_min = q.range.min;
    p.activation_max = q.range.max;
  }

  if (node.op != ir::OpType::kFullyConnected) {
    const auto& a = node.attr<ir::ConvAttrs>();
    p.kernel_h = static_cast<int32_t>(a.kernel_h);
    p.kernel_w = static_cast<int32_t>(a.kernel_w);
    p.stride_h = static_cast<int32_t>(a.stride_h);
    p.stride_w = static_cast<int32_t>(a.stride_w);
    p.dilation_h = static_cast<int32_t>(a.dilation_h);
    p.dilation_w = static_cast<int32_t>(a.dilation_w);
    p.pad_top = static_cast<int32_t>(a.pad.top);
    p.pad_left = static_cast<int32_t>(a.pad.left);
  }
  p.groups = static_cast<int32_t>(g.groups);
  p.depth_multiplier = static_cast<int32_t>(g.depth_multiplier);
  p.in_channels = static_cast<int32_t>(g.in_channels);
  p.out_channels = static_cast<int32_t>(g.out_channels);
  p.in_features = static_cast<int32_t>(g.in_features);
  p.weights = c.weights_.data();
  p.bias = c.is_float() ? static_cast<const void*>(c.bias_float_.data()) : c.bias_int_.data();
  p.multiplier = c.multiplier_.empty() ? nullptr : c.multiplier_.data();
  p.shift = c.shift_.empty() ? nullptr : c.shift_.data();
  p.weight_sums = c.weight_sums_.empty() ? nullptr : c.weight_sums_.data();
  return constants;
}

std::string ConvConstants::emit(CallEmitter& emitter) const {
  const tf_conv_params& p = params_;
  const std::string null_array = "(const int32_t*)0";
  const std::string weights = emitter.define_array(weight_c_type_, "weights", weights_);
  const std::string bias = is_float() ? emitter.define_array("float", "bias", as_bytes(bias_float_))
                                      : emitter.define_array("int32_t", "bias", as_bytes(bias_int_));
  const std::string multiplier =
      multiplier_.empty() ? null_array : emitter.define_array("int32_t", "multiplier", as_bytes(multiplier_));
  const std::string shift = shift_.empty() ? null_array : emitter.define_array("int32_t", "shift", as_bytes(shift_));
  const std::string weight_sums =
      weight_sums_.empty() ? null_array : emitter.define_array("int32_t", "weight_sums", as_bytes(weight_sums_));
  auto integer = [](int32_t v) {
    return v == std::numeric_limits<int32_t>::min() ? std::string("(-2147483647 - 1)") : std::to_string(v);
  };
  return emitter.define_struct(
      "tf_conv_params", "params",
      {{"weights", weights},
       {"bias", bias},
       {"multiplier", multiplier},
       {"shift", shift},
       {"weight_sums", weight_sums},
       {"kernel_h", integer(p.kernel_h)},
       {"kernel_w", integer(p.kernel_w)},
       {"stride_h", integer(p.stride_h)},
       {"stride_w", integer(p.stride_w)},
       {"dilation_h", integer(p.dilation_h)},
       {"dilation_w", integer(p.dilation_w)},
       {"pad_top", integer(p.pad_top)},
       {"pad_left", integer(p.pad_left)},
       {"groups", integer(p.groups)},
       {"depth_multiplier", integer(p.depth_multiplier)},
       {"in_channels", integer(p.in_channels)},
       {"out_channels", integer(p.out_channels)},
       {"in_features", integer(p.in_features)},
       {"input_offset", integer(p.input_offset)},
       {"weight_offset", integer(p.weight_offset)},
       {"output_offset", integer(p.output_offset)},
       {"activation_min", integer(p.activation_min)},
       {"activation_max", integer(p.activation_max)},
       {"float_min", format_float(p.float_min)},
       {"float_max", format_float(p.float_max)}});
}

}  // namespace tinyfit::exec
