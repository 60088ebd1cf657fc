// Random one-node cases for the kernel oracle test, one maker per operator
// family. Shapes include the edges (extent 1, odd sizes, strides larger than
// the kernel, padding up to kernel - 1, groups, depthwise multipliers,
// broadcasting) and quantization parameters like real models have (per-channel
// weight scales with zero and negative entries, zero points across the range,
// fused Relu/Relu6/clamps).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

#include "support/kernel_oracle_harness.h"

namespace tinyfit::kernel_oracle {

// Uniform elements: f32 in [lo, hi]; i8/u8 over the whole range; i32 in [lo, hi].
inline exec::TensorData random_tensor(Random& r, ir::DType dtype, const ir::Shape& shape, double lo = -2,
                                      double hi = 2) {
  exec::TensorData t = exec::TensorData::zeros(dtype, shape);
  const auto n = static_cast<size_t>(t.num_elements());
  for (size_t i = 0; i < n; ++i) {
    switch (dtype) {
      case ir::DType::kF32: t.mutable_values<float>()[i] = static_cast<float>(r.uniform(lo, hi)); break;
      case ir::DType::kI8: t.mutable_values<int8_t>()[i] = static_cast<int8_t>(r.uniform_int(-128, 127)); break;
      case ir::DType::kU8: t.mutable_values<uint8_t>()[i] = static_cast<uint8_t>(r.uniform_int(0, 255)); break;
      case ir::DType::kI32:
        t.mutable_values<int32_t>()[i] =
            static_cast<int32_t>(r.uniform_int(static_cast<int64_t>(lo), static_cast<int64_t>(hi)));
        break;
      default: break;
    }
  }
  return t;
}

inline bool is_quantized(ir::DType dtype) { return dtype == ir::DType::kI8 || dtype == ir::DType::kU8; }

// Per-tensor activation parameters: scale over two decades, any zero point.
inline std::optional<ir::QuantParams> random_quant(Random& r, ir::DType dtype, double lo = 0.005,
                                                   double hi = 0.5) {
  if (!is_quantized(dtype)) return std::nullopt;
  const auto zp = static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype), ir::dtype_max(dtype)));
  return ir::QuantParams{{r.log_uniform(lo, hi)}, {zp}, 0};
}
inline std::optional<ir::QuantParams> quant_of(ir::DType dtype, float scale, int32_t zero_point) {
  if (!is_quantized(dtype)) return std::nullopt;
  return ir::QuantParams{{scale}, {zero_point}, 0};
}

// None half the time, else Relu, Relu6 or an arbitrary clamp.
inline ir::FusedActivation random_activation(Random& r) {
  ir::FusedActivation a;
  const int64_t kind = r.uniform_int(0, 5);
  if (kind == 3) a = {0.0f, std::numeric_limits<float>::infinity()};
  if (kind == 4) a = {0.0f, 6.0f};
  if (kind == 5) a = {static_cast<float>(r.uniform(-2, 0)), static_cast<float>(r.uniform(0.1, 3))};
  return a;
}

inline ir::Shape random_shape(Random& r, int min_rank, int max_rank, int64_t max_extent) {
  ir::Shape shape(static_cast<size_t>(r.uniform_int(min_rank, max_rank)));
  for (int64_t& d : shape) d = r.chance(0.2) ? 1 : r.uniform_int(1, max_extent);
  return shape;
}

inline std::string json_padding(const ir::Padding2D& p) {
  return "[" + std::to_string(p.top) + ", " + std::to_string(p.left) + ", " + std::to_string(p.bottom) + ", " +
         std::to_string(p.right) + "]";
}

// Output extent of a window: floor((in + pads - dilated kernel) / stride) + 1,
// or 0 when the dilated kernel does not fit (C++ division would truncate a
// negative numerator to 0 and claim one output).
inline int64_t window_output(int64_t in, int64_t pad_sum, int64_t kernel, int64_t stride, int64_t dilation) {
  const int64_t span = dilation * (kernel - 1) + 1;
  return in + pad_sum < span ? 0 : (in + pad_sum - span) / stride + 1;
}

// Window geometry with at least one output and padding below the kernel.
struct Window {
  int64_t in_rows, in_cols, kernel_h, kernel_w, stride_h, stride_w, dilation_h = 1, dilation_w = 1;
  ir::Padding2D pad;
  int64_t out_rows() const { return window_output(in_rows, pad.top + pad.bottom, kernel_h, stride_h, dilation_h); }
  int64_t out_cols() const { return window_output(in_cols, pad.left + pad.right, kernel_w, stride_w, dilation_w); }
};
inline Window random_window(Random& r, bool dilated) {
  Window w{};
  do {
    w.in_rows = r.uniform_int(1, 9);
    w.in_cols = r.uniform_int(1, 9);
    w.kernel_h = r.pick(std::vector<int64_t>{1, 2, 3, 3, 5});
    w.kernel_w = r.chance(0.7) ? w.kernel_h : r.uniform_int(1, 4);
    w.stride_h = r.pick(std::vector<int64_t>{1, 1, 2, 3});
    w.stride_w = r.chance(0.7) ? w.stride_h : r.uniform_int(1, 2);
    w.dilation_h = dilated && r.chance(0.2) ? 2 : 1;
    w.dilation_w = dilated && r.chance(0.2) ? 2 : 1;
    const int64_t span_h = w.dilation_h * (w.kernel_h - 1) + 1;
    const int64_t span_w = w.dilation_w * (w.kernel_w - 1) + 1;
    if (r.chance(0.6)) w.pad = {r.uniform_int(0, span_h - 1), r.uniform_int(0, span_w - 1),
                                r.uniform_int(0, span_h - 1), r.uniform_int(0, span_w - 1)};
    else w.pad = {};
  } while (w.out_rows() < 1 || w.out_cols() < 1);
  return w;
}

// --- Conv2D, DepthwiseConv2D, FullyConnected ---------------------------------

// Per-channel weight scales of an int8 model (one in ten zero, one in twenty
// negative, as quantizers leave them for dead or sign-folded channels), or one
// scale; uint8 (legacy) weights: one scale and a zero point.
inline ir::QuantParams random_weight_quant(Random& r, ir::DType dtype, int64_t channels, int32_t axis,
                                           float typical_scale) {
  ir::QuantParams q;
  q.axis = axis;
  if (dtype == ir::DType::kU8 || r.chance(0.25)) {
    q.scale = {typical_scale};
    q.zero_point = {dtype == ir::DType::kU8 ? static_cast<int32_t>(r.uniform_int(0, 255)) : 0};
    return q;
  }
  for (int64_t c = 0; c < channels; ++c) {
    float s = typical_scale * static_cast<float>(r.uniform(0.3, 3));
    if (r.chance(0.1)) s = 0.0f;
    if (r.chance(0.05)) s = -s;
    q.scale.push_back(s);
  }
  q.zero_point.assign(static_cast<size_t>(channels), 0);
  return q;
}

// The output scale that keeps a typical accumulator of `taps` products inside
// roughly a hundred quanta, times a random factor (some saturate, some do not);
// one case in ten is far finer, so the multiplier exceeds 1 and TFLite's
// left-shift path (which wraps in int32) runs too.
// Float weights, or one time in four a hybrid model's int8 weights with
// per-channel scales (the float kernels dequantize them).
inline ir::TensorId add_float_weights(Random& r, OracleCase& c, const ir::Shape& shape, int64_t channels,
                                      int32_t axis) {
  if (r.chance(0.75)) return add_constant(c, "w", random_tensor(r, ir::DType::kF32, shape, -1, 1));
  return add_constant(c, "w", random_tensor(r, ir::DType::kI8, shape),
                      random_weight_quant(r, ir::DType::kI8, channels, axis, r.log_uniform(0.002, 0.02)));
}

inline float conv_output_scale(Random& r, float in_scale, float w_scale, int64_t taps) {
  const double factor = r.chance(0.1) ? r.log_uniform(0.001, 0.5) : 70 * r.uniform(0.3, 3);
  return in_scale * w_scale * static_cast<float>(std::sqrt(static_cast<double>(taps)) * factor);
}

enum class ConvKind { kConv, kDepthwise };

inline OracleCase make_conv_case(Random& r, ir::DType dtype, ConvKind kind) {
  OracleCase c;
  const Window win = random_window(r, true);
  const int64_t batch = r.chance(0.2) ? 2 : 1;
  int64_t in_channels = 0, out_channels = 0, groups = 1, group_in = 0;
  if (kind == ConvKind::kDepthwise) {
    in_channels = r.uniform_int(1, 6);
    out_channels = in_channels * r.pick(std::vector<int64_t>{1, 1, 2, 3});
  } else {
    groups = r.pick(std::vector<int64_t>{1, 1, 1, 2, 3});
    group_in = r.uniform_int(1, 5);
    in_channels = groups * group_in;
    out_channels = groups * r.uniform_int(1, 4);
  }
  const ir::Shape x_shape{batch, win.in_rows, win.in_cols, in_channels};
  const ir::Shape w_shape = kind == ConvKind::kDepthwise
                                ? ir::Shape{1, win.kernel_h, win.kernel_w, out_channels}
                                : ir::Shape{out_channels, win.kernel_h, win.kernel_w, group_in};
  const ir::Shape y_shape{batch, win.out_rows(), win.out_cols(), out_channels};
  const int64_t taps = win.kernel_h * win.kernel_w * (kind == ConvKind::kDepthwise ? 1 : group_in);
  const bool with_bias = r.chance(0.8);

  ir::TensorId x, w, b = ir::kNoTensor, y;
  if (dtype == ir::DType::kF32) {
    x = add_input(c, "x", random_tensor(r, dtype, x_shape, -1, 1));
    w = add_float_weights(r, c, w_shape, out_channels, kind == ConvKind::kDepthwise ? 3 : 0);
    if (with_bias) b = add_constant(c, "b", random_tensor(r, dtype, {out_channels}, -1, 1));
    y = add_output(c, "y", dtype, y_shape);
  } else {
    const auto xq = random_quant(r, dtype, 0.005, 0.1);
    const float w_scale = r.log_uniform(0.001, 0.05);
    const auto wq = random_weight_quant(r, dtype, out_channels, kind == ConvKind::kDepthwise ? 3 : 0, w_scale);
    x = add_input(c, "x", random_tensor(r, dtype, x_shape), xq);
    w = add_constant(c, "w", random_tensor(r, dtype, w_shape), wq);
    if (with_bias) b = add_constant(c, "b", random_tensor(r, ir::DType::kI32, {out_channels}, -30000, 30000));
    const float y_scale = conv_output_scale(r, xq->scale[0], w_scale, taps);
    y = add_output(c, "y", dtype, y_shape,
                   quant_of(dtype, y_scale, static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype), ir::dtype_max(dtype)))));
  }
  ir::ConvAttrs a;
  a.kernel_h = win.kernel_h;
  a.kernel_w = win.kernel_w;
  a.stride_h = win.stride_h;
  a.stride_w = win.stride_w;
  a.dilation_h = win.dilation_h;
  a.dilation_w = win.dilation_w;
  a.pad = win.pad;
  a.groups = groups;
  set_node(c, kind == ConvKind::kDepthwise ? ir::OpType::kDepthwiseConv2D : ir::OpType::kConv2D,
           {x, w, b}, {y}, a, random_activation(r));
  c.attrs_json = "{\"kernel\": [" + std::to_string(a.kernel_h) + ", " + std::to_string(a.kernel_w) +
                 "], \"stride\": [" + std::to_string(a.stride_h) + ", " + std::to_string(a.stride_w) +
                 "], \"dilation\": [" + std::to_string(a.dilation_h) + ", " + std::to_string(a.dilation_w) +
                 "], \"pad\": " + json_padding(a.pad) + ", \"groups\": " + std::to_string(groups) + "}";
  return c;
}

inline OracleCase make_fully_connected_case(Random& r, ir::DType dtype) {
  OracleCase c;
  const int64_t batch = r.uniform_int(1, 4);
  const int64_t in_features = r.chance(0.1) ? 1 : r.uniform_int(1, 48);
  const int64_t out_features = r.uniform_int(1, 20);
  // A rank-4 input is flattened ([B,1,1,In], as after a global pool).
  const ir::Shape x_shape = r.chance(0.3) ? ir::Shape{batch, 1, 1, in_features} : ir::Shape{batch, in_features};
  const ir::Shape w_shape{out_features, in_features};
  const bool with_bias = r.chance(0.8);
  ir::TensorId x, w, b = ir::kNoTensor, y;
  if (dtype == ir::DType::kF32) {
    x = add_input(c, "x", random_tensor(r, dtype, x_shape, -1, 1));
    w = add_float_weights(r, c, w_shape, out_features, 0);
    if (with_bias) b = add_constant(c, "b", random_tensor(r, dtype, {out_features}, -1, 1));
    y = add_output(c, "y", dtype, {batch, out_features});
  } else {
    const auto xq = random_quant(r, dtype, 0.005, 0.1);
    const float w_scale = r.log_uniform(0.001, 0.05);
    x = add_input(c, "x", random_tensor(r, dtype, x_shape), xq);
    w = add_constant(c, "w", random_tensor(r, dtype, w_shape), random_weight_quant(r, dtype, out_features, 0, w_scale));
    if (with_bias) b = add_constant(c, "b", random_tensor(r, ir::DType::kI32, {out_features}, -30000, 30000));
    y = add_output(c, "y", dtype, {batch, out_features},
                   quant_of(dtype, conv_output_scale(r, xq->scale[0], w_scale, in_features),
                            static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype), ir::dtype_max(dtype)))));
  }
  set_node(c, ir::OpType::kFullyConnected, {x, w, b}, {y}, {}, random_activation(r));
  return c;
}

// --- Elementwise -------------------------------------------------------------

// An input shape that broadcasts to `out`: some extents set to 1, some leading
// axes dropped.
inline ir::Shape random_broadcast_of(Random& r, const ir::Shape& out) {
  if (r.chance(0.4)) return out;
  ir::Shape in(out.begin() + r.uniform_int(0, static_cast<int64_t>(out.size()) - 1), out.end());
  for (int64_t& d : in) {
    if (r.chance(0.4)) d = 1;
  }
  return in;
}

inline OracleCase make_binary_case(Random& r, ir::DType dtype, ir::OpType op) {
  OracleCase c;
  const ir::Shape out = random_shape(r, 1, 4, 6);
  ir::Shape a_shape = random_broadcast_of(r, out), b_shape = random_broadcast_of(r, out);
  if (r.chance(0.5)) std::swap(a_shape, b_shape);
  // The output takes the broadcast of both (an input may be the full shape).
  ir::Shape y_shape = out;
  for (size_t k = 0; k < out.size(); ++k) {
    const auto extent = [&](const ir::Shape& s) {
      return k < s.size() ? s[s.size() - 1 - k] : 1;
    };
    y_shape[out.size() - 1 - k] = std::max(extent(a_shape), extent(b_shape));
  }
  const auto qa = random_quant(r, dtype, 0.01, 0.2), qb = random_quant(r, dtype, 0.01, 0.2);
  std::optional<ir::QuantParams> qy;
  if (qa) {
    const float scale = op == ir::OpType::kMul
                            ? qa->scale[0] * qb->scale[0] * static_cast<float>(r.uniform(20, 300))
                            : std::max(qa->scale[0], qb->scale[0]) * static_cast<float>(r.uniform(0.5, 3));
    qy = quant_of(dtype, scale, static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype), ir::dtype_max(dtype))));
  }
  const auto a = add_input(c, "a", random_tensor(r, dtype, a_shape, -4, 4), qa);
  const auto b = add_input(c, "b", random_tensor(r, dtype, b_shape, -4, 4), qb);
  const auto y = add_output(c, "y", dtype, y_shape, qy);
  set_node(c, op, {a, b}, {y}, {}, random_activation(r));
  return c;
}

// Add / Sub of two [1, 2, 3, channels] activations for the fast loops' edges
// (runs around their four elements per word, flattened or per channel
// chunk): equal scales (both inputs scaled exactly), a the larger (b
// rescaled), or b the larger, over the full value range, any activation.
inline OracleCase make_add_edge_case(Random& r, ir::DType dtype, ir::OpType op, int64_t channels) {
  OracleCase c;
  const ir::Shape shape = {1, 2, 3, channels};
  const float large = static_cast<float>(r.log_uniform(0.01, 0.2));
  const int64_t kind = r.uniform_int(0, 2);
  const float small = kind == 0 ? large : large * static_cast<float>(r.uniform(0.05, 0.95));
  const auto zero_point = [&] { return static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype), ir::dtype_max(dtype))); };
  const auto qa = quant_of(dtype, kind == 2 ? small : large, zero_point());
  const auto qb = quant_of(dtype, kind == 2 ? large : small, zero_point());
  const auto qy = quant_of(dtype, large * static_cast<float>(r.uniform(0.5, 3)), zero_point());
  const auto a = add_input(c, "a", random_tensor(r, dtype, shape), qa);
  const auto b = add_input(c, "b", random_tensor(r, dtype, shape), qb);
  const auto y = add_output(c, "y", dtype, shape, qy);
  set_node(c, op, {a, b}, {y}, {}, random_activation(r));
  return c;
}

inline OracleCase make_clip_case(Random& r, ir::DType dtype) {
  OracleCase c;
  const ir::Shape shape = random_shape(r, 1, 4, 7);
  const auto qx = random_quant(r, dtype, 0.01, 0.2);
  // TFLite's RELU keeps the parameters; a requantizing clip must work too.
  const auto qy = qx && r.chance(0.6) ? qx : random_quant(r, dtype, 0.01, 0.2);
  ir::ClipAttrs a;
  const float inf = std::numeric_limits<float>::infinity();
  switch (r.uniform_int(0, 3)) {
    case 0: a = {0.0f, inf}; break;   // Relu
    case 1: a = {0.0f, 6.0f}; break;  // Relu6
    case 2: a = {-1.0f, 1.0f}; break;
    default: a = {static_cast<float>(r.uniform(-3, 0)), static_cast<float>(r.uniform(0, 3))}; break;
  }
  const auto x = add_input(c, "x", random_tensor(r, dtype, shape, -8, 8), qx);
  const auto y = add_output(c, "y", dtype, shape, qy);
  set_node(c, ir::OpType::kClip, {x}, {y}, a, r.chance(0.2) ? random_activation(r) : ir::FusedActivation{});
  c.attrs_json = "{\"min\": " + json_number(a.min) + ", \"max\": " + json_number(a.max) + "}";
  return c;
}

// Sigmoid and Softmax: TFLite fixes the output to scale 1/256 at the dtype's
// minimum; HardSwish output scale comparable to its input's.
inline OracleCase make_unary_case(Random& r, ir::DType dtype, ir::OpType op) {
  OracleCase c;
  const ir::Shape shape = random_shape(r, 1, 4, 7);
  const auto qx = random_quant(r, dtype, 0.01, 0.3);
  std::optional<ir::QuantParams> qy;
  if (qx && op == ir::OpType::kHardSwish) {
    qy = quant_of(dtype, qx->scale[0] * static_cast<float>(r.uniform(0.3, 1.5)),
                  static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype), ir::dtype_min(dtype) + 150)));
  } else if (qx) {
    qy = quant_of(dtype, 1.0f / 256, ir::dtype_min(dtype));
  }
  const auto x = add_input(c, "x", random_tensor(r, dtype, shape, -8, 8), qx);
  const auto y = add_output(c, "y", dtype, shape, qy);
  ir::OpAttrs attrs;
  if (op == ir::OpType::kSoftmax) {
    const int axis = r.chance(0.7) ? static_cast<int>(shape.size()) - 1
                                   : static_cast<int>(r.uniform_int(0, static_cast<int64_t>(shape.size()) - 1));
    const float beta = r.chance(0.6) ? 1.0f : static_cast<float>(r.uniform(0.3, 2));
    attrs = ir::SoftmaxAttrs{axis, beta};
    c.attrs_json = "{\"axis\": " + std::to_string(axis) + ", \"beta\": " + json_number(beta) + "}";
  }
  // TFLite's softmax has no fused activation; the float sigmoid / hard swish do.
  const ir::FusedActivation act =
      dtype == ir::DType::kF32 && op != ir::OpType::kSoftmax && r.chance(0.2) ? random_activation(r)
                                                                              : ir::FusedActivation{};
  set_node(c, op, {x}, {y}, attrs, act);
  return c;
}

inline OracleCase make_lrn_case(Random& r) {
  OracleCase c;
  const ir::Shape shape{1, r.uniform_int(1, 4), r.uniform_int(1, 4), r.uniform_int(1, 12)};
  ir::LrnAttrs a;
  a.size = r.pick(std::vector<int64_t>{1, 2, 3, 5});
  a.alpha = static_cast<float>(r.log_uniform(1e-4, 0.5));
  a.beta = static_cast<float>(r.uniform(0.5, 1));
  a.bias = static_cast<float>(r.uniform(1, 2));
  const auto x = add_input(c, "x", random_tensor(r, ir::DType::kF32, shape, -3, 3));
  const auto y = add_output(c, "y", ir::DType::kF32, shape);
  set_node(c, ir::OpType::kLrn, {x}, {y}, a);
  c.attrs_json = "{\"size\": " + std::to_string(a.size) + ", \"alpha\": " + json_number(a.alpha) +
                 ", \"beta\": " + json_number(a.beta) + ", \"bias\": " + json_number(a.bias) + "}";
  return c;
}

}  // namespace tinyfit::kernel_oracle
