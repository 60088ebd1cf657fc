/* Normalisation kernels: Softmax along one axis, local response
 * normalisation across channels.
 *
 * Axes are those of tf_view (NHWC, a tensor of lower rank padded on the
 * left). Views may be slices of larger tensors (any non-negative strides).
 * Softmax may run in place (output == input, same strides). */
#ifndef TINYFIT_NORMALIZATION_H_
#define TINYFIT_NORMALIZATION_H_

#include "tinyfit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Quantized Softmax with TFLite's integer algorithm (reference_ops::Softmax):
 * exp_table[k] is exp(-k * beta * input_scale) in Q0.31 as TFLite's
 * fixed-point code computes it for the difference -k to the row maximum, or
 * 0 where -k is below TFLite's diff_min (that element then contributes
 * nothing and outputs the minimum); 256 entries cover every difference of
 * 8-bit elements. The kernel sums the exps in Q12.19, takes TFLite's
 * fixed-point reciprocal and writes probabilities on scale 1/256 starting at
 * the element type's minimum. Rows of up to 4095 elements: the Q12.19 sum
 * of 4096 maximal exps would overflow int32, in TFLite as here. */
typedef struct tf_softmax_lut_params {
  int32_t axis;
  const int32_t* exp_table;
} tf_softmax_lut_params;
void tf_qs8_softmax_lut(const tf_view* input, const tf_view* output, const tf_softmax_lut_params* params);
void tf_qu8_softmax_lut(const tf_view* input, const tf_view* output, const tf_softmax_lut_params* params);

/* Float Softmax: y = exp(beta * (x - max)) / sum, with expf. */
typedef struct tf_f32_softmax_params {
  int32_t axis;
  float beta;
} tf_f32_softmax_params;
void tf_f32_softmax_direct(const tf_view* input, const tf_view* output, const tf_f32_softmax_params* params);

/* Float LRN across channels (ONNX): y = x / (bias + alpha / size * sum of x^2
 * over channels [c - (size-1)/2, c + size/2])^beta, then clamped to
 * [output_min, output_max] (the fused activation). */
typedef struct tf_lrn_params {
  int32_t size;
  float alpha;
  float beta;
  float bias;
  float output_min;
  float output_max;
} tf_lrn_params;
void tf_f32_lrn_direct(const tf_view* input, const tf_view* output, const tf_lrn_params* params);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_NORMALIZATION_H_ */
