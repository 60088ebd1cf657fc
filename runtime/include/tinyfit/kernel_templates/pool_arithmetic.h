/* How the pooling kernels finish a window, shared by int8 and uint8: bit for
 * bit exec/reference/pool.cc. */
#ifndef TINYFIT_KERNEL_TEMPLATES_POOL_ARITHMETIC_H_
#define TINYFIT_KERNEL_TEMPLATES_POOL_ARITHMETIC_H_

#include "tinyfit/kernel_templates/float_arithmetic.h"
#include "tinyfit/kernel_templates/quantized_arithmetic.h"
#include "tinyfit/pool.h"

/* A value on the input's scale (an element or an average) on the output's:
 * through real values in double, rounded in float like the reference. */
static inline int32_t tf_pool_requantize(double value, const tf_quantized_pool_params* p) {
  const double real = (double)p->input_scale * (value - p->input_zero_point);
  return tf_round_to_int32((float)(real / (double)p->output_scale)) + p->output_zero_point;
}

static inline int32_t tf_quantized_max_finish(int32_t max, int32_t count, const tf_quantized_pool_params* p) {
  int32_t value = max;
  if (count == 0) {
    value = p->output_zero_point;
  } else if (p->requantize) {
    value = tf_pool_requantize((double)max, p);
  }
  return tf_clamp_int32(value, p->output_min, p->output_max);
}

static inline int32_t tf_quantized_average_finish(int32_t sum, int32_t count, const tf_quantized_pool_params* p) {
  const int32_t window = p->kernel_h * p->kernel_w;
  const int32_t divisor = p->count_include_pad ? window : count;
  int32_t value;
  /* A padded tap is real 0, the zero point, when the divisor counts it. */
  if (p->count_include_pad) sum += (window - count) * p->input_zero_point;
  if (divisor == 0) {
    value = p->output_zero_point;
  } else if (!p->requantize) {
    value = sum > 0 ? (sum + divisor / 2) / divisor : (sum - divisor / 2) / divisor;
  } else {
    value = tf_pool_requantize((double)sum / divisor, p);
  }
  return tf_clamp_int32(value, p->output_min, p->output_max);
}

/* std::max(acc, x) of the reference's float max. */
static inline float tf_float_max_tap(float acc, float x) { return acc < x ? x : acc; }

static inline float tf_f32_average_finish(double sum, int32_t count, const tf_f32_pool_params* p) {
  const int32_t divisor = p->count_include_pad ? p->kernel_h * p->kernel_w : count;
  const float value = (float)(sum / (double)(divisor > 1 ? divisor : 1));
  return tf_clamp_float(value, p->output_min, p->output_max);
}

#endif /* TINYFIT_KERNEL_TEMPLATES_POOL_ARITHMETIC_H_ */
