// TensorFlow Lite's fixed-point requantization helpers, bit for bit
// (tensorflow/lite/kernels/internal/common.h and quantization_util.cc with the
// default double rounding, which is what TFLite Micro's reference kernels use).
// Names follow TFLite's so each can be compared with its original line by line.
#pragma once

#include <cstdint>

#include "ir/activation_range.h"
#include "ir/attrs.h"
#include "ir/dtype.h"

namespace tinyfit::exec::reference {

// A real multiplier M as M = multiplier * 2^(shift - 31), multiplier in
// [2^30, 2^31) (or 0).
struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int shift = 0;  // > 0: left shift, < 0: right shift
};

// TFLite QuantizeMultiplier: frexp, round half away from zero to Q31, fold a
// rounding carry into the exponent, flush tiny multipliers to zero and clamp
// the shift to 30.
QuantizedMultiplier quantize_multiplier(double real_multiplier);

// gemmlowp SaturatingRoundingDoublingHighMul: (a*b*2 + 2^31 nudge) >> 32, with
// the one overflow case (INT32_MIN * INT32_MIN) saturating to INT32_MAX.
int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b);

// gemmlowp RoundingDivideByPOT: x / 2^exponent rounding halves away from zero
// (0 <= exponent <= 62; gemmlowp itself stops at 31).
int32_t rounding_divide_by_pot(int32_t x, int exponent);

// The int32 accumulator plus its bias as TFLite computes it: in int32, which
// wraps on its targets. A bias near the int32 limits occurs (a dead channel
// of multiplier 0 in MCUNet), and in C++ the plain sum would be undefined.
inline int32_t add_bias_wrapping(int32_t acc, int32_t bias) {
  return static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias));
}

// TFLite MultiplyByQuantizedMultiplier (double rounding): left shift, rounding
// doubling high multiply, then rounding right shift.
int32_t multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int shift);
inline int32_t multiply_by_quantized_multiplier(int32_t x, QuantizedMultiplier m) {
  return multiply_by_quantized_multiplier(x, m.multiplier, m.shift);
}

// The clamp range of a quantized output and TfLiteRound (ir/activation_range.h,
// where the latency model reads them too).
using ir::ActivationRange;
using ir::compute_activation_range_quantized;
using ir::round_to_int32;

}  // namespace tinyfit::exec::reference
