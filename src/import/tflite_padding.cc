#include "import/tflite_padding.h"

#include <algorithm>
#include <string>

namespace tinyfit::import {
namespace {

// Bound on kernels, strides and dilations: far beyond any real model, small
// enough that (out - 1) * stride + kernel * dilation cannot overflow.
constexpr int64_t kMaxWindowParam = int64_t{1} << 20;

Result<int64_t> compute_padding_before_after(tflite::Padding padding, int64_t in, int64_t kernel,
                                             int64_t stride, int64_t dilation, int64_t* after) {
  TINYFIT_ASSIGN_OR_RETURN(int64_t out, compute_tflite_out_extent(padding, in, kernel, stride, dilation));
  const int64_t effective = (kernel - 1) * dilation + 1;
  const int64_t total = std::max<int64_t>((out - 1) * stride + effective - in, 0);
  *after = total - total / 2;
  return total / 2;
}

}  // namespace

Result<int64_t> compute_tflite_out_extent(tflite::Padding padding, int64_t in, int64_t kernel,
                                          int64_t stride, int64_t dilation) {
  for (int64_t v : {kernel, stride, dilation}) {
    if (v < 1 || v > kMaxWindowParam) {
      return fail("kernel " + std::to_string(kernel) + ", stride " + std::to_string(stride) +
                  ", dilation " + std::to_string(dilation) + " must each be in [1, 2^20]");
    }
  }
  const int64_t effective = (kernel - 1) * dilation + 1;
  if (padding == tflite::Padding::SAME) return (in + stride - 1) / stride;
  if (padding != tflite::Padding::VALID) {
    return fail("unknown padding mode " + std::to_string(static_cast<int>(padding)));
  }
  if (in < effective) {
    return fail("VALID window of " + std::to_string(effective) + " does not fit input extent " +
                std::to_string(in));
  }
  return (in - effective + stride) / stride;
}

Result<ir::Padding2D> compute_tflite_padding(tflite::Padding padding, const TfliteWindow& w) {
  ir::Padding2D pad;
  TINYFIT_ASSIGN_OR_RETURN(pad.top, compute_padding_before_after(padding, w.in_rows, w.kernel_h, w.stride_h,
                                                                 w.dilation_h, &pad.bottom));
  TINYFIT_ASSIGN_OR_RETURN(pad.left, compute_padding_before_after(padding, w.in_cols, w.kernel_w, w.stride_w,
                                                                  w.dilation_w, &pad.right));
  return pad;
}

}  // namespace tinyfit::import
