/* How the Mean kernels finish a sum, shared by int8 and uint8: bit for bit
 * exec/reference/mean.cc (TFLite Micro's int8 MEAN). */
#ifndef TINYFIT_KERNEL_TEMPLATES_MEAN_ARITHMETIC_H_
#define TINYFIT_KERNEL_TEMPLATES_MEAN_ARITHMETIC_H_

#include "tinyfit/kernel_templates/float_arithmetic.h"
#include "tinyfit/kernel_templates/quantized_arithmetic.h"
#include "tinyfit/pool.h"

static inline int32_t tf_quantized_mean_finish(int32_t sum, const tf_quantized_mean_params* p) {
  /* int64 like the reference, then truncated to int32 as it does. */
  const int32_t shifted_sum = (int32_t)((int64_t)sum - (int64_t)p->input_zero_point * p->count);
  const int32_t y = tf_multiply_by_quantized_multiplier(shifted_sum, p->multiplier, p->shift) + p->output_zero_point;
  return tf_clamp_int32(y, p->output_min, p->output_max);
}

static inline float tf_f32_mean_finish(double sum, const tf_f32_mean_params* p) {
  return tf_clamp_float((float)(sum / (double)p->count), p->output_min, p->output_max);
}

#endif /* TINYFIT_KERNEL_TEMPLATES_MEAN_ARITHMETIC_H_ */
