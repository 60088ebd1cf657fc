/* Pooling kernels: MaxPool and AveragePool over the rows and cols of NHWC
 * views, and Mean over any set of axes (GlobalAveragePool is Mean over rows
 * and cols). Channel-wise: the views may hold a chunk of channels or be a
 * channel slice of a larger tensor; every index goes through the strides.
 * Quantized results are bit-identical to the reference interpreter's
 * (exec/reference/pool.cc, mean.cc: TFLite's integer arithmetic). */
#ifndef TINYFIT_POOL_H_
#define TINYFIT_POOL_H_

#include <math.h> /* INFINITY in generated parameter structs */

#include "tinyfit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Output (oy, ox) reads input rows oy*stride_h - pad_top + [0, kernel_h) and
 * cols likewise; taps outside the input are skipped (padding). Quantized:
 * MaxPool keeps the largest value; AveragePool divides the int32 sum by the
 * in-bounds tap count (or by kernel_h*kernel_w with count_include_pad, padded
 * taps then counting as the input zero point), rounding halves away from
 * zero. With requantize set (input and output parameters differ, ONNX QDQ)
 * the result is requantised through real values in double, as the reference
 * does. Then clamped to [output_min, output_max]; a window with no tap gives
 * the output zero point. */
typedef struct tf_quantized_pool_params {
  int32_t kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
  int32_t count_include_pad;
  int32_t requantize;
  float input_scale, output_scale;
  int32_t input_zero_point, output_zero_point;
  int32_t output_min, output_max;
} tf_quantized_pool_params;

/* Float pools: the average is summed in double; then the clamp. */
typedef struct tf_f32_pool_params {
  int32_t kernel_h, kernel_w, stride_h, stride_w, pad_top, pad_left;
  int32_t count_include_pad;
  float output_min, output_max;
} tf_f32_pool_params;

void tf_qs8_maxpool_direct(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_qu8_maxpool_direct(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_f32_maxpool_direct(const tf_view* input, const tf_view* output, const tf_f32_pool_params* params);
void tf_qs8_avgpool_direct(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_qu8_avgpool_direct(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_f32_avgpool_direct(const tf_view* input, const tf_view* output, const tf_f32_pool_params* params);

/* A part of the output from the part of the input its window reads: the
 * output view shows the node's output rows [output->origin[1], + shape[1])
 * and cols [output->origin[2], + shape[2]); the input view shows input rows
 * from input->origin[1] (cols from origin[2]) and must hold every row (col)
 * of the tensor those outputs' windows read; rows outside it are the
 * padding at the tensor's borders. Channels: as the whole call. */
void tf_qs8_maxpool_direct_rows(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_qu8_maxpool_direct_rows(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_f32_maxpool_direct_rows(const tf_view* input, const tf_view* output, const tf_f32_pool_params* params);
void tf_qs8_avgpool_direct_rows(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_qu8_avgpool_direct_rows(const tf_view* input, const tf_view* output, const tf_quantized_pool_params* params);
void tf_f32_avgpool_direct_rows(const tf_view* input, const tf_view* output, const tf_f32_pool_params* params);

/* A global pool (one window over every row and col, no padding) run by
 * bands of rows inside a row loop: accumulate folds the rows its input view
 * shows (global first row input->origin[1]) into an int32 accumulator view
 * of one element per channel, starting it afresh at the tensor's first row
 * (an empty band changes nothing); finalize writes the pooled output from
 * it, finishing the kernel_h x kernel_w window as the whole kernels do. Bit
 * for bit the whole call's result: sums and maxima do not depend on how the
 * rows are grouped. */
void tf_qs8_avgpool_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                      const tf_quantized_pool_params* params);
void tf_qu8_avgpool_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                      const tf_quantized_pool_params* params);
void tf_qs8_maxpool_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                      const tf_quantized_pool_params* params);
void tf_qu8_maxpool_direct_accumulate(const tf_view* input, const tf_view* accumulator,
                                      const tf_quantized_pool_params* params);
void tf_qs8_avgpool_finalize(const tf_view* accumulator, const tf_view* output, const tf_quantized_pool_params* params);
void tf_qu8_avgpool_finalize(const tf_view* accumulator, const tf_view* output, const tf_quantized_pool_params* params);
void tf_qs8_maxpool_finalize(const tf_view* accumulator, const tf_view* output, const tf_quantized_pool_params* params);
void tf_qu8_maxpool_finalize(const tf_view* accumulator, const tf_view* output, const tf_quantized_pool_params* params);

/* Mean over the input view's axes whose bit is set in reduce_mask (bit d:
 * axis d of the rank-4 view). The output view has the input's axes with
 * extent 1 where reduced (keep_dims), or only the kept axes, right-aligned.
 * count = the number of elements averaged into each output. Quantized: TFLite
 * Micro's int8 MEAN: sum of (q - input_zero_point), times the multiplier
 * that folds 1/count in, plus the output zero point, clamped. Float: summed
 * in double, divided by count, clamped. */
typedef struct tf_quantized_mean_params {
  int32_t reduce_mask, keep_dims, count;
  int32_t input_zero_point;
  int32_t multiplier, shift;
  int32_t output_zero_point, output_min, output_max;
} tf_quantized_mean_params;

typedef struct tf_f32_mean_params {
  int32_t reduce_mask, keep_dims, count;
  float output_min, output_max;
} tf_f32_mean_params;

void tf_qs8_mean_direct(const tf_view* input, const tf_view* output, const tf_quantized_mean_params* params);
void tf_qu8_mean_direct(const tf_view* input, const tf_view* output, const tf_quantized_mean_params* params);
void tf_f32_mean_direct(const tf_view* input, const tf_view* output, const tf_f32_mean_params* params);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_POOL_H_ */
