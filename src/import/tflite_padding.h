// TFLite's SAME / VALID padding made explicit, computed exactly as TFLite's
// kernels do (tensorflow/lite/kernels/padding.h): the output extent comes from
// the padding mode, then
//   total  = max((out - 1) * stride + (kernel - 1) * dilation + 1 - in, 0)
//   before = total / 2, after = total - before  (the odd element goes after).
#pragma once

#include <cstdint>

#include "import/tflite_schema.h"
#include "ir/attrs.h"
#include "support/diag.h"

namespace tinyfit::import {

struct TfliteWindow {
  int64_t in_rows = 1, in_cols = 1;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
};

// Output extent along one axis: SAME ceil(in / stride), VALID
// ceil((in - effective_kernel + 1) / stride). Fails when VALID leaves nothing.
Result<int64_t> compute_tflite_out_extent(tflite::Padding padding, int64_t in, int64_t kernel,
                                          int64_t stride, int64_t dilation);

// Validates strides, dilations and kernels (>= 1) and returns explicit padding.
Result<ir::Padding2D> compute_tflite_padding(tflite::Padding padding, const TfliteWindow& window);

}  // namespace tinyfit::import
