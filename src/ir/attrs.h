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
};

struct PoolAttrs {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  Padding2D pad;
  // AveragePool: divide by the full window (ONNX count_include_pad=1) or by the
  // number of in-bounds elements (TFLite, ONNX default).
  bool count_include_pad = false;
};

struct ReduceAttrs {
  std::vector<int> axes;  // sorted, non-negative
  bool keep_dims = true;
};

struct SoftmaxAttrs {
  int axis = -1;  // normalised to non-negative at import
  float beta = 1.0f;
};

struct LrnAttrs {
  int64_t size = 1;
  float alpha = 1e-4f, beta = 0.75f, bias = 1.0f;
};

struct ConcatAttrs {
  int axis = 0;
};

struct SplitAttrs {
  int axis = 0;
  std::vector<int64_t> sizes;  // one per output, summing to the input extent
};

struct SliceAttrs {
  // One entry per input axis, normalised: 0 <= begin, end <= extent, step >= 1.
  std::vector<int64_t> begin, end, step;
};

struct TransposeAttrs {
  std::vector<int> perm;
};

struct PadAttrs {
  std::vector<int64_t> before, after;  // per axis, non-negative (constant mode)
  float value = 0.0f;                  // quantized tensors pad with the zero point
};

struct ClipAttrs {
  float min = -std::numeric_limits<float>::infinity();
  float max = std::numeric_limits<float>::infinity();
};

using OpAttrs = std::variant<std::monostate, ConvAttrs, PoolAttrs, ReduceAttrs, SoftmaxAttrs,
                             LrnAttrs, ConcatAttrs, SplitAttrs, SliceAttrs, TransposeAttrs,
                             PadAttrs, ClipAttrs>;

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
};

}  // namespace tinyfit::ir
