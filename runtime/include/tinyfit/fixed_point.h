/* TFLite's integer requantisation in C99, bit for bit with the reference
 * interpreter's exec/reference/quant_math.cc (gemmlowp
 * SaturatingRoundingDoublingHighMul, RoundingDivideByPOT, TFLite
 * MultiplyByQuantizedMultiplier with double rounding). Multipliers and shifts
 * come from the compiler (quantize_multiplier at prepare time); kernels only
 * apply them. Static inline: no code unless a kernel uses it. */
#ifndef TINYFIT_FIXED_POINT_H_
#define TINYFIT_FIXED_POINT_H_

#include <stdint.h>

/* (a * b * 2 + 2^31 nudge) / 2^32 truncated toward zero; INT32_MIN * INT32_MIN
 * saturates to INT32_MAX. The division by 2^31 is a shift with a bias for
 * negative values (no 64-bit division on the target). */
static inline int32_t tf_saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudged = ab + (ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30)));
  const int64_t toward_zero = nudged >= 0 ? nudged : nudged + (((int64_t)1 << 31) - 1);
  if (a == b && a == INT32_MIN) return INT32_MAX;
  return (int32_t)(toward_zero >> 31);
}

/* x / 2^exponent, halves rounded away from zero; 0 <= exponent <= 31. */
static inline int32_t tf_rounding_divide_by_pot(int32_t x, int32_t exponent) {
  const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

/* x * multiplier * 2^(shift - 31): left shift (wrapping in 32 bits like
 * TFLite), rounding doubling high multiply, rounding right shift. */
static inline int32_t tf_multiply_by_quantized_multiplier(int32_t x, int32_t multiplier, int32_t shift) {
  const int32_t left_shift = shift > 0 ? shift : 0;
  const int32_t right_shift = shift > 0 ? 0 : -shift;
  const int32_t shifted = (int32_t)((uint32_t)x << left_shift);
  return tf_rounding_divide_by_pot(tf_saturating_rounding_doubling_high_mul(shifted, multiplier), right_shift);
}

#endif /* TINYFIT_FIXED_POINT_H_ */
