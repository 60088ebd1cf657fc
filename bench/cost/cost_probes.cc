#include "cost_probes.h"

#include <functional>
#include <limits>
#include <set>

#include "checked_model.h"
#include "exec/add_kernel_workspaces.h"
#include "exec/plan_work.h"
#include "exec/wide_weights.h"
#include "plan/plan_memory.h"
#include "support/kernel_oracle_reduce_move_cases.h"
#include "support/kernel_oracle_transformer_cases.h"
#include "analysis/memory_profile.h"
#include "partition/partition_scheme.h"
#include "plan/lower_row_loop.h"
#include "plan/verify_plan.h"
#include "support/overlap_plans.h"
#include "support/random_row_chain.h"

namespace tinyfit::bench {
namespace {

using ir::DType;
using ir::OpType;
using kernel_oracle::OracleCase;
using kernel_oracle::Random;

constexpr DType kDtypes[] = {DType::kI8, DType::kU8, DType::kF32};

std::string dtype_suffix(DType dtype) { return std::string(ir::dtype_name(dtype)); }

// --- Model-sized one-node graphs -----------------------------------------------

// Extents drawn from what the CI models have (MLPerf Tiny, MCUNet, MobileNetV2):
// kernels 1, 3, 5, 7 with "same" or no padding, strides 1 and 2, channel
// counts off and on the kernels' blocks of four.
// Square windows mostly; one in four is tall and narrow (keyword spotting's
// 10x4 over a spectrogram) when `rectangular`.
struct SizedWindow {
  int64_t rows, cols, kernel_h, kernel_w, stride, pad_top, pad_left, pad_bottom, pad_right;
  int64_t out_rows() const { return (rows + pad_top + pad_bottom - kernel_h) / stride + 1; }
  int64_t out_cols() const { return (cols + pad_left + pad_right - kernel_w) / stride + 1; }
};

SizedWindow random_sized_window(Random& r, int64_t max_extent, bool rectangular) {
  SizedWindow w{};
  do {
    w.rows = r.uniform_int(1, max_extent);
    w.cols = r.chance(0.7) ? w.rows : r.uniform_int(1, max_extent);
    w.kernel_h = w.kernel_w = r.pick(std::vector<int64_t>{1, 1, 3, 3, 3, 5, 7});
    if (rectangular && r.chance(0.25)) {
      w.kernel_h = r.uniform_int(1, 10);
      w.kernel_w = r.uniform_int(1, 5);
    }
    w.stride = r.pick(std::vector<int64_t>{1, 1, 2});
    const bool same = r.chance(0.75);
    w.pad_top = same ? (w.kernel_h - 1) / 2 : 0;
    w.pad_bottom = same ? w.kernel_h - 1 - w.pad_top : 0;
    w.pad_left = same ? (w.kernel_w - 1) / 2 : 0;
    w.pad_right = same ? w.kernel_w - 1 - w.pad_left : 0;
  } while (w.rows + w.pad_top + w.pad_bottom < w.kernel_h || w.cols + w.pad_left + w.pad_right < w.kernel_w);
  return w;
}

int64_t random_channels(Random& r) {
  return r.pick(std::vector<int64_t>{1, 1, 2, 3, 4, 6, 8, 12, 16, 16, 24, 32, 48, 64, 64, 96});
}

ir::ConvAttrs conv_attrs(const SizedWindow& w) {
  ir::ConvAttrs a;
  a.kernel_h = w.kernel_h;
  a.kernel_w = w.kernel_w;
  a.stride_h = a.stride_w = w.stride;
  a.pad = {w.pad_top, w.pad_left, w.pad_bottom, w.pad_right};
  return a;
}

// Weights, bias and output parameters as a quantizer leaves them.
void add_conv_node(OracleCase& c, Random& r, DType dtype, OpType op, ir::TensorId x, const ir::Shape& w_shape,
                   const ir::Shape& y_shape, int64_t out_channels, int64_t taps, ir::OpAttrs attrs) {
  const int32_t weight_axis = op == OpType::kDepthwiseConv2D ? 3 : 0;
  ir::TensorId w, b, y;
  if (dtype == DType::kF32) {
    w = kernel_oracle::add_constant(c, "w", kernel_oracle::random_tensor(r, dtype, w_shape, -1, 1));
    b = kernel_oracle::add_constant(c, "b", kernel_oracle::random_tensor(r, dtype, {out_channels}, -1, 1));
    y = kernel_oracle::add_output(c, "y", dtype, y_shape);
  } else {
    const float x_scale = c.graph.tensor(x).quant->scale[0];
    const float w_scale = r.log_uniform(0.002, 0.02);
    w = kernel_oracle::add_constant(c, "w", kernel_oracle::random_tensor(r, dtype, w_shape),
                                    kernel_oracle::random_weight_quant(r, dtype, out_channels, weight_axis, w_scale));
    b = kernel_oracle::add_constant(
        c, "b", kernel_oracle::random_tensor(r, DType::kI32, {out_channels}, -3000, 3000));
    y = kernel_oracle::add_output(
        c, "y", dtype, y_shape,
        kernel_oracle::quant_of(dtype, kernel_oracle::conv_output_scale(r, x_scale, w_scale, taps),
                                dtype == DType::kI8 ? -128 : 0));
  }
  const ir::FusedActivation relu6{0.0f, 6.0f};
  kernel_oracle::set_node(c, op, {x, w, b}, {y}, std::move(attrs), r.chance(0.6) ? relu6 : ir::FusedActivation{});
}

ir::TensorId add_sized_input(OracleCase& c, Random& r, DType dtype, const ir::Shape& shape) {
  return kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, shape, -1, 1),
                                  kernel_oracle::random_quant(r, dtype, 0.01, 0.05));
}

OracleCase make_sized_conv(Random& r, DType dtype) {
  OracleCase c;
  SizedWindow w;
  int64_t in_channels, out_channels;
  do {  // at most ~1.5 M MACs: a second of QEMU time
    w = random_sized_window(r, 24, true);
    in_channels = random_channels(r);
    out_channels = random_channels(r);
  } while (w.out_rows() * w.out_cols() * out_channels * w.kernel_h * w.kernel_w * in_channels > 1500000);
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, w.rows, w.cols, in_channels});
  add_conv_node(c, r, dtype, OpType::kConv2D, x, {out_channels, w.kernel_h, w.kernel_w, in_channels},
                {1, w.out_rows(), w.out_cols(), out_channels}, out_channels, w.kernel_h * w.kernel_w * in_channels,
                conv_attrs(w));
  return c;
}

// The first layer of an RGB network (a 3x3 Conv2D over three channels,
// stride 1 or 2, "same" padding as TFLite or ONNX puts it), at input sizes
// up to MobileNetV2's 224x224 (at most 12 M MACs): partial execution's
// one-channel chunks of it take the window kernel's four-pixel path
// (conv2d_window_dsp.h window_dsp_channel9), which random channel counts
// seldom reach.
OracleCase make_sized_rgb_stem(Random& r, DType dtype) {
  OracleCase c;
  SizedWindow w;
  int64_t out_channels;
  do {
    w.rows = r.uniform_int(4, 224);
    w.cols = r.chance(0.7) ? w.rows : r.uniform_int(4, 224);
    w.kernel_h = w.kernel_w = 3;
    w.stride = r.pick(std::vector<int64_t>{1, 2, 2});
    const bool same = r.chance(0.85);
    w.pad_top = same ? (w.stride == 2 ? r.uniform_int(0, 1) : 1) : 0;
    w.pad_left = w.pad_top;
    w.pad_bottom = w.pad_right = same ? 1 : 0;
    out_channels = r.pick(std::vector<int64_t>{3, 4, 8, 8, 12, 16, 16, 24, 32});
  } while (w.out_rows() * w.out_cols() * out_channels * 27 > 12000000);
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, w.rows, w.cols, 3});
  add_conv_node(c, r, dtype, OpType::kConv2D, x, {out_channels, 3, 3, 3}, {1, w.out_rows(), w.out_cols(), out_channels},
                out_channels, 27, conv_attrs(w));
  return c;
}

// A 1x1 stride-1 Conv2D over feature maps of 4-112 rows and 8-960 channels
// (at most 12 M MACs): the expansions and projections of MobileNetV2 and
// MCUNet blocks (e.g. MCUNet-320KB's 44x44x16 -> 80, MobileNetV2's 7x7x160 ->
// 960), the dense pointwise path of the im2col kernels, which
// make_sized_conv's maps of at most 24 rows and 1.5 M MACs leave to
// extrapolation.
OracleCase make_sized_pointwise(Random& r, DType dtype) {
  OracleCase c;
  SizedWindow w{};
  int64_t in_channels, out_channels;
  do {
    w.rows = r.uniform_int(4, 112);
    w.cols = r.chance(0.8) ? w.rows : r.uniform_int(4, 112);
    w.kernel_h = w.kernel_w = w.stride = 1;
    // Half of them narrow (the projections of width-0.35 nets: 8-24 channels
    // a pixel, where a group's set-up and stores outweigh its dot products).
    const bool narrow = r.chance(0.5);
    in_channels = narrow ? r.pick(std::vector<int64_t>{8, 12, 16, 24})
                         : r.pick(std::vector<int64_t>{8, 16, 24, 32, 40, 48, 64, 80, 96, 144, 160, 192, 320, 384, 576});
    out_channels = narrow ? r.pick(std::vector<int64_t>{4, 6, 8, 12, 16, 24})
                          : r.pick(std::vector<int64_t>{8, 16, 24, 32, 40, 48, 64, 80, 96, 144, 160, 192, 320, 576, 960});
  } while (w.rows * w.cols * in_channels * out_channels > 12000000);
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, w.rows, w.cols, in_channels});
  add_conv_node(c, r, dtype, OpType::kConv2D, x, {out_channels, 1, 1, in_channels}, {1, w.rows, w.cols, out_channels},
                out_channels, in_channels, conv_attrs(w));
  return c;
}

OracleCase make_sized_depthwise(Random& r, DType dtype) {
  OracleCase c;
  const SizedWindow w = random_sized_window(r, 32, false);
  const int64_t channels = random_channels(r) * (r.chance(0.5) ? 2 : 1);
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, w.rows, w.cols, channels});
  add_conv_node(c, r, dtype, OpType::kDepthwiseConv2D, x, {1, w.kernel_h, w.kernel_w, channels},
                {1, w.out_rows(), w.out_cols(), channels}, channels, w.kernel_h * w.kernel_w, conv_attrs(w));
  return c;
}

// A 3x3 stride-1 depthwise over rows of 16-96 pixels: the extents where the
// planar kernel (dwconv2d_planar_dsp.h, rows of at least 16 output pixels)
// runs in the CI models (vww_96's 48x48x8 and 24x24x32), which
// make_sized_depthwise's windows of at most 32 leave to extrapolation.
OracleCase make_sized_planar_depthwise(Random& r, DType dtype) {
  OracleCase c;
  SizedWindow w;
  int64_t channels;
  do {
    w.rows = r.uniform_int(4, 96);
    w.cols = r.chance(0.7) ? std::max<int64_t>(w.rows, 16) : r.uniform_int(16, 96);
    w.kernel_h = w.kernel_w = 3;
    w.stride = 1;
    const bool same = r.chance(0.8);
    w.pad_top = w.pad_left = w.pad_bottom = w.pad_right = same ? 1 : 0;
    channels = r.pick(std::vector<int64_t>{3, 4, 8, 8, 12, 16, 16, 24, 32, 48, 64, 96});
  } while (w.out_cols() < 16 || w.out_rows() * w.out_cols() * channels * 9 > 1500000);
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, w.rows, w.cols, channels});
  add_conv_node(c, r, dtype, OpType::kDepthwiseConv2D, x, {1, 3, 3, channels}, {1, w.out_rows(), w.out_cols(), channels},
                channels, 9, conv_attrs(w));
  return c;
}

// A depthwise of depth multiplier 2-16 over a few input channels (a first
// layer, as person_detect's: 96x96x1 into 8 channels): the kernels run each
// output channel alone.
OracleCase make_sized_multiplier_depthwise(Random& r, DType dtype) {
  OracleCase c;
  SizedWindow w;
  int64_t in_channels, channels;
  do {
    w = random_sized_window(r, 96, false);
    in_channels = r.uniform_int(1, 3);
    channels = in_channels * r.pick(std::vector<int64_t>{2, 4, 8, 8, 16});
  } while (w.out_rows() * w.out_cols() * channels * w.kernel_h * w.kernel_w > 1500000);
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, w.rows, w.cols, in_channels});
  add_conv_node(c, r, dtype, OpType::kDepthwiseConv2D, x, {1, w.kernel_h, w.kernel_w, channels},
                {1, w.out_rows(), w.out_cols(), channels}, channels, w.kernel_h * w.kernel_w, conv_attrs(w));
  return c;
}

OracleCase make_sized_fully_connected(Random& r, DType dtype) {
  OracleCase c;
  const int64_t in_features = r.pick(std::vector<int64_t>{10, 16, 64, 128, 250, 256, 490, 640, 1024});
  const int64_t out_features = r.pick(std::vector<int64_t>{2, 4, 10, 12, 64, 128, 256});
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, in_features});
  add_conv_node(c, r, dtype, OpType::kFullyConnected, x, {out_features, in_features}, {1, out_features},
                out_features, in_features, {});
  return c;
}

OracleCase make_sized_pool(Random& r, DType dtype, OpType op) {
  OracleCase c;
  SizedWindow w = random_sized_window(r, 24, false);
  w.cols = w.rows;
  if (r.chance(0.3)) w = {w.rows, w.rows, w.rows, w.rows, 1, 0, 0, 0, 0};  // global
  const int64_t channels = random_channels(r);
  const auto q = kernel_oracle::random_quant(r, dtype, 0.01, 0.05);
  const ir::TensorId x = kernel_oracle::add_input(
      c, "x", kernel_oracle::random_tensor(r, dtype, {1, w.rows, w.cols, channels}, -1, 1), q);
  const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, {1, w.out_rows(), w.out_cols(), channels}, q);
  ir::PoolAttrs a;
  a.kernel_h = w.kernel_h;
  a.kernel_w = w.kernel_w;
  a.stride_h = a.stride_w = w.stride;
  a.pad = {w.pad_top, w.pad_left, w.pad_bottom, w.pad_right};
  kernel_oracle::set_node(c, op, {x}, {y}, a);
  return c;
}

OracleCase make_sized_add(Random& r, DType dtype) {
  OracleCase c;
  const int64_t rows = r.uniform_int(1, 24);
  const ir::Shape shape{1, rows, rows, random_channels(r)};
  const auto qa = kernel_oracle::random_quant(r, dtype, 0.01, 0.05);
  const auto qb = kernel_oracle::random_quant(r, dtype, 0.01, 0.05);
  const auto qy = kernel_oracle::random_quant(r, dtype, 0.02, 0.08);
  const ir::TensorId a = kernel_oracle::add_input(c, "a", kernel_oracle::random_tensor(r, dtype, shape, -1, 1), qa);
  const ir::TensorId b = kernel_oracle::add_input(c, "b", kernel_oracle::random_tensor(r, dtype, shape, -1, 1), qb);
  const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, shape, qy);
  kernel_oracle::set_node(c, OpType::kAdd, {a, b}, {y}, {},
                          r.chance(0.5) ? ir::FusedActivation{0.0f, 6.0f} : ir::FusedActivation{});
  return c;
}

// Attention-sized MatMul (BERT-Tiny: tokens 8 to 512, hidden 128, heads of
// 64): a[heads, M, K] x b[heads, K, N], or b[heads, N, K] as Q x K^T reads it.
OracleCase make_sized_matmul(Random& r, DType dtype) {
  OracleCase c;
  int64_t heads, m, k, n;
  do {  // at most ~1.5 M MACs, as the sized convolutions
    heads = r.pick(std::vector<int64_t>{1, 1, 2});
    m = r.pick(std::vector<int64_t>{1, 8, 16, 32, 64});
    k = r.pick(std::vector<int64_t>{8, 16, 64, 128, 512});
    n = r.pick(std::vector<int64_t>{8, 16, 64, 128});
  } while (heads * m * k * n > 1500000);
  const bool transpose_b = r.chance(0.5);
  const auto qa = kernel_oracle::random_quant(r, dtype, 0.005, 0.1);
  const auto qb = kernel_oracle::random_quant(r, dtype, 0.005, 0.1);
  const auto qy = qa ? kernel_oracle::quant_of(dtype, kernel_oracle::conv_output_scale(r, qa->scale[0], qb->scale[0], k),
                                               dtype == DType::kI8 ? 0 : 128)
                     : std::nullopt;
  const ir::TensorId a =
      kernel_oracle::add_input(c, "a", kernel_oracle::random_tensor(r, dtype, {heads, m, k}, -1, 1), qa);
  const ir::Shape b_shape = transpose_b ? ir::Shape{heads, n, k} : ir::Shape{heads, k, n};
  const ir::TensorId b = kernel_oracle::add_input(c, "b", kernel_oracle::random_tensor(r, dtype, b_shape, -1, 1), qb);
  const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, {heads, m, n}, qy);
  kernel_oracle::set_node(c, OpType::kMatMul, {a, b}, {y}, ir::MatMulAttrs{transpose_b});
  return c;
}

// LayerNorm over BERT-sized rows: [1, tokens, hidden].
OracleCase make_sized_layer_norm(Random& r, DType dtype) {
  OracleCase c;
  const int64_t tokens = r.pick(std::vector<int64_t>{1, 8, 32, 64, 128});
  const int64_t hidden = r.pick(std::vector<int64_t>{32, 64, 128, 256});
  const auto qx = kernel_oracle::random_quant(r, dtype, 0.005, 0.2);
  const auto qy = kernel_oracle::quant_of(dtype, 7.0f / 127, dtype == DType::kI8 ? 0 : 128);
  const ir::TensorId x =
      kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, {1, tokens, hidden}, -3, 3), qx);
  const ir::TensorId g =
      kernel_oracle::add_constant(c, "gamma", kernel_oracle::random_tensor(r, DType::kF32, {hidden}, -2, 2));
  const ir::TensorId b =
      kernel_oracle::add_constant(c, "beta", kernel_oracle::random_tensor(r, DType::kF32, {hidden}, -1, 1));
  const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, {1, tokens, hidden}, qy);
  kernel_oracle::set_node(c, OpType::kLayerNorm, {x, g, b}, {y}, ir::LayerNormAttrs{1e-12f});
  return c;
}

// An inverted residual block (MobileNetV2): 1x1 expansion, depthwise 3x3,
// 1x1 projection [+ the block's input]; its wide middle is what partial
// execution cuts, and what the fused segment kernel never holds whole.
OracleCase make_inverted_residual(Random& r, DType dtype, bool sized) {
  OracleCase c;
  const int64_t rows = sized ? r.uniform_int(12, 28) : r.uniform_int(3, 16);
  const int64_t channels = r.pick(sized ? std::vector<int64_t>{8, 16, 24} : std::vector<int64_t>{4, 8, 16});
  const int64_t expanded = channels * r.pick(std::vector<int64_t>{3, 6});
  const int64_t stride = r.pick(std::vector<int64_t>{1, 2});
  const int64_t out_rows = (rows + 2 - 3) / stride + 1;
  const auto quant = [&](const char*) { return kernel_oracle::random_quant(r, dtype, 0.01, 0.05); };
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, rows, rows, channels});
  const ir::TensorId e = kernel_oracle::add_tensor(c, "e", dtype, {1, rows, rows, expanded}, quant("e"));
  const ir::TensorId d = kernel_oracle::add_tensor(c, "d", dtype, {1, out_rows, out_rows, expanded}, quant("d"));
  auto weights = [&](const std::string& name, const ir::Shape& shape, int64_t out, int32_t axis) {
    if (dtype == DType::kF32) return kernel_oracle::add_constant(c, name, kernel_oracle::random_tensor(r, dtype, shape, -1, 1));
    return kernel_oracle::add_constant(c, name, kernel_oracle::random_tensor(r, dtype, shape),
                                       kernel_oracle::random_weight_quant(r, dtype, out, axis, 0.01f));
  };
  auto bias = [&](const std::string& name, int64_t out) {
    return dtype == DType::kF32
               ? kernel_oracle::add_constant(c, name, kernel_oracle::random_tensor(r, dtype, {out}, -1, 1))
               : kernel_oracle::add_constant(c, name, kernel_oracle::random_tensor(r, DType::kI32, {out}, -300, 300));
  };
  const ir::FusedActivation relu6{0.0f, 6.0f};
  ir::ConvAttrs pointwise;
  ir::ConvAttrs depthwise = conv_attrs({rows, rows, 3, 3, stride, 1, 1, 1, 1});
  const ir::TensorId w1 = weights("w1", {expanded, 1, 1, channels}, expanded, 0), b1 = bias("b1", expanded);
  kernel_oracle::set_node(c, OpType::kConv2D, {x, w1, b1}, {e}, pointwise, relu6);
  const ir::TensorId w2 = weights("w2", {1, 3, 3, expanded}, expanded, 3), b2 = bias("b2", expanded);
  kernel_oracle::set_node(c, OpType::kDepthwiseConv2D, {e, w2, b2}, {d}, depthwise, relu6);
  const ir::TensorId w3 = weights("w3", {channels, 1, 1, expanded}, channels, 0), b3 = bias("b3", channels);
  // MobileNetV2's stride-1 blocks add their input back, half of them here.
  const bool residual = stride == 1 && r.chance(0.5);
  const ir::Shape y_shape{1, out_rows, out_rows, channels};
  const ir::TensorId p = residual ? kernel_oracle::add_tensor(c, "p", dtype, y_shape, quant("p"))
                                  : kernel_oracle::add_output(c, "y", dtype, y_shape, quant("y"));
  kernel_oracle::set_node(c, OpType::kConv2D, {d, w3, b3}, {p}, pointwise);
  if (residual) {
    const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, y_shape, quant("y"));
    kernel_oracle::set_node(c, OpType::kAdd, {x, p}, {y});
  }
  c.graph.nodes[0].name = "expand";
  c.graph.nodes[1].name = "depthwise";
  c.graph.nodes[2].name = "project";
  return c;
}

// One convolution of a quantized network as a quantizer leaves it: the output
// scale from its input's and weights' (add_conv_node), per-channel positive
// int8 weight scales (a trained model's; random_weight_quant also draws the
// zero and negative scales the __dsp kernels leave to the portable ones), one
// uint8 zero point; so the __dsp arithmetic serves it.
struct DspStage {
  std::string name;
  OpType op;
  ir::TensorId in;
  ir::Shape w_shape;
  int64_t out;
  ir::Shape y_shape;
  int64_t taps;
  ir::OpAttrs attrs;
  bool relu6, output;
};

ir::TensorId add_dsp_stage(OracleCase& c, Random& r, DType dtype, DspStage s) {
  const float x_scale = c.graph.tensor(s.in).quant->scale[0];
  const float w_scale = r.log_uniform(0.002, 0.02);
  ir::QuantParams wq;
  wq.axis = s.op == OpType::kDepthwiseConv2D ? 3 : 0;
  if (dtype == DType::kU8) {
    wq.scale = {w_scale};
    wq.zero_point = {static_cast<int32_t>(r.uniform_int(100, 155))};
  } else {
    for (int64_t k = 0; k < s.out; ++k) wq.scale.push_back(w_scale * static_cast<float>(r.uniform(0.5, 2)));
    wq.zero_point.assign(static_cast<size_t>(s.out), 0);
  }
  const ir::TensorId w =
      kernel_oracle::add_constant(c, s.name + "_w", kernel_oracle::random_tensor(r, dtype, s.w_shape), wq);
  const ir::TensorId b =
      kernel_oracle::add_constant(c, s.name + "_b", kernel_oracle::random_tensor(r, DType::kI32, {s.out}, -3000, 3000));
  const auto q = kernel_oracle::quant_of(dtype, kernel_oracle::conv_output_scale(r, x_scale, w_scale, s.taps),
                                         dtype == DType::kI8 ? -128 : 0);
  const ir::TensorId y = s.output ? kernel_oracle::add_output(c, s.name, dtype, s.y_shape, q)
                                  : kernel_oracle::add_tensor(c, s.name, dtype, s.y_shape, q);
  kernel_oracle::set_node(c, s.op, {s.in, w, b}, {y}, std::move(s.attrs),
                          s.relu6 ? ir::FusedActivation{0.0f, 6.0f} : ir::FusedActivation{});
  return y;
}

// An inverted bottleneck as the fused segment kernel computes it, at the
// shapes of MCUNet's and MobileNetV2's blocks (maps of 4-48 pixels a side:
// MCUNet-320KB's first blocks run at 44x44): depthwise 3x3, 5x5 or 7x7
// ("same"), stride 1 or 2, expansion 3-6, channels on and off the blocks of
// four, a residual on half the stride-1 blocks; one in four a network's
// first block, whose expand is a 3x3 stride-2 stem convolution of 1-4 input
// channels (the kernel gathers its windows two at a time). Measured only as
// one fused overlapping call (its per-stage features, cost/call_features.h).
OracleCase make_fused_inverted_residual(Random& r, DType dtype) {
  OracleCase c;
  const int64_t rows = r.uniform_int(4, 48), cols = r.chance(0.7) ? rows : r.uniform_int(4, 48);
  const int64_t channels = r.pick(std::vector<int64_t>{8, 12, 16, 24, 40, 48});
  const int64_t expanded = channels * r.pick(std::vector<int64_t>{3, 4, 5, 6});
  const int64_t kernel = r.pick(std::vector<int64_t>{3, 5, 7});
  const int64_t stride = r.pick(std::vector<int64_t>{1, 1, 2});
  const int64_t pad = (kernel - 1) / 2;
  const SizedWindow window{rows, cols, kernel, kernel, stride, pad, pad, kernel - 1 - pad, kernel - 1 - pad};
  const int64_t out_rows = window.out_rows(), out_cols = window.out_cols();
  const bool stem = r.chance(0.25);
  const int64_t in_channels = stem ? r.uniform_int(1, 4) : channels;
  // The expand's mid extents are rows x cols either way.
  const SizedWindow expand = stem ? SizedWindow{2 * rows, 2 * cols, 3, 3, 2, 0, 0, 1, 1}
                                  : SizedWindow{rows, cols, 1, 1, 1, 0, 0, 0, 0};
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, expand.rows, expand.cols, in_channels});
  const bool residual = !stem && stride == 1 && r.chance(0.5);
  const ir::Shape y_shape{1, out_rows, out_cols, channels};
  const ir::TensorId e = add_dsp_stage(
      c, r, dtype,
      {"e", OpType::kConv2D, x, {expanded, expand.kernel_h, expand.kernel_w, in_channels}, expanded,
       {1, rows, cols, expanded}, expand.kernel_h * expand.kernel_w * in_channels, conv_attrs(expand), true, false});
  const ir::TensorId d =
      add_dsp_stage(c, r, dtype, {"d", OpType::kDepthwiseConv2D, e, {1, kernel, kernel, expanded}, expanded,
                                  {1, out_rows, out_cols, expanded}, kernel * kernel, conv_attrs(window), true, false});
  const ir::TensorId p =
      add_dsp_stage(c, r, dtype, {residual ? "p" : "y", OpType::kConv2D, d, {channels, 1, 1, expanded}, channels,
                                  y_shape, expanded, ir::ConvAttrs{}, false, !residual});
  if (residual) {
    const float sum_scale = c.graph.tensor(x).quant->scale[0] + c.graph.tensor(p).quant->scale[0];
    const ir::TensorId y = kernel_oracle::add_output(
        c, "y", dtype, y_shape,
        kernel_oracle::quant_of(dtype, sum_scale, static_cast<int32_t>(r.uniform_int(-20, 20)) +
                                                       (dtype == DType::kI8 ? 0 : 128)));
    kernel_oracle::set_node(c, OpType::kAdd, {x, p}, {y});
  }
  return c;
}

// The first two stages of an inverted bottleneck at the shapes of the CI
// models' blocks (MCUNet, MobileNetV2, the Visual Wake Words nets): a
// pointwise expansion into 16-480 channels, then a depthwise 3x3, 5x5 or 7x7
// ("same"), stride 1 or 2, on maps of 3-48 pixels a side, so small maps whose
// every window the border clips are measured as well as large ones; measured
// whole, in channel chunks (partial execution) and in place (line buffer).
OracleCase make_depthwise_block(Random& r, DType dtype) {
  OracleCase c;
  int64_t rows, channels, expanded, kernel;
  do {  // at most ~2.5 M MACs per stage: a few seconds of QEMU time
    rows = r.uniform_int(3, 48);
    channels = r.pick(std::vector<int64_t>{8, 16, 24, 40});
    expanded = r.pick(std::vector<int64_t>{16, 24, 32, 48, 72, 80, 96, 120, 144, 160, 192, 240, 288, 480});
    kernel = r.pick(std::vector<int64_t>{3, 5, 7});
  } while (rows * rows * expanded * std::max(kernel * kernel, channels) > 2500000);
  const int64_t stride = r.pick(std::vector<int64_t>{1, 1, 2});
  const int64_t pad = (kernel - 1) / 2;
  const SizedWindow window{rows, rows, kernel, kernel, stride, pad, pad, kernel - 1 - pad, kernel - 1 - pad};
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, rows, rows, channels});
  const ir::TensorId e = add_dsp_stage(c, r, dtype, {"e", OpType::kConv2D, x, {expanded, 1, 1, channels}, expanded,
                                                     {1, rows, rows, expanded}, channels, ir::ConvAttrs{}, true, false});
  add_dsp_stage(c, r, dtype, {"y", OpType::kDepthwiseConv2D, e, {1, kernel, kernel, expanded}, expanded,
                              {1, window.out_rows(), window.out_cols(), expanded}, kernel * kernel, conv_attrs(window),
                              true, true});
  return c;
}

// A pointwise expansion into a classifier ([1,1,1,C] -> 1x1 conv to E -> FC):
// partial execution runs the classifier by input-channel accumulation.
OracleCase make_expanded_classifier(Random& r, DType dtype) {
  OracleCase c;
  const int64_t channels = r.pick(std::vector<int64_t>{8, 16, 32});
  const int64_t expanded = r.pick(std::vector<int64_t>{256, 512, 1024});
  const int64_t classes = r.pick(std::vector<int64_t>{2, 10, 12});
  const ir::TensorId x = add_sized_input(c, r, dtype, {1, 1, 1, channels});
  const ir::TensorId e = kernel_oracle::add_tensor(c, "e", dtype, {1, 1, 1, expanded},
                                                   kernel_oracle::random_quant(r, dtype, 0.01, 0.05));
  const bool quantized = dtype != DType::kF32;
  auto constant = [&](const std::string& name, const ir::Shape& shape, int64_t out) {
    if (!quantized) return kernel_oracle::add_constant(c, name, kernel_oracle::random_tensor(r, dtype, shape, -1, 1));
    return kernel_oracle::add_constant(c, name, kernel_oracle::random_tensor(r, dtype, shape),
                                       kernel_oracle::random_weight_quant(r, dtype, out, 0, 0.01f));
  };
  auto bias = [&](const std::string& name, int64_t out) {
    return kernel_oracle::add_constant(c, name, kernel_oracle::random_tensor(r, quantized ? DType::kI32 : dtype, {out},
                                                                             quantized ? -300 : -1, quantized ? 300 : 1));
  };
  const ir::TensorId w1 = constant("w1", {expanded, 1, 1, channels}, expanded), b1 = bias("b1", expanded);
  kernel_oracle::set_node(c, OpType::kConv2D, {x, w1, b1}, {e}, ir::ConvAttrs{}, ir::FusedActivation{0.0f, 6.0f});
  const ir::TensorId w2 = constant("w2", {classes, expanded}, classes), b2 = bias("b2", classes);
  const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, {1, classes},
                                                   kernel_oracle::random_quant(r, dtype, 0.05, 0.2));
  kernel_oracle::set_node(c, OpType::kFullyConnected, {e, w2, b2}, {y});
  c.graph.nodes[0].name = "expand";
  c.graph.nodes[1].name = "classifier";
  return c;
}

// A random chain of convolutions, depthwise convolutions, pools and residual
// Adds (tests/support/random_row_chain.h) at feature-map sizes, for row loops.
OracleCase make_row_chain(Random& r, DType dtype) {
  row_chain::ChainSpec spec;
  spec.seed = static_cast<uint64_t>(r.uniform_int(0, 1 << 30));
  spec.dtype = dtype;
  spec.operators = static_cast<int>(r.uniform_int(2, 6));
  spec.rows = r.uniform_int(8, 40);
  spec.cols = r.uniform_int(4, 24);
  spec.max_channels = r.uniform_int(2, 24);
  return row_chain::make_random_row_chain(spec);
}

// A short random chain ending in a global average or max pool, the row loop
// running on through the pool at classifier-head sizes (a 25x5x64 keyword
// model's last map, ResNet's 8x8x64): the pool's accumulate calls on each
// band of rows and its finalize call after the loop.
OracleCase make_row_pool_chain(Random& r, DType dtype) {
  row_chain::ChainSpec spec;
  spec.seed = static_cast<uint64_t>(r.uniform_int(0, 1 << 30));
  spec.dtype = dtype;
  spec.operators = static_cast<int>(r.uniform_int(1, 3));
  spec.rows = r.uniform_int(4, 28);
  spec.cols = r.uniform_int(2, 14);
  spec.max_channels = r.uniform_int(8, 96);
  spec.global_pool = true;
  return row_chain::make_random_row_chain(spec);
}

// A producer under a tall window (a depthwise convolution or max pool of
// 3-7 rows, stride 1) at MobileNet and MCUNet feature-map sizes, as one row
// loop of 1-3 rows (make_row_loop_plan): each iteration's BlockConcat copy
// (tf_x8_copy) keeps 2-6 rows of the producer's output, several times the
// rows the producer computes, so the copy row is fitted where copies are
// much of the work. The producer is a 1x1 max pool (the cheapest), or a
// convolution as MOTES's row loops run them: a pointwise one (1x1, in
// channels a multiple of four or not: the dense pointwise and the general
// im2col paths of its _workspace twin, tf_*_conv2d_1x1_rows__dsp without a
// workspace) or a 3x3 one (im2col over a window), from few input channels so
// that it stays cheap beside the copy.
OracleCase make_row_copy(Random& r, DType dtype) {
  OracleCase c;
  const int64_t rows = r.pick(std::vector<int64_t>{28, 44, 56, 56, 80, 88, 112});
  const int64_t channels = r.pick(std::vector<int64_t>{8, 16, 24, 32});
  const int64_t kernel_h = r.pick(std::vector<int64_t>{3, 3, 5, 7});
  const int64_t kernel_w = r.chance(0.5) ? 1 : 3;
  const int producer = static_cast<int>(r.uniform_int(0, 3));  // 0 max pool, 1-2 pointwise, 3 3x3
  const auto q = kernel_oracle::random_quant(r, dtype, 0.01, 0.05);
  const ir::Shape p_shape{1, rows, rows, channels};
  ir::TensorId p;
  if (producer == 0) {
    const ir::TensorId x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, p_shape, -1, 1), q);
    p = kernel_oracle::add_tensor(c, "p", dtype, p_shape, q);
    ir::PoolAttrs one;
    one.kernel_h = one.kernel_w = 1;
    kernel_oracle::set_node(c, OpType::kMaxPool, {x}, {p}, one);
  } else {
    const int64_t in_channels = r.pick(std::vector<int64_t>{3, 4, 8, 8, 16});
    const int64_t k = producer == 3 ? 3 : 1;
    const ir::TensorId x = add_sized_input(c, r, dtype, {1, rows, rows, in_channels});
    const SizedWindow same{rows, rows, k, k, 1, (k - 1) / 2, (k - 1) / 2, k / 2, k / 2};
    p = add_dsp_stage(c, r, dtype, {"p", OpType::kConv2D, x, {channels, k, k, in_channels}, channels, p_shape,
                                    k * k * in_channels, conv_attrs(same), r.chance(0.6), false});
  }
  const ir::QuantParams p_quant = *c.graph.tensor(p).quant;
  const int64_t pad_top = (kernel_h - 1) / 2, pad_left = (kernel_w - 1) / 2;
  const SizedWindow window{rows, rows, kernel_h, kernel_w, 1, pad_top, pad_left, kernel_h - 1 - pad_top,
                           kernel_w - 1 - pad_left};
  const ir::Shape y_shape{1, window.out_rows(), window.out_cols(), channels};
  if (r.chance(0.7)) {
    add_conv_node(c, r, dtype, OpType::kDepthwiseConv2D, p, {1, kernel_h, kernel_w, channels}, y_shape, channels,
                  kernel_h * kernel_w, conv_attrs(window));
  } else {
    const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, y_shape, p_quant);
    ir::PoolAttrs tall;
    tall.kernel_h = kernel_h;
    tall.kernel_w = kernel_w;
    tall.pad = {window.pad_top, window.pad_left, window.pad_bottom, window.pad_right};
    kernel_oracle::set_node(c, OpType::kMaxPool, {p}, {y}, tall);
  }
  return c;
}

// A tensor as the graph's output under an identity Reshape (an alias: no
// kernel call of its own), so that its plan can be copies alone
// (make_copy_plan): feature-map sizes of the CI models, channels on and off
// the blocks of four.
OracleCase make_copy_case(Random& r, DType dtype) {
  OracleCase c;
  const int64_t rows = r.uniform_int(1, 48), cols = r.chance(0.7) ? rows : r.uniform_int(1, 48);
  const ir::Shape shape{1, rows, cols, random_channels(r)};
  const auto q = kernel_oracle::random_quant(r, dtype, 0.01, 0.05);
  const ir::TensorId x = kernel_oracle::add_input(c, "x", kernel_oracle::random_tensor(r, dtype, shape, -1, 1), q);
  const ir::TensorId y = kernel_oracle::add_output(c, "y", dtype, shape, q);
  kernel_oracle::set_node(c, OpType::kReshape, {x}, {y});
  return c;
}

// --- Plans ---------------------------------------------------------------------

Result<plan::Plan> place_and_verify(const ir::Graph& graph, plan::Plan plan);

// The whole graph as one row loop (plan/lower_row_loop.h), `tile` rows of its
// output at a time (1 to the smaller of `max_tile` and a third of them): the calls of MOTES's row loops on windows of rows, and
// the BlockConcat copies (tf_x8_copy) that keep the rows a window reads again.
Result<plan::Plan> make_row_loop_plan(const ir::Graph& graph, Random& r, int64_t max_tile) {
  const analysis::BufferGraph bg = analysis::build_buffer_graph(graph);
  std::vector<int> ops(bg.operators.size());
  for (size_t i = 0; i < ops.size(); ++i) ops[i] = static_cast<int>(i);
  // A global pool at the end accumulates: the loop walks its input's rows.
  const ir::Node& sink = graph.nodes.at(static_cast<size_t>(bg.operators.back().node));
  const int64_t rows = (partition::ends_in_accumulated_pool(graph, bg, ops) ? graph.input_tensor(sink, 0)
                                                                            : graph.tensor(graph.outputs.front()))
                           .shape[1];
  const int64_t tile = r.uniform_int(1, std::max<int64_t>(1, std::min(max_tile, rows / 3)));
  TINYFIT_ASSIGN_OR_RETURN(plan::Plan plan,
                           plan::build_row_loop_plan(graph, bg, analysis::given_order(bg), {{ops, tile}}));
  return place_and_verify(graph, std::move(plan));
}

// The one call of a one-node ordinary plan repeated over chunks of its
// output's channels (the last axis) or rows (axis 1), `tile` at a time: the
// calls partial execution and row partitions make. Channel-wise nodes read
// the same chunk of their input; others read it whole.
plan::Plan wrap_in_loop(const ir::Graph& graph, plan::Plan plan, plan::LoopAxis walked, int64_t tile) {
  plan::KernelCall call = plan.steps.front().call();
  const bool rows = walked == plan::LoopAxis::kRows;
  const int axis = rows ? 1 : call.outputs.front().rank() - 1;
  call.mode = rows ? plan::CallMode::kWhole : plan::CallMode::kChunk;
  const int64_t extent = call.outputs.front().shape[static_cast<size_t>(axis)];
  const ir::Node& node = graph.nodes.at(static_cast<size_t>(call.node));
  const bool channelwise = ir::op_decl(node.op).kind(graph, node) == ir::OpKind::kChannelwise;
  if (!rows && channelwise) {
    for (plan::View& in : call.inputs) {
      if (in.shape == call.outputs.front().shape) in = plan::follow_chunk(in, 0, axis, extent, false);
    }
  }
  call.outputs.front() = plan::follow_chunk(call.outputs.front(), 0, axis, extent, false);
  plan::Loop loop;
  loop.name = rows ? "rows" : "channels";
  loop.axis = walked;
  loop.extent = extent;
  loop.tile = tile;
  loop.body.push_back(plan::Step{std::move(call)});
  plan.steps.front().what = std::move(loop);
  return plan;
}

// The graph's input copied into its output (make_copy_case) by plan copies
// (tf_x8_copy) alone: whole (one dense copy), by chunks of rows (dense
// copies of a few rows, as a row loop's BlockConcat makes) or by chunks of
// channels (pixel by pixel, as partial execution's copies of channel chunks
// into a whole tensor), `tile` at a time. Every other probe that copies also
// runs a node whose counts grow with the copy's, so only these fix what a
// copied byte and a copied pixel cost.
Result<plan::Plan> make_copy_plan(const ir::Graph& graph, Random& r) {
  const ir::Tensor& x = graph.tensor(graph.inputs.front());
  const ir::Tensor& y = graph.tensor(graph.outputs.front());
  const int64_t bytes = x.num_elements() * ir::dtype_size_bytes(x.dtype);
  plan::Plan plan;
  plan.buffers.push_back({x.name, plan::BufferRole::kModelInput, x.dtype, bytes});
  plan.buffers.push_back({y.name, plan::BufferRole::kModelOutput, y.dtype, bytes});
  plan.inputs = {0};
  plan.outputs = {1};
  plan.techniques = {"copy"};
  plan::KernelCall copy;
  copy.mode = plan::CallMode::kCopy;
  copy.inputs = {plan::make_dense_view(0, x.shape)};
  copy.outputs = {plan::make_dense_view(1, y.shape)};
  const int walk = static_cast<int>(r.uniform_int(0, 2));  // 0 whole, 1 rows, 2 channels
  const int axis = walk == 1 ? 1 : 3;
  const int64_t extent = x.shape[static_cast<size_t>(axis)];
  if (walk == 0 || extent < 2) {
    plan.steps.push_back(plan::Step{std::move(copy)});
    return place_and_verify(graph, std::move(plan));
  }
  copy.inputs.front() = plan::follow_chunk(copy.inputs.front(), 0, axis, extent, false);
  copy.outputs.front() = plan::follow_chunk(copy.outputs.front(), 0, axis, extent, false);
  plan::Loop loop;
  loop.name = walk == 1 ? "rows" : "channels";
  loop.axis = walk == 1 ? plan::LoopAxis::kRows : plan::LoopAxis::kChannels;
  loop.extent = extent;
  loop.tile = r.uniform_int(1, std::max<int64_t>(1, extent / 2));
  loop.body.push_back(plan::Step{std::move(copy)});
  plan.steps.push_back(plan::Step{std::move(loop)});
  return place_and_verify(graph, std::move(plan));
}

struct Maker {
  std::string name;
  std::string group;
  std::function<OracleCase(Random&)> make;
  int count;  // programs per seed
  bool loops; // also in chunk loops
};

std::vector<Maker> list_makers() {
  using namespace kernel_oracle;
  std::vector<Maker> makers;
  for (DType t : kDtypes) {
    const std::string s = "_" + dtype_suffix(t);
    makers.push_back({"conv" + s, "conv" + s, [t](Random& r) { return make_conv_case(r, t, ConvKind::kConv); }, 3, true});
    makers.push_back({"dwconv" + s, "conv" + s, [t](Random& r) { return make_conv_case(r, t, ConvKind::kDepthwise); }, 3, true});
    makers.push_back({"fc" + s, "conv" + s, [t](Random& r) { return make_fully_connected_case(r, t); }, 2, true});
    makers.push_back({"sized_conv" + s, "conv" + s, [t](Random& r) { return make_sized_conv(r, t); }, 8, true});
    makers.push_back({"sized_dwconv" + s, "conv" + s, [t](Random& r) { return make_sized_depthwise(r, t); }, 6, true});
    if (t != DType::kF32) {
      makers.push_back({"sized_rgb_stem" + s, "conv" + s, [t](Random& r) { return make_sized_rgb_stem(r, t); }, 2, true});
      makers.push_back({"sized_pointwise" + s, "conv" + s, [t](Random& r) { return make_sized_pointwise(r, t); }, 4, true});
      makers.push_back({"sized_planar_dwconv" + s, "conv" + s,
                        [t](Random& r) { return make_sized_planar_depthwise(r, t); }, 2, true});
    }
    makers.push_back({"sized_multiplier_dwconv" + s, "conv" + s,
                      [t](Random& r) { return make_sized_multiplier_depthwise(r, t); }, 3, true});
    makers.push_back({"sized_fc" + s, "conv" + s, [t](Random& r) { return make_sized_fully_connected(r, t); }, 3, true});
    for (OpType op : {OpType::kMaxPool, OpType::kAveragePool}) {
      const std::string n = std::string(ir::op_type_name(op)) + s;
      makers.push_back({n, "pool" + s, [t, op](Random& r) { return make_pool_case(r, t, op); }, 2, true});
      makers.push_back({"sized_" + n, "pool" + s, [t, op](Random& r) { return make_sized_pool(r, t, op); }, 3, true});
    }
    makers.push_back({"mean" + s, "pool" + s, [t](Random& r) { return make_mean_case(r, t); }, 3, false});
    for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul}) {
      makers.push_back({std::string(ir::op_type_name(op)) + s, "elementwise" + s,
                        [t, op](Random& r) { return make_binary_case(r, t, op); }, 2, true});
    }
    makers.push_back({"sized_add" + s, "elementwise" + s, [t](Random& r) { return make_sized_add(r, t); }, 3, true});
    makers.push_back({"clip" + s, "elementwise" + s, [t](Random& r) { return make_clip_case(r, t); }, 2, true});
    for (OpType op : {OpType::kSigmoid, OpType::kSoftmax, OpType::kHardSwish}) {
      makers.push_back({std::string(ir::op_type_name(op)) + s, "elementwise" + s,
                        [t, op](Random& r) { return make_unary_case(r, t, op); }, 2, false});
    }
    for (auto [name, make] : std::vector<std::pair<std::string, OracleCase (*)(Random&, DType)>>{
             {"concat", make_concat_case}, {"split", make_split_case}, {"slice", make_slice_case},
             {"transpose", make_transpose_case}, {"pad", make_pad_case}, {"reshape", make_reshape_case}}) {
      makers.push_back({name + s, "data_movement", [t, make = make](Random& r) { return make(r, t); }, 3, false});
    }
    for (DType out : kDtypes) {
      if (t == DType::kF32 && out == DType::kF32) continue;
      makers.push_back({"quantize" + s + "_" + dtype_suffix(out), "elementwise" + s,
                        [t, out](Random& r) { return make_quantize_case(r, t, out); }, 1, false});
    }
    if (t != DType::kF32) {
      makers.push_back({"dequantize" + s, "elementwise" + s, [t](Random& r) { return make_dequantize_case(r, t); }, 2, false});
    }
    makers.push_back({"channel_shuffle" + s, "data_movement", [t](Random& r) { return make_channel_shuffle_case(r, t); }, 2, false});
    makers.push_back({"resize" + s, "resize" + s, [t](Random& r) { return make_resize_case(r, t); }, 4, false});
    makers.push_back({"matmul" + s, "transformer" + s, [t](Random& r) { return make_matmul_case(r, t); }, 3, false});
    makers.push_back({"sized_matmul" + s, "transformer" + s, [t](Random& r) { return make_sized_matmul(r, t); }, 4, false});
    makers.push_back({"layernorm" + s, "transformer" + s, [t](Random& r) { return make_layer_norm_case(r, t); }, 2, false});
    makers.push_back({"sized_layernorm" + s, "transformer" + s, [t](Random& r) { return make_sized_layer_norm(r, t); }, 3, false});
    if (t != DType::kF32) {
      makers.push_back({"gather" + s, "transformer" + s, [t](Random& r) { return make_gather_case(r, t); }, 2, false});
    }
    makers.push_back({"inverted_residual" + s, "chain" + s, [t](Random& r) { return make_inverted_residual(r, t, false); }, 2, false});
    // At feature-map sizes, so the in-place (line-buffer) depthwise kernels
    // are fitted where real networks run them, not only on tiny maps.
    makers.push_back({"sized_inverted_residual" + s, "chain" + s,
                      [t](Random& r) { return make_inverted_residual(r, t, true); }, 3, false});
    if (t != DType::kF32) {
      makers.push_back({"fused_inverted_residual" + s, "fused" + s,
                        [t](Random& r) { return make_fused_inverted_residual(r, t); }, 8, false});
      makers.push_back({"depthwise_block" + s, "chain" + s,
                        [t](Random& r) { return make_depthwise_block(r, t); }, 4, false});
    }
    makers.push_back({"row_chain" + s, "row_chain" + s, [t](Random& r) { return make_row_chain(r, t); }, 4, false});
    if (t != DType::kF32) {
      makers.push_back({"row_copy" + s, "row_chain" + s, [t](Random& r) { return make_row_copy(r, t); }, 3, false});
      makers.push_back({"row_pool" + s, "row_chain" + s, [t](Random& r) { return make_row_pool_chain(r, t); }, 3, false});
    }
    makers.push_back({"copy" + s, "copy", [t](Random& r) { return make_copy_case(r, t); }, 4, false});
    makers.push_back({"expanded_classifier" + s, "chain" + s, [t](Random& r) { return make_expanded_classifier(r, t); }, 1, false});
  }
  makers.push_back({"lrn", "elementwise_f32", [](Random& r) { return make_lrn_case(r); }, 2, false});
  // The float functions of transformers (quantized, they are tables: tf_x8_lut).
  makers.push_back({"div_f32", "elementwise_f32", [](Random& r) { return make_binary_case(r, DType::kF32, OpType::kDiv); }, 2, false});
  for (OpType op : {OpType::kSqrt, OpType::kRsqrt, OpType::kErf, OpType::kGelu}) {
    makers.push_back({std::string(ir::op_type_name(op)) + "_f32", "elementwise_f32",
                      [op](Random& r) { return make_float_function_case(r, DType::kF32, op); }, op == OpType::kGelu ? 4 : 2,
                      false});
  }
  return makers;
}

// A placed, verified plan or why not.
Result<plan::Plan> place_and_verify(const ir::Graph& graph, plan::Plan plan) {
  TINYFIT_RETURN_IF_ERROR(plan::place_plan(plan, "greedy-by-size", {}));
  TINYFIT_RETURN_IF_ERROR(plan::verify_plan(graph, plan));
  return plan;
}

// Whether the one-node graph's operator has an overlap-tolerant (segment)
// kernel (plan/segment_call.h; a call it cannot serve is skipped and listed).
bool has_segment_kernel(const ir::Graph& graph) {
  if (graph.nodes.size() != 1) return false;
  const OpType op = graph.nodes.front().op;
  return op == OpType::kConv2D || op == OpType::kDepthwiseConv2D || op == OpType::kFullyConnected;
}

// The graph as one call with its output over its input at the compiler's
// offset (vMCU), walked either way.
Result<plan::Plan> make_overlap_plan(const ir::Graph& graph, Random& r) {
  const plan::Traversal traversal = r.chance(0.5) ? plan::Traversal::kAscending : plan::Traversal::kDescending;
  TINYFIT_ASSIGN_OR_RETURN(plan::Plan plan, plan::testing::make_one_call_overlap_plan(graph, traversal));
  TINYFIT_RETURN_IF_ERROR(plan::verify_plan(graph, plan));
  return plan;
}

}  // namespace

std::vector<ProbeProgram> make_probe_programs(int first_seed, int seeds, std::vector<std::string>& skipped) {
  std::vector<ProbeProgram> programs;
  auto add = [&](const std::string& name, const std::string& group, const ir::Graph& graph,
                 Result<plan::Plan> plan) {
    auto skip = [&](const Diag& diag) { skipped.push_back(name + ": " + diag.message.substr(0, diag.message.find('\n'))); };
    if (!plan) return skip(plan.error());
    Result<cost::PlanWork> work = exec::count_plan_work(graph, *plan);
    if (!work) return skip(work.error());
    programs.push_back({name, group, graph, std::move(*plan), std::move(*work)});
  };
  // The plan as built, again with the workspaces of its calls' fastest
  // primitives (im2col + GEMM: exec/add_kernel_workspaces.h) when any needs
  // one, and that plan with every widenable 1x1 Conv2D's weights widened
  // (exec/wide_weights.h: the _wide im2col kernels) when it has any.
  auto add_with_workspaces = [&](const std::string& name, const std::string& group, const ir::Graph& graph,
                                 const Result<plan::Plan>& plan) {
    add(name, group, graph, plan);
    if (!plan) return;
    plan::Plan with_workspaces = *plan;
    const Result<int> added = exec::add_kernel_workspaces(graph, with_workspaces);
    if (!added) return add(name + "_workspace", group, graph, tl::unexpected(added.error()));
    if (*added == 0) return;
    Result<plan::Plan> placed = place_and_verify(graph, std::move(with_workspaces));
    add(name + "_workspace", group, graph, placed);
    if (!placed) return;
    const Result<std::vector<exec::WidenableNode>> widenable = exec::find_widenable_nodes(graph, *placed);
    if (!widenable || widenable->empty()) return;
    std::set<ir::NodeId> nodes;
    for (const exec::WidenableNode& n : *widenable) nodes.insert(n.node);
    exec::mark_wide_weights(*placed, nodes);
    add(name + "_wide", group, graph, std::move(placed));
  };
  for (const Maker& maker : list_makers()) {
    const bool chain = maker.group.starts_with("chain");
    const bool row_chain = maker.group.starts_with("row_chain");
    const bool fused = maker.group.starts_with("fused");
    const bool copy = maker.group == "copy";
    for (int i = first_seed * maker.count; i < (first_seed + seeds) * maker.count; ++i) {
      Random r(0x5eed0000u + static_cast<uint64_t>(i) * 7919u + std::hash<std::string>{}(maker.name) % 1000003u);
      OracleCase c = maker.make(r);
      const std::string name = maker.name + "/" + std::to_string(i);
      if (fused) {
        add(name + "_fused_overlap", maker.group, c.graph, make_overlap_plan(c.graph, r));
        continue;
      }
      if (copy) {
        add(name, maker.group, c.graph, make_copy_plan(c.graph, r));
        continue;
      }
      if (row_chain) {
        const int64_t max_tile = maker.name.starts_with("row_copy") ? 3 : std::numeric_limits<int64_t>::max();
        add_with_workspaces(name, maker.group, c.graph, make_row_loop_plan(c.graph, r, max_tile));
        continue;
      }
      if (chain) {
        // A depthwise block is measured whole too (the CI models' ordinary plans).
        std::vector<mcu::Technique> techniques = {mcu::Technique::kPex, mcu::Technique::kInplace};
        if (maker.name.starts_with("depthwise_block")) techniques.insert(techniques.begin(), mcu::Technique::kOrdinary);
        for (mcu::Technique technique : techniques) {
          add_with_workspaces(name + "_" + std::string(mcu::technique_name(technique)), maker.group, c.graph,
                              mcu::build_technique_plan(c.graph, technique));
        }
        if (maker.name.starts_with("inverted_residual")) {
          add(name + "_fused_overlap", maker.group, c.graph, make_overlap_plan(c.graph, r));
        }
        continue;
      }
      Result<plan::Plan> ordinary = mcu::build_technique_plan(c.graph, mcu::Technique::kOrdinary);
      const bool one_call = ordinary && ordinary->steps.size() == 1 && !ordinary->steps.front().is_loop();
      add_with_workspaces(name, maker.group, c.graph, ordinary);
      if (has_segment_kernel(c.graph) && r.chance(0.5)) {
        add(name + "_overlap", maker.group, c.graph, make_overlap_plan(c.graph, r));
      }
      if (!maker.loops || !one_call || c.graph.nodes.size() != 1) continue;
      const plan::View& out = ordinary->steps.front().call().outputs.front();
      const int64_t channels = out.shape.back();
      const ir::Node& node = c.graph.nodes.front();
      const ir::AxisMap axes = ir::op_decl(node.op).map_axes(c.graph, node);
      const bool windowed = std::any_of(axes.links.begin(), axes.links.end(),
                                        [](const ir::AxisLink& l) { return l.role == ir::AxisRole::kWindow; });
      const bool wide_window = std::any_of(axes.links.begin(), axes.links.end(), [](const ir::AxisLink& l) {
        return l.role == ir::AxisRole::kWindow && l.window.kernel > 1;
      });
      if (channels > 1) {
        const int64_t tile = r.uniform_int(1, std::max<int64_t>(1, channels / 2));
        add_with_workspaces(name + "_channels" + std::to_string(tile), maker.group, c.graph,
                            place_and_verify(c.graph, wrap_in_loop(c.graph, *ordinary, plan::LoopAxis::kChannels, tile)));
        // Chunks of one channel run paths of their own: the depthwise
        // one-channel kernel (tf_*_dwconv2d_channel__dsp) and, for a KxK
        // Conv2D, the window kernel's channel outside the pairs, two pixels
        // at a time (tf_*_conv2d_window__dsp).
        if (tile != 1 && (node.op == OpType::kDepthwiseConv2D || (node.op == OpType::kConv2D && wide_window))) {
          add_with_workspaces(name + "_channels1", maker.group, c.graph,
                              place_and_verify(c.graph, wrap_in_loop(c.graph, *ordinary, plan::LoopAxis::kChannels, 1)));
        }
      }
      if (windowed && out.rank() == 4 && out.shape[1] > 1) {
        const int64_t tile = r.uniform_int(1, std::max<int64_t>(1, out.shape[1] / 2));
        add_with_workspaces(name + "_rows" + std::to_string(tile), maker.group, c.graph,
                            place_and_verify(c.graph, wrap_in_loop(c.graph, *ordinary, plan::LoopAxis::kRows, tile)));
      }
    }
  }
  return programs;
}

}  // namespace tinyfit::bench
