// Typed attributes of operators, one struct per family (no string-keyed maps).
#pragma once

#include <cstdint>
#include <limits>
#include <variant>
#include <vector>

namespace tinyfit::ir {

// Explicit padding of the two spatial axes (rows, cols), in elements.
struct Padding2D {
  int64_t top = 0, left = 0, bottom = 0, right = 0;
  bool operator==(const Padding2D&) const = default;
};

struct ConvAttrs {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  Padding2D pad;
  int64_t groups = 1;  // Conv2D only; DepthwiseConv2D derives its multiplier from shapes

  bool operator==(const ConvAttrs&) const = default;
};

struct PoolAttrs {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  Padding2D pad;
  // AveragePool: divide by the full window (ONNX count_include_pad=1) or by the
  // number of in-bounds elements (TFLite, ONNX default).
  bool count_include_pad = false;

  bool operator==(const PoolAttrs&) const = default;
};

struct ReduceAttrs {
  std::vector<int> axes;  // sorted, non-negative
  bool keep_dims = true;

  bool operator==(const ReduceAttrs&) const = default;
};

struct SoftmaxAttrs {
  int axis = -1;  // normalised to non-negative at import
  float beta = 1.0f;

  bool operator==(const SoftmaxAttrs&) const = default;
};

struct LrnAttrs {
  int64_t size = 1;
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;

  bool operator==(const LrnAttrs&) const = default;
};

struct ConcatAttrs {
  int axis = 0;

  bool operator==(const ConcatAttrs&) const = default;
};

struct SplitAttrs {
  int axis = 0;
  std::vector<int64_t> sizes;  // one per output, summing to the input extent

  bool operator==(const SplitAttrs&) const = default;
};

struct SliceAttrs {
  // One entry per input axis, normalised: 0 <= begin, end <= extent, step >= 1.
  std::vector<int64_t> begin, end, step;

  bool operator==(const SliceAttrs&) const = default;
};

struct TransposeAttrs {
  std::vector<int> perm;

  bool operator==(const TransposeAttrs&) const = default;
};

struct PadAttrs {
  std::vector<int64_t> before, after;  // per axis, non-negative (constant mode)
  float value = 0.0f;                  // quantized tensors pad with the zero point

  bool operator==(const PadAttrs&) const = default;
};

struct ChannelShuffleAttrs {
  // The last axis (C channels) as a groups x (C / groups) matrix, transposed:
  // output channel i * groups + j is input channel j * (C / groups) + i.
  int64_t groups = 1;

  bool operator==(const ChannelShuffleAttrs&) const = default;
};

// Resize of the rows and cols of an NHWC tensor; ir/resize_sampling.h states
// where each output index samples.
enum class ResizeMode : uint8_t { kNearest, kBilinear };
// The source coordinate x of output index i along an axis (in, out: the
// extents; s: the scale factor, out / in unless the model gives one).
enum class ResizeCoordinates : uint8_t {
  kAsymmetric,        // x = i / s
  kHalfPixel,         // x = (i + 0.5) / s - 0.5
  kPytorchHalfPixel,  // as kHalfPixel; x = -0.5 when s * in == 1
  kAlignCorners,      // x = i * (in - 1) / (out - 1); 0 when out == 1
  kTfHalfPixelForNn,  // x = (i + 0.5) / s
};
// How nearest picks an index from x (an integral x is itself).
enum class NearestRounding : uint8_t { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };
// Whose arithmetic computes x and the interpolation weights: ONNX's (float64)
// or TensorFlow Lite's (float32 coordinates, 10-bit integer weights for
// quantized bilinear).
enum class ResizeArithmetic : uint8_t { kOnnx, kTflite };

struct ResizeAttrs {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordinates coordinates = ResizeCoordinates::kAsymmetric;
  NearestRounding rounding = NearestRounding::kFloor;
  ResizeArithmetic arithmetic = ResizeArithmetic::kOnnx;
  int64_t rows = 1, cols = 1;  // output extents
  // The s of each axis when the model gives scale factors (ONNX scales);
  // 0: out / in.
  double row_scale = 0, col_scale = 0;

  bool operator==(const ResizeAttrs&) const = default;
};

struct ClipAttrs {
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();

  bool operator==(const ClipAttrs&) const = default;
};

// MatMul of two activations: b is read as [..., N, K] when transpose_b (TFLite
// BATCH_MATMUL adj_y, FULLY_CONNECTED with a non-constant weight, Q x K^T).
struct MatMulAttrs {
  bool transpose_b = false;

  bool operator==(const MatMulAttrs&) const = default;
};

// Layer normalisation over the last axis: (x - mean) / sqrt(var + epsilon) * gamma + beta.
struct LayerNormAttrs {
  float epsilon = 1e-5f;

  bool operator==(const LayerNormAttrs&) const = default;
};

// GELU: x * Phi(x) with the exact erf, or its tanh approximation.
struct GeluAttrs {
  bool approximate = false;

  bool operator==(const GeluAttrs&) const = default;
};

using OpAttrs = std::variant<std::monostate, ConvAttrs, PoolAttrs, ReduceAttrs, SoftmaxAttrs,
                             LrnAttrs, ConcatAttrs, SplitAttrs, SliceAttrs, TransposeAttrs,
                             PadAttrs, ClipAttrs, ChannelShuffleAttrs, ResizeAttrs, MatMulAttrs,
                             LayerNormAttrs, GeluAttrs>;

// An activation fused into its producer (DESIGN.md: "activation functions fused
// into the operator before them"): a clamp of the real-valued output. Relu is
// [0, inf), Relu6 [0, 6]. Quantized kernels clamp in the quantized domain.
struct FusedActivation {
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();

  bool is_none() const {
    return min == -std::numeric_limits<float>::infinity() &&
           max == std::numeric_limits<float>::infinity();
  }

  bool operator==(const FusedActivation&) const = default;
};

}  // namespace tinyfit::ir
