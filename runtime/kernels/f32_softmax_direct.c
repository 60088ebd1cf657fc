#include <math.h>

#include "tinyfit/normalization.h"

void tf_f32_softmax_direct(const tf_view* input, const tf_view* output, const tf_f32_softmax_params* params) {
  const int axis = params->axis;
  const int32_t depth = input->shape[axis];
  const size_t in_step = (size_t)input->strides[axis];
  const size_t out_step = (size_t)output->strides[axis];
  int other[3];
  int k = 0, d;
  int32_t i0, i1, i2, j;
  for (d = 0; d < 4; ++d) {
    if (d != axis) other[k++] = d;
  }
  if (depth == 0) return; /* an empty row has no maximum to read */
  for (i0 = 0; i0 < input->shape[other[0]]; ++i0) {
    for (i1 = 0; i1 < input->shape[other[1]]; ++i1) {
      for (i2 = 0; i2 < input->shape[other[2]]; ++i2) {
        const float* x = (const float*)input->data + (size_t)i0 * (size_t)input->strides[other[0]] +
                         (size_t)i1 * (size_t)input->strides[other[1]] + (size_t)i2 * (size_t)input->strides[other[2]];
        float* y = (float*)output->data + (size_t)i0 * (size_t)output->strides[other[0]] +
                   (size_t)i1 * (size_t)output->strides[other[1]] + (size_t)i2 * (size_t)output->strides[other[2]];
        float max = x[0];
        float sum = 0.0f;
        for (j = 1; j < depth; ++j) {
          if (x[(size_t)j * in_step] > max) max = x[(size_t)j * in_step];
        }
        /* The exps go to y first (each x read before its own y is written:
         * in place is safe), then y is divided by their sum. */
        for (j = 0; j < depth; ++j) {
          const float e = expf(params->beta * (x[(size_t)j * in_step] - max));
          y[(size_t)j * out_step] = e;
          sum += e;
        }
        for (j = 0; j < depth; ++j) y[(size_t)j * out_step] /= sum;
      }
    }
  }
}
