/* Data movement kernels: copies between views, whatever the element type
 * (x8: elements of `element_bytes` bytes), plus the one data-movement
 * operation that touches values: concatenating a quantized input whose scale
 * or zero point differs from the output's (TFLite ConcatenationWithScaling).
 *
 * Axes are those of tf_view (NHWC, a tensor of lower rank padded on the left).
 * Views may be slices of larger tensors (any non-negative strides); input and
 * output never overlap, but where a kernel says otherwise. */
#ifndef TINYFIT_DATA_MOVEMENT_H_
#define TINYFIT_DATA_MOVEMENT_H_

#include "tinyfit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies every element of `input` to the same index of `output` (same shape,
 * any strides, elements of `element_bytes` bytes). PEX Slice and
 * Post-concatenate when a producer cannot write in place. The two may lie in
 * one buffer when the output starts whole rows before the input with the
 * same strides (BlockConcat moving a carried buffer's kept rows to its front:
 * copied front to back, each row read before it is overwritten), or at the
 * same place (then nothing moves). Two dense views move as one block, a
 * word at a time. */
void tf_x8_copy(const tf_view* input, const tf_view* output, int32_t element_bytes);

/* One input of a Concat: `input` lands in `output` starting at index `offset`
 * along `axis` (0..3); every other axis matches. One call per input. */
typedef struct tf_concat_params {
  int32_t axis;
  int32_t offset;
  int32_t element_bytes;
} tf_concat_params;
void tf_x8_concat_copy(const tf_view* input, const tf_view* output, const tf_concat_params* params);

/* One quantized input of a Concat whose parameters differ from the output's:
 * y = clamp(round(x * scale + bias) + output_zero_point) with
 * scale = input_scale * (1 / output_scale) and bias = -input_zero_point * scale
 * in float, round half away from zero (TFLite ConcatenationWithScaling). */
typedef struct tf_concat_rescale_params {
  int32_t axis;
  int32_t offset;
  float scale;
  float bias;
  int32_t output_zero_point;
} tf_concat_rescale_params;
void tf_qs8_concat_rescale(const tf_view* input, const tf_view* output, const tf_concat_rescale_params* params);
void tf_qu8_concat_rescale(const tf_view* input, const tf_view* output, const tf_concat_rescale_params* params);

/* output[i] = input[begin + i * step] on every axis, for i over the output's
 * shape (Slice; Split is one slice per output). The output may lie over the
 * input as tf_copy_strided allows (tinyfit/strided_copy.h): copied front to
 * back, every element read before anything overwrites it. */
typedef struct tf_slice_params {
  int32_t begin[4];
  int32_t step[4];
  int32_t element_bytes;
} tf_slice_params;
void tf_x8_slice(const tf_view* input, const tf_view* output, const tf_slice_params* params);

/* output[i0, i1, i2, i3] = input[j] with j[perm[d]] = i[d] (ONNX Transpose). */
typedef struct tf_transpose_params {
  int32_t perm[4];
  int32_t element_bytes;
} tf_transpose_params;
void tf_x8_transpose(const tf_view* input, const tf_view* output, const tf_transpose_params* params);

/* Constant padding: output[i] = input[i - before] inside the input, else the
 * element whose bytes are fill[0 .. element_bytes) (element_bytes <= 4;
 * quantized tensors pad with their quantized pad value, the zero point for 0). */
typedef struct tf_pad_params {
  int32_t before[4];
  int32_t element_bytes;
  uint8_t fill[4];
} tf_pad_params;
void tf_x8_pad(const tf_view* input, const tf_view* output, const tf_pad_params* params);

/* Channel shuffle (ShuffleNet): the channels of every pixel as a groups x
 * (C / groups) matrix, transposed: output channel i * groups + j is input
 * channel j * (C / groups) + i. Both views hold whole pixels (strides[3] == 1). */
typedef struct tf_channel_shuffle_params {
  int32_t groups;
  int32_t element_bytes;
} tf_channel_shuffle_params;
void tf_x8_channel_shuffle(const tf_view* input, const tf_view* output, const tf_channel_shuffle_params* params);

/* Embedding lookup (Gather of table rows): for each int32 index of `indices`
 * (walked in row-major order of its view), the table row it names is copied
 * to the next `row_bytes` bytes of `output`, which must be dense. An index
 * outside [0, rows) is clamped into it: defined behaviour on untrusted token
 * ids, never a read outside the table (the compiler's reference reports it). */
typedef struct tf_gather_params {
  const uint8_t* table;
  int32_t rows;
  int32_t row_bytes;
} tf_gather_params;
void tf_x8_gather(const tf_view* indices, const tf_view* output, const tf_gather_params* params);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_DATA_MOVEMENT_H_ */
