/* The per-element arithmetic of the quantized element-wise kernels, shared by
 * int8 and uint8 (the element type only changes loads and stores). Bit for
 * bit exec/reference/elementwise.cc and quantize.cc. */
#ifndef TINYFIT_KERNEL_TEMPLATES_QUANTIZED_ARITHMETIC_H_
#define TINYFIT_KERNEL_TEMPLATES_QUANTIZED_ARITHMETIC_H_

#include <math.h>

#include "tinyfit/elementwise.h"
#include "tinyfit/fixed_point.h"

static inline int32_t tf_clamp_int32(int32_t x, int32_t lo, int32_t hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

/* TFLite add.cc / sub.cc: both inputs to a common scale, then the output's. */
static inline int32_t tf_quantized_add_sub(int32_t u, int32_t v, const tf_quantized_add_params* p,
                                           int32_t subtract) {
  const int32_t su = tf_multiply_by_quantized_multiplier((u - p->a_zero_point) * (1 << p->left_shift),
                                                         p->a_multiplier, p->a_shift);
  const int32_t sv = tf_multiply_by_quantized_multiplier((v - p->b_zero_point) * (1 << p->left_shift),
                                                         p->b_multiplier, p->b_shift);
  const int32_t raw = subtract ? su - sv : su + sv;
  const int32_t y =
      tf_multiply_by_quantized_multiplier(raw, p->output_multiplier, p->output_shift) + p->output_zero_point;
  return tf_clamp_int32(y, p->output_min, p->output_max);
}

static inline int32_t tf_quantized_mul(int32_t u, int32_t v, const tf_quantized_mul_params* p) {
  const int32_t product = (u - p->a_zero_point) * (v - p->b_zero_point);
  const int32_t y =
      tf_multiply_by_quantized_multiplier(product, p->output_multiplier, p->output_shift) + p->output_zero_point;
  return tf_clamp_int32(y, p->output_min, p->output_max);
}

/* Round half away from zero, saturating to int32 (NaN -> INT32_MIN), as
 * TfLiteRound followed by the reference's round_to_int32. */
static inline int32_t tf_round_to_int32(float x) {
  const float r = roundf(x);
  if (!(r >= -2147483648.0f)) return INT32_MIN;
  if (r >= 2147483648.0f) return INT32_MAX;
  return (int32_t)r;
}

/* TFLite AffineQuantize of one float into [lo, hi]. */
static inline int32_t tf_quantize_float(float x, const tf_quantize_params* p, int32_t lo, int32_t hi) {
  const int64_t q = (int64_t)tf_round_to_int32(x / p->scale) + p->zero_point;
  return q < lo ? lo : (q > hi ? hi : (int32_t)q);
}

#endif /* TINYFIT_KERNEL_TEMPLATES_QUANTIZED_ARITHMETIC_H_ */
