#include "exec/bind_conv_params.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <span>

#include "exec/fold_requant.h"
#include "exec/reference/kernel.h"
#include "exec/reference/quant_math.h"
#include "plan/plan_walk.h"

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

// Per output channel, the sum of |weight + weight offset| over the channel's
// weights: rows of `row` elements ([Cout][...]), or every out_channels-th
// element (DepthwiseConv2D's [1][KH][KW][Cout]).
// Per output channel of a row-major [Cout][...] weight array, the sum of
// term(weight) over its row. The loops run over whole rows, with no division
// per weight: every compile prepares every convolution's constants many
// times (the latency model counts each candidate's work).
template <typename Sum, typename Weight, typename Term>
std::vector<Sum> sum_rows(std::span<const Weight> weights, size_t out_channels, Term term) {
  std::vector<Sum> sums(out_channels, 0);
  const size_t row = weights.size() / out_channels;
  for (size_t c = 0; c < out_channels; ++c) {
    const Weight* at = weights.data() + c * row;
    Sum sum = 0;
    for (size_t k = 0; k < row; ++k) sum += term(at[k]);
    sums[c] = sum;
  }
  return sums;
}

template <typename Weight>
std::vector<int64_t> sum_absolute_weights_of(std::span<const Weight> weights, int32_t weight_offset,
                                             size_t out_channels, bool channel_last) {
  const auto magnitude = [weight_offset](Weight w) {
    const int32_t v = int32_t{w} + weight_offset;
    return v < 0 ? -v : v;
  };
  if (!channel_last) return sum_rows<int64_t>(weights, out_channels, magnitude);
  std::vector<int64_t> sums(out_channels, 0);
  for (size_t r = 0; r < weights.size() / out_channels; ++r) {
    const Weight* at = weights.data() + r * out_channels;
    for (size_t c = 0; c < out_channels; ++c) sums[c] += magnitude(at[c]);
  }
  return sums;
}

std::vector<int64_t> sum_absolute_weights(std::span<const uint8_t> weights, bool is_signed, int32_t weight_offset,
                                          int64_t out_channels, bool channel_last) {
  const auto channels = static_cast<size_t>(out_channels);
  if (is_signed) {
    return sum_absolute_weights_of(std::span(reinterpret_cast<const int8_t*>(weights.data()), weights.size()),
                                   weight_offset, channels, channel_last);
  }
  return sum_absolute_weights_of(weights, weight_offset, channels, channel_last);
}

// A channel whose weights are all zero (plus offset) sums to its bias alone,
// so its output is the constant r = requantise(bias). Quantisers leave such
// channels with a tiny scale, a bias near 2^30 and a right shift near 30,
// which no fast requantisation takes (requantize.h's |acc| < 2^30); restated
// as bias 2r, multiplier 2^30 and shift 0 it yields r exactly (TFLite's own
// arithmetic: SRDHM(2r, 2^30) = r) and every kernel takes it.
void restate_constant_channels(const std::vector<int64_t>& absolute_sums, std::vector<int32_t>& bias,
                               std::vector<int32_t>& multiplier, std::vector<int32_t>& shift) {
  for (size_t c = 0; c < absolute_sums.size(); ++c) {
    if (absolute_sums[c] != 0) continue;
    const int32_t r = reference::multiply_by_quantized_multiplier(bias[c], multiplier[c], shift[c]);
    if (std::abs(int64_t{r}) >= (int64_t{1} << 29)) continue;
    bias[c] = 2 * r;
    multiplier[c] = int32_t{1} << 30;
    shift[c] = 0;
  }
}

// The weights of output channel c, in place: its row (row-major [Cout][...])
// or, channel_last (depthwise [KH][KW][C]), every out_channels-th element.
template <typename Weights, typename Visit>
void visit_channel_weights(Weights& weights, size_t out_channels, bool channel_last, size_t c,
                           Visit visit) {
  const size_t taps = weights.size() / out_channels;
  for (size_t t = 0; t < taps; ++t) visit(weights[channel_last ? t * out_channels + c : c * taps + t]);
}

// Channels with a negative multiplier (a negative per-channel scale, as in
// MCUNet-320KB-ImageNet's tflite stem and two of its convolutions) that the
// __dsp kernels can take negated: -acc = -bias + sum(-w * (x + offset)) with
// multiplier -m has the same product as TFLite's (acc << ls) * m, so every
// requantised value is TFLite's (requantize.h, SRDHM of the same product; the
// rounding's sign is that of the product, which the negated form keeps as
// the sign of its accumulator). Possible when every weight negates in int8
// (qs8 weights without offset and no -128), -m and -bias fit int32.
std::vector<bool> find_negatable_channels(std::span<const uint8_t> weights, bool qs8, int32_t weight_offset,
                                          size_t out_channels, bool channel_last, const std::vector<int32_t>& bias,
                                          const std::vector<int32_t>& multiplier) {
  std::vector<bool> negatable(out_channels, false);
  if (!qs8 || weight_offset != 0) return negatable;
  constexpr int32_t kLowest = std::numeric_limits<int32_t>::min();
  for (size_t c = 0; c < out_channels; ++c) {
    if (multiplier[c] >= 0 || multiplier[c] == kLowest || bias[c] == kLowest) continue;
    bool every_weight_negates = true;
    visit_channel_weights(weights, out_channels, channel_last, c,
                          [&](uint8_t raw) { every_weight_negates = every_weight_negates && raw != 0x80u; });
    negatable[c] = every_weight_negates;
  }
  return negatable;
}

// tinyfit/requantize.h's requirement for every channel. A channel whose
// multiplier is 0 (a dead channel: TFLite gives some a zero scale and a bias
// near the int32 limits) requantises every sum to 0 in both forms, whatever
// the sum, so it does not constrain the sums.
bool check_requantize_fits(const std::vector<int64_t>& weight_sums, const std::vector<int32_t>& bias,
                           const std::vector<int32_t>& multiplier, const std::vector<int32_t>& shift,
                           int64_t max_input) {
  for (size_t c = 0; c < weight_sums.size(); ++c) {
    if (multiplier[c] == 0 && shift[c] <= 0 && shift[c] >= -31) continue;
    const int64_t left = shift[c] > 0 ? shift[c] : 0, right = shift[c] > 0 ? 0 : -int64_t{shift[c]};
    const int64_t largest = std::abs(int64_t{bias[c]}) + max_input * weight_sums[c];
    if ((multiplier[c] != 0 && multiplier[c] < (int32_t{1} << 30)) || right > 31 || left > 30 ||
        largest >= (int64_t{1} << (30 - left))) {
      return false;
    }
  }
  return true;
}

// Winograd F(2x2, 3x3)'s transformed weights U = G g G^T of every (output,
// input) channel pair, G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1], in the
// layout of tinyfit/conv.h: [ceil(Cout/4)][4 rows][Cin][4 cols][4 channels],
// zeros for the channels past Cout. From the IR layout w[Cout][3][3][Cin];
// each U computed in double and rounded once.
std::vector<float> transform_winograd_weights(const float* w, int64_t out_channels, int64_t in_channels) {
  static constexpr double kG[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  const int64_t blocks = (out_channels + 3) / 4;
  std::vector<float> u(static_cast<size_t>(blocks * 4 * in_channels * 16), 0.0f);
  for (int64_t k = 0; k < out_channels; ++k) {
    for (int64_t c = 0; c < in_channels; ++c) {
      auto g = [&](int64_t ky, int64_t kx) {
        return static_cast<double>(w[((k * 3 + ky) * 3 + kx) * in_channels + c]);
      };
      double gg[4][3];  // G g
      for (int i = 0; i < 4; ++i) {
        for (int x = 0; x < 3; ++x) gg[i][x] = kG[i][0] * g(0, x) + kG[i][1] * g(1, x) + kG[i][2] * g(2, x);
      }
      for (int i = 0; i < 4; ++i) {
        for (int j = 0; j < 4; ++j) {
          const double value = gg[i][0] * kG[j][0] + gg[i][1] * kG[j][1] + gg[i][2] * kG[j][2];
          const int64_t at = (((k / 4) * 4 + i) * in_channels + c) * 16 + j * 4 + k % 4;
          u[static_cast<size_t>(at)] = static_cast<float>(value);
        }
      }
    }
  }
  return u;
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

  // The reference's own argument bundle, so its prepare helpers run
  // unchanged; the weights' data only when they are converted (below).
  TensorData w_data;
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
    if (w.dtype == ir::DType::kF32) {
      c.weights_ = w.data;
    } else {  // hybrid: int8 weights dequantised as the reference does
      w_data = constant_data(w);
      TINYFIT_ASSIGN_OR_RETURN(std::vector<float> weights, reference::load_reals(args, w_data, w));
      c.own_weights({as_bytes(weights).begin(), as_bytes(weights).end()});
    }
    TINYFIT_ASSIGN_OR_RETURN(c.bias_float_, reference::load_bias_reals(args, g.out_channels));
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
      const auto channels = static_cast<size_t>(g.out_channels);
      c.weight_sums_ =
          qs8 ? sum_rows<int32_t>(std::span(reinterpret_cast<const int8_t*>(c.weights_.data()), c.weights_.size()),
                                  channels, std::identity{})
              : sum_rows<int32_t>(c.weights_, channels, std::identity{});
    }
    for (const reference::QuantizedMultiplier& m : q.multipliers) {
      c.multiplier_.push_back(m.multiplier);
      c.shift_.push_back(m.shift);
    }
    p.input_offset = -q.input.zero_point;
    p.weight_offset = -q.weights.zero_point.front();
    // The largest |x + offset| of the input's element range.
    const int64_t max_input = std::max(std::abs((qs8 ? -128 : 0) + int64_t{p.input_offset}),
                                       std::abs((qs8 ? 127 : 255) + int64_t{p.input_offset}));
    c.absolute_sums_ = sum_absolute_weights(c.weights_, qs8, p.weight_offset, g.out_channels,
                                            node.op == ir::OpType::kDepthwiseConv2D);
    restate_constant_channels(c.absolute_sums_, c.bias_int_, c.multiplier_, c.shift_);
    c.weights_channel_last_ = node.op == ir::OpType::kDepthwiseConv2D;
    const std::vector<bool> negatable = find_negatable_channels(c.weights_, qs8, p.weight_offset,
                                                                c.absolute_sums_.size(), c.weights_channel_last_,
                                                                c.bias_int_, c.multiplier_);
    std::vector<int32_t> fast_multiplier = c.multiplier_;  // as pack_for will have them
    for (size_t ch = 0; ch < negatable.size(); ++ch) {
      if (negatable[ch]) fast_multiplier[ch] = -fast_multiplier[ch];
    }
    c.requantize_fits_ = check_requantize_fits(c.absolute_sums_, c.bias_int_, fast_multiplier, c.shift_, max_input);
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

RequantRecords requant_records_of(ConvPrimitive primitive) {
  return primitive == ConvPrimitive::kIm2colDsp || primitive == ConvPrimitive::kIm2colWideDsp ||
                 primitive == ConvPrimitive::kDepthwiseDsp
             ? RequantRecords::kFoldedWhenAllFold
             : RequantRecords::kPlain;
}

void ConvConstants::pack_for(ConvPrimitive primitive, bool accumulates, RequantRecords records) {
  tf_conv_params& p = params_;
  if (is_float()) {
    if (primitive == ConvPrimitive::kWinogradFloat) {
      const std::vector<float> u = transform_winograd_weights(reinterpret_cast<const float*>(weights_.data()),
                                                              p.out_channels, p.in_channels);
      own_weights({as_bytes(u).begin(), as_bytes(u).end()});
    }
    return;
  }
  weight_sums_.clear();
  p.weight_sums = nullptr;
  if (!accumulates) {
    // Negated channels change the weights: they must be this object's own
    // copy, not the graph's constant that weights_ may view.
    const bool negates = std::any_of(multiplier_.begin(), multiplier_.end(), [](int32_t m) { return m < 0; });
    if (negates && (owned_weights_.empty() || weights_.data() != owned_weights_.data())) {
      own_weights({weights_.begin(), weights_.end()});
    }
    for (size_t c = 0; c < multiplier_.size(); ++c) {
      const int32_t left = std::max(shift_[c], 0), right = std::max(-shift_[c], 0);
      if (multiplier_[c] < 0) {
        // requantize_fits() held, so the channel negates (find_negatable_channels).
        TINYFIT_CHECK(dtype_token_ == "qs8" && p.weight_offset == 0) << "a negative multiplier to negate";
        visit_channel_weights(owned_weights_, multiplier_.size(), weights_channel_last_, c,
                              [](uint8_t& raw) { raw = static_cast<uint8_t>(-static_cast<int8_t>(raw)); });
        bias_int_[c] = -bias_int_[c];
        multiplier_[c] = -multiplier_[c];
      }
      requant_.push_back({multiplier_[c], left + 1, right > 0 ? int32_t{1} << (right - 1) : 0, right > 0 ? -1 : 0,
                          right});
    }
    p.requant = requant_.data();
    if (records == RequantRecords::kFoldedWhenAllFold) {
      if (auto folded = fold_requantization(requant_, absolute_sums_, bias_int_, p.output_offset)) {
        // The kernel then reads only these: the plain records would be
        // flash no call reads (about 20 bytes a channel).
        requant_folded_ = std::move(*folded);
        p.requant_folded = requant_folded_.data();
        requant_ = {};
        p.requant = nullptr;
      }
    }
    multiplier_.clear();
    shift_.clear();
    p.multiplier = p.shift = nullptr;
  }
  const bool is_signed = dtype_token_ == "qs8";
  // A stored weight byte as the kernels' lanes hold it: its value plus the weight offset.
  const auto offset_weight = [&](uint8_t raw) -> int32_t {
    return (is_signed ? static_cast<int8_t>(raw) : raw) + p.weight_offset;
  };
  const auto channels = static_cast<size_t>(p.out_channels);
  if (primitive == ConvPrimitive::kDepthwiseDsp || primitive == ConvPrimitive::kDepthwisePlanarDsp) {
    // int16 lanes of (weight + offset), [ceil(C/4)][KH][KW][4], two per word.
    const size_t taps = weights_.size() / channels, groups = (channels + 3) / 4;
    std::vector<uint32_t> words(groups * taps * 2, 0);
    for (size_t t = 0; t < taps; ++t) {
      for (size_t ch = 0; ch < channels; ++ch) {
        const int32_t w = offset_weight(weights_[t * channels + ch]);
        const uint32_t lane = static_cast<uint16_t>(static_cast<int16_t>(w));
        words[((ch / 4) * taps + t) * 2 + (ch % 4) / 2] |= ch % 2 ? lane << 16 : lane;
      }
    }
    own_weights({as_bytes(words).begin(), as_bytes(words).end()});
    weight_c_type_ = "uint32_t";
  } else if (primitive == ConvPrimitive::kDepthwiseChannelDsp) {
    // int32 (weight + offset), [C][KH][KW]: a channel's window contiguous.
    const size_t taps = weights_.size() / channels;
    std::vector<uint32_t> words(channels * taps, 0);
    for (size_t t = 0; t < taps; ++t) {
      for (size_t ch = 0; ch < channels; ++ch) {
        words[ch * taps + t] = static_cast<uint32_t>(offset_weight(weights_[t * channels + ch]));
      }
    }
    own_weights({as_bytes(words).begin(), as_bytes(words).end()});
    weight_c_type_ = "uint32_t";
  } else if (primitive == ConvPrimitive::kIm2colWideDsp) {
    // The weights widened (plus the weight offset) into int16 lanes, in
    // channel pairs (2i, 2i + 1): per pair and group of four taps k..k+3,
    // four 32-bit words: channel 2i's lanes (k, k + 2) and (k + 1, k + 3),
    // then 2i + 1's (zeros past the row and the last channel), so the GEMM
    // loads them without widening.
    const size_t row = weights_.size() / channels, groups = (row + 3) / 4, pairs = (channels + 1) / 2;
    std::vector<uint32_t> words(pairs * groups * 4, 0);
    for (size_t ch = 0; ch < channels; ++ch) {
      for (size_t k = 0; k < row; ++k) {
        const int32_t w = offset_weight(weights_[ch * row + k]);
        const uint32_t lane = static_cast<uint16_t>(static_cast<int16_t>(w));
        words[((ch / 2) * groups + k / 4) * 4 + (ch % 2) * 2 + k % 2] |= (k % 4) / 2 ? lane << 16 : lane;
      }
    }
    own_weights({as_bytes(words).begin(), as_bytes(words).end()});
    weight_c_type_ = "uint64_t";
  } else if (primitive == ConvPrimitive::kIm2colDsp && !accumulates) {
    // Rows rounded up to a multiple of four with zeros, in channel pairs
    // (2i, 2i + 1): one 64-bit word per pair and group of four taps, channel
    // 2i's four bytes then 2i + 1's (zeros past the last channel).
    const size_t row = weights_.size() / channels, groups = (row + 3) / 4, pairs = (channels + 1) / 2;
    std::vector<uint8_t> packed(pairs * groups * 8, 0);
    for (size_t ch = 0; ch < channels; ++ch) {
      for (size_t k = 0; k < row; ++k) {
        packed[((ch / 2) * groups + k / 4) * 8 + (ch % 2) * 4 + k % 4] = weights_[ch * row + k];
      }
    }
    own_weights(std::move(packed));
    weight_c_type_ = "uint64_t";
  } else if (primitive == ConvPrimitive::kIm2colDsp) {
    // Rows rounded up to a multiple of four, then 4 more bytes, all zero.
    const size_t row = weights_.size() / channels, row4 = (row + 3) / 4 * 4;
    std::vector<uint8_t> packed(channels * row4 + 4, 0);
    for (size_t ch = 0; ch < channels; ++ch) {
      std::copy_n(weights_.begin() + static_cast<ptrdiff_t>(ch * row), row,
                  packed.begin() + static_cast<ptrdiff_t>(ch * row4));
    }
    own_weights(std::move(packed));
  }
}

void ConvConstants::own_weights(std::vector<uint8_t> bytes) {
  owned_weights_ = std::move(bytes);
  weights_ = owned_weights_;
  params_.weights = weights_.data();
}

void ConvConstants::drop_weights() {
  owned_weights_ = {};
  weights_ = {};
  weight_sums_ = {};
  params_.weights = nullptr;
  params_.weight_sums = nullptr;
}

std::string ConvConstants::emit(CallEmitter& emitter) const {
  const tf_conv_params& p = params_;
  const std::string null_array = "(const int32_t*)0";
  const std::string weights =
      weights_.empty() ? "(const void*)0" : emitter.define_array(weight_c_type_, "weights", weights_);
  const std::string bias = is_float() ? emitter.define_array("float", "bias", as_bytes(bias_float_))
                                      : emitter.define_array("int32_t", "bias", as_bytes(bias_int_));
  const std::string multiplier =
      multiplier_.empty() ? null_array : emitter.define_array("int32_t", "multiplier", as_bytes(multiplier_));
  const std::string shift = shift_.empty() ? null_array : emitter.define_array("int32_t", "shift", as_bytes(shift_));
  const std::string weight_sums =
      weight_sums_.empty() ? null_array : emitter.define_array("int32_t", "weight_sums", as_bytes(weight_sums_));
  // tf_requant_channel records as int32_t words (five per channel), read
  // through a pointer to the struct (an aggregate of int32_t members).
  const std::string requant =
      requant_.empty() ? "(const tf_requant_channel*)0"
                       : "(const tf_requant_channel*)" + emitter.define_array("int32_t", "requant", as_bytes(requant_));
  const std::string requant_folded =
      requant_folded_.empty()
          ? "(const tf_requant_folded*)0"
          : "(const tf_requant_folded*)" + emitter.define_array("int32_t", "requant_folded", as_bytes(requant_folded_));
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
       {"requant", requant},
       {"requant_folded", requant_folded},
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

ConvCallFacts describe_conv_call(const KernelCallContext& context, const ConvConstants& constants) {
  const ir::Node& node = context.node();
  const plan::KernelCall& call = context.call;
  const tf_conv_params& p = constants.params();
  ConvCallFacts facts;
  facts.op = node.op;
  facts.quantized = !constants.is_float();
  facts.mode = call.mode;
  facts.row_chunk = node.op != ir::OpType::kFullyConnected && computes_rows_or_cols(call);
  facts.in_place = call.mode == plan::CallMode::kWhole && call.inputs[0].buffer == call.outputs[0].buffer;
  if (node.op != ir::OpType::kFullyConnected) {
    const auto& a = node.attr<ir::ConvAttrs>();
    facts.kernel_h = a.kernel_h, facts.kernel_w = a.kernel_w;
    facts.stride_h = a.stride_h, facts.stride_w = a.stride_w;
    facts.dilation_h = a.dilation_h, facts.dilation_w = a.dilation_w;
    facts.pad_top = a.pad.top, facts.pad_left = a.pad.left;
    facts.pad_bottom = a.pad.bottom, facts.pad_right = a.pad.right;
  }
  facts.groups = p.groups;
  facts.depth_multiplier = p.depth_multiplier;
  facts.in_channels = p.in_channels;
  facts.out_cols = call.outputs[0].rank() == 4 ? call.outputs[0].shape[2] : 0;
  facts.in_features = p.in_features;
  facts.call_in_channels = call.inputs[0].shape.back();
  // A view's shape is the tensor's: a chunk's width is its loop's tile.
  facts.call_out_channels = call.outputs[0].shape.back();
  if (const plan::Sweep* sweep = call.outputs[0].find_sweep(call.outputs[0].rank() - 1)) {
    const std::vector<const plan::Loop*> nest = plan::find_loop_nest(context.plan, call);
    if (sweep->loop >= 0 && static_cast<size_t>(sweep->loop) < nest.size()) {
      facts.call_out_channels = std::min(facts.call_out_channels, nest[static_cast<size_t>(sweep->loop)]->tile);
    }
  }
  facts.rows_contiguous = true;
  if (node.op == ir::OpType::kFullyConnected && p.in_features != p.in_channels) {
    // Features spanning (w, c) or (h, w, c): the view must be dense there.
    const plan::View& x = call.inputs[0];
    const size_t r = x.shape.size();
    const int64_t row_elements = r >= 3 ? x.shape[r - 2] * x.shape[r - 1] : 0;
    facts.rows_contiguous = r >= 3 && x.strides[r - 2] == x.shape[r - 1] &&
                            (p.in_features == row_elements || x.strides[r - 3] == row_elements);
  }
  if (call.workspace >= 0) {
    const plan::PlanBuffer& workspace = context.plan.buffers.at(static_cast<size_t>(call.workspace));
    facts.workspace_bytes = workspace.bytes;
    facts.workspace_alignment = workspace.alignment;
  }
  facts.requantize_fits = constants.requantize_fits();
  facts.symmetric_weights = constants.dtype_token() == "qu8" || p.weight_offset == 0;
  facts.wide_weights = call.wide_weights;
  return facts;
}

}  // namespace tinyfit::exec
