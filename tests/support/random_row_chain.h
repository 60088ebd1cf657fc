// Seeded random chains for row-loop tests (plan/lower_row_loop.h): Conv2D
// with random kernel, stride, dilation and asymmetric padding, depthwise
// convolutions (channel multiplier 1 or 2), max and average pools, and
// residual Adds, int8 or float32, with the quantisation real models have
// (kernel_oracle_cases.h). Each operator reads the newest tensor, so every
// operator but the last feeds a later one and any consecutive run can be one
// row loop; an Add also reads an older tensor of the same shape (a residual
// that crosses the run, or starts before it). With squeeze_excite, three
// operators in ten are squeeze-excite blocks as MCUNetV2-SE-Large has them: a Mean
// over the columns, a Mean over the rows, two 1x1 convolutions on the
// channel vector and a broadcast Mul of the block's input by it. With slices,
// the pools' share goes half to Slices of the rows and columns (a begin of
// 0-2, a step of 1-2, an end short of the extent: NASNet's factorized-reduce
// shift and strided crops).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "support/kernel_oracle_cases.h"

namespace tinyfit::row_chain {

using kernel_oracle::OracleCase;
using kernel_oracle::Random;

struct ChainSpec {
  uint64_t seed = 0;
  ir::DType dtype = ir::DType::kI8;
  int operators = 5;
  int64_t rows = 12;
  int64_t cols = 4;
  int64_t max_channels = 5;
  bool squeeze_excite = false;
  bool slices = false;
  // Ends with a global average or max pool over the last tensor (a row loop
  // through it accumulates it: partition::accumulates_rows).
  bool global_pool = false;
};

struct Activation {
  ir::TensorId tensor;
  ir::Shape shape;
};

// A window over `in` (rows or cols) that leaves at least one output: half the
// time "same" (stride 1, padding (span - 1) / 2 each side, odd span), else
// kernel 1-5, stride 1-3, dilation 2 one time in five, padding below the
// dilated kernel on each side independently.
struct AxisWindow {
  int64_t kernel = 1, stride = 1, dilation = 1, pad_before = 0, pad_after = 0;
};
inline AxisWindow make_axis_window(Random& r, int64_t in, bool allow_stride) {
  while (true) {
    AxisWindow w;
    w.kernel = r.pick(std::vector<int64_t>{1, 2, 3, 3, 5});
    w.dilation = r.chance(0.2) ? 2 : 1;
    const int64_t span = w.dilation * (w.kernel - 1) + 1;
    if (r.chance(0.5) && span % 2 == 1) {
      w.pad_before = w.pad_after = (span - 1) / 2;
    } else {
      w.stride = allow_stride ? r.pick(std::vector<int64_t>{1, 1, 2, 3}) : 1;
      w.pad_before = r.uniform_int(0, span - 1);
      w.pad_after = r.uniform_int(0, span - 1);
    }
    if (kernel_oracle::window_output(in, w.pad_before + w.pad_after, w.kernel, w.stride, w.dilation) >= 1) return w;
  }
}

inline ir::TensorId add_activation(Random& r, OracleCase& c, const std::string& name, ir::DType dtype,
                                   const ir::Shape& shape, float scale) {
  if (!kernel_oracle::is_quantized(dtype)) return kernel_oracle::add_tensor(c, name, dtype, shape, std::nullopt);
  const auto zero_point = static_cast<int32_t>(r.uniform_int(ir::dtype_min(dtype) / 2, ir::dtype_max(dtype) / 2));
  return kernel_oracle::add_tensor(c, name, dtype, shape, kernel_oracle::quant_of(dtype, scale, zero_point));
}

inline float scale_of(const ir::Graph& g, ir::TensorId t) {
  const auto& q = g.tensor(t).quant;
  return q ? q->scale[0] : 1.0f;
}

// A Conv2D (or depthwise, channel multiplier out_channels / in channels) of
// the given window over x, random weights, bias and fused activation.
inline Activation add_conv_node(Random& r, OracleCase& c, ir::DType dtype, const Activation& x, const ir::ConvAttrs& a,
                                int64_t out_channels, bool depthwise, const std::string& name) {
  const ir::Shape y_shape{1,
                          kernel_oracle::window_output(x.shape[1], a.pad.top + a.pad.bottom, a.kernel_h, a.stride_h,
                                                       a.dilation_h),
                          kernel_oracle::window_output(x.shape[2], a.pad.left + a.pad.right, a.kernel_w, a.stride_w,
                                                       a.dilation_w),
                          out_channels};
  const int64_t in_channels = x.shape[3];
  const ir::Shape w_shape = depthwise ? ir::Shape{1, a.kernel_h, a.kernel_w, out_channels}
                                      : ir::Shape{out_channels, a.kernel_h, a.kernel_w, in_channels};
  ir::TensorId w, b;
  float y_scale = 1.0f;
  if (dtype == ir::DType::kF32) {
    w = kernel_oracle::add_constant(c, name + "/w", kernel_oracle::random_tensor(r, dtype, w_shape, -0.5, 0.5));
    b = kernel_oracle::add_constant(c, name + "/b", kernel_oracle::random_tensor(r, dtype, {out_channels}, -0.5, 0.5));
  } else {
    const float w_scale = r.log_uniform(0.005, 0.05);
    w = kernel_oracle::add_constant(c, name + "/w", kernel_oracle::random_tensor(r, dtype, w_shape),
                                    kernel_oracle::random_weight_quant(r, dtype, out_channels, depthwise ? 3 : 0,
                                                                       w_scale));
    b = kernel_oracle::add_constant(c, name + "/b",
                                    kernel_oracle::random_tensor(r, ir::DType::kI32, {out_channels}, -3000, 3000));
    const int64_t taps = a.kernel_h * a.kernel_w * (depthwise ? 1 : in_channels);
    y_scale = kernel_oracle::conv_output_scale(r, scale_of(c.graph, x.tensor), w_scale, taps);
  }
  const ir::TensorId y = add_activation(r, c, name + "/y", dtype, y_shape, y_scale);
  kernel_oracle::set_node(c, depthwise ? ir::OpType::kDepthwiseConv2D : ir::OpType::kConv2D, {x.tensor, w, b}, {y},
                          a, kernel_oracle::random_activation(r));
  c.graph.nodes.back().name = name;
  return {y, y_shape};
}

inline Activation add_conv(Random& r, OracleCase& c, const ChainSpec& spec, const Activation& x, bool depthwise,
                           int index) {
  const AxisWindow rows = make_axis_window(r, x.shape[1], x.shape[1] >= 3);
  const AxisWindow cols = r.chance(0.7) ? rows : make_axis_window(r, x.shape[2], false);
  if (kernel_oracle::window_output(x.shape[2], cols.pad_before + cols.pad_after, cols.kernel, cols.stride,
                                   cols.dilation) < 1) {
    return add_conv(r, c, spec, x, depthwise, index);  // the rows' window does not fit the cols
  }
  const int64_t in_channels = x.shape[3];
  const int64_t out_channels = depthwise ? in_channels * r.pick(std::vector<int64_t>{1, 1, 2})
                                         : r.uniform_int(1, spec.max_channels);
  ir::ConvAttrs a;
  a.kernel_h = rows.kernel;
  a.kernel_w = cols.kernel;
  a.stride_h = rows.stride;
  a.stride_w = cols.stride;
  a.dilation_h = rows.dilation;
  a.dilation_w = cols.dilation;
  a.pad = {rows.pad_before, cols.pad_before, rows.pad_after, cols.pad_after};
  return add_conv_node(r, c, spec.dtype, x, a, out_channels, depthwise,
                       (depthwise ? "dw" : "conv") + std::to_string(index));
}

// A max or average pool of the given window over x.
inline Activation add_pool_node(OracleCase& c, ir::DType dtype, const Activation& x, const ir::PoolAttrs& a,
                                bool average, const std::string& name) {
  const ir::Shape y_shape{1, kernel_oracle::window_output(x.shape[1], a.pad.top + a.pad.bottom, a.kernel_h, a.stride_h, 1),
                          kernel_oracle::window_output(x.shape[2], a.pad.left + a.pad.right, a.kernel_w, a.stride_w, 1),
                          x.shape[3]};
  // TFLite pooling keeps the input's quantization.
  const ir::TensorId y = kernel_oracle::add_tensor(c, name + "/y", dtype, y_shape, c.graph.tensor(x.tensor).quant);
  kernel_oracle::set_node(c, average ? ir::OpType::kAveragePool : ir::OpType::kMaxPool, {x.tensor}, {y}, a);
  c.graph.nodes.back().name = name;
  return {y, y_shape};
}

inline Activation add_pool(Random& r, OracleCase& c, const ChainSpec& spec, const Activation& x, int index) {
  ir::PoolAttrs a;
  do {
    a.kernel_h = a.kernel_w = r.uniform_int(1, 3);
    a.stride_h = a.stride_w = x.shape[1] >= 3 && r.chance(0.4) ? 2 : 1;
    a.pad = {r.uniform_int(0, a.kernel_h - 1), r.uniform_int(0, a.kernel_w - 1), r.uniform_int(0, a.kernel_h - 1),
             r.uniform_int(0, a.kernel_w - 1)};
  } while (kernel_oracle::window_output(x.shape[1], a.pad.top + a.pad.bottom, a.kernel_h, a.stride_h, 1) < 1 ||
           kernel_oracle::window_output(x.shape[2], a.pad.left + a.pad.right, a.kernel_w, a.stride_w, 1) < 1);
  const bool average = r.chance(0.5);
  return add_pool_node(c, spec.dtype, x, a, average, (average ? "avgpool" : "maxpool") + std::to_string(index));
}

inline Activation add_residual(Random& r, OracleCase& c, const ChainSpec& spec, const Activation& x,
                               const Activation& older, int index) {
  const std::string name = "add" + std::to_string(index);
  const float scale = std::max(scale_of(c.graph, x.tensor), scale_of(c.graph, older.tensor)) *
                      static_cast<float>(r.uniform(1.0, 2.5));
  const ir::TensorId y = add_activation(r, c, name + "/y", spec.dtype, x.shape, scale);
  kernel_oracle::set_node(c, ir::OpType::kAdd, {x.tensor, older.tensor}, {y}, {},
                          kernel_oracle::random_activation(r));
  c.graph.nodes.back().name = name;
  return {y, x.shape};
}

// A Slice of x's rows and columns (every channel): begin 0-2, step 1-2, end
// up to two short of the extent, at least one row and column left.
inline Activation add_slice(Random& r, OracleCase& c, const Activation& x, int index) {
  ir::SliceAttrs a{{0, 0, 0, 0}, {x.shape[0], x.shape[1], x.shape[2], x.shape[3]}, {1, 1, 1, 1}};
  ir::Shape y_shape = x.shape;
  for (size_t axis : {size_t{1}, size_t{2}}) {
    const int64_t extent = x.shape[axis];
    a.begin[axis] = r.uniform_int(0, std::min<int64_t>(2, extent - 1));
    a.end[axis] = r.uniform_int(std::max(a.begin[axis] + 1, extent - 2), extent);
    a.step[axis] = r.pick(std::vector<int64_t>{1, 1, 2});
    y_shape[axis] = (a.end[axis] - a.begin[axis] + a.step[axis] - 1) / a.step[axis];
  }
  const std::string name = "slice" + std::to_string(index);
  const ir::TensorId y = kernel_oracle::add_tensor(c, name + "/y", c.graph.tensor(x.tensor).dtype, y_shape,
                                                   c.graph.tensor(x.tensor).quant);
  kernel_oracle::set_node(c, ir::OpType::kSlice, {x.tensor}, {y}, a);
  c.graph.nodes.back().name = name;
  return {y, y_shape};
}

// A squeeze-excite block over x (five operators; its Mul's output has x's shape).
inline Activation add_squeeze_excite(Random& r, OracleCase& c, const ChainSpec& spec, const Activation& x, int index) {
  const std::string name = "se" + std::to_string(index);
  Activation mean = x;
  for (int axis : {2, 1}) {  // the columns, then the rows
    ir::ReduceAttrs a;
    a.axes = {axis};
    const std::string mean_name = name + "/mean" + std::to_string(axis);
    const ir::TensorId from = mean.tensor;
    mean.shape[static_cast<size_t>(axis)] = 1;
    mean.tensor = add_activation(r, c, mean_name + "/y", spec.dtype, mean.shape,
                                 scale_of(c.graph, from) * static_cast<float>(r.uniform(0.5, 1.5)));
    kernel_oracle::set_node(c, ir::OpType::kMean, {from}, {mean.tensor}, a);
    c.graph.nodes.back().name = mean_name;
  }
  ir::ConvAttrs one;  // 1x1, stride 1, no padding
  const Activation squeezed =
      add_conv_node(r, c, spec.dtype, mean, one, r.uniform_int(1, spec.max_channels), false, name + "/reduce");
  const Activation excite = add_conv_node(r, c, spec.dtype, squeezed, one, x.shape[3], false, name + "/expand");
  const std::string mul = name + "/mul";
  const float scale = scale_of(c.graph, x.tensor) * scale_of(c.graph, excite.tensor) *
                      static_cast<float>(r.uniform(20, 300));
  const ir::TensorId y = add_activation(r, c, mul + "/y", spec.dtype, x.shape, scale);
  kernel_oracle::set_node(c, ir::OpType::kMul, {x.tensor, excite.tensor}, {y});
  c.graph.nodes.back().name = mul;
  return {y, x.shape};
}

// A chain of spec.operators operators (and the global pool); its last tensor
// is the graph's output.
inline OracleCase make_random_row_chain(const ChainSpec& spec) {
  Random r(spec.seed);
  OracleCase c;
  c.graph.name = "row-chain";
  c.graph.source_path = "row-chain";
  const ir::Shape x_shape{1, spec.rows, spec.cols, r.uniform_int(1, spec.max_channels)};
  const ir::TensorId x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, spec.dtype, x_shape, -1, 1),
                                                  kernel_oracle::random_quant(r, spec.dtype, 0.01, 0.1));
  std::vector<Activation> made{{x, x_shape}};
  for (int i = 0; i < spec.operators; ++i) {
    const Activation newest = made.back();
    const Activation* older = nullptr;
    for (size_t k = 0; k + 1 < made.size(); ++k) {
      if (made[k].shape == newest.shape) older = &made[k];
    }
    const int64_t kind = r.uniform_int(0, 9);
    if (spec.squeeze_excite && kind >= 5 && kind <= 7) {
      made.push_back(add_squeeze_excite(r, c, spec, newest, i));
    } else if (older != nullptr && kind >= 8) {
      made.push_back(add_residual(r, c, spec, newest, *older, i));
    } else if (kind <= 3) {
      made.push_back(add_conv(r, c, spec, newest, false, i));
    } else if (kind <= 5) {
      made.push_back(add_conv(r, c, spec, newest, true, i));
    } else if (spec.slices && kind % 2 == 0) {
      made.push_back(add_slice(r, c, newest, i));
    } else {
      made.push_back(add_pool(r, c, spec, newest, i));
    }
  }
  if (spec.global_pool) {
    const Activation& last = made.back();
    ir::PoolAttrs a;
    a.kernel_h = last.shape[1];
    a.kernel_w = last.shape[2];
    const bool average = r.chance(0.7);
    made.push_back(add_pool_node(c, spec.dtype, last, a, average, average ? "global_avgpool" : "global_maxpool"));
  }
  c.graph.outputs.push_back(made.back().tensor);
  return c;
}

}  // namespace tinyfit::row_chain
