/* Finalize of a conv-family accumulate loop, over the element arithmetic of
 * conv_quantized_arithmetic.h or conv_float_arithmetic.h (included first; the including file
 * then defines TF_CONV_FINALIZE). Channel = the views' last axis. */
#include <stddef.h>

void TF_CONV_FINALIZE(const tf_view* accumulator, const tf_view* output, const tf_conv_params* params,
                      int32_t accumulator_bits) {
  int32_t i0, i1, i2, c;
  for (i0 = 0; i0 < output->shape[0]; ++i0) {
    for (i1 = 0; i1 < output->shape[1]; ++i1) {
      for (i2 = 0; i2 < output->shape[2]; ++i2) {
        const ptrdiff_t a = i0 * (ptrdiff_t)accumulator->strides[0] + i1 * (ptrdiff_t)accumulator->strides[1] +
                            i2 * (ptrdiff_t)accumulator->strides[2];
        const ptrdiff_t o = i0 * (ptrdiff_t)output->strides[0] + i1 * (ptrdiff_t)output->strides[1] +
                            i2 * (ptrdiff_t)output->strides[2];
        for (c = 0; c < output->shape[3]; ++c) {
          conv_finalize_element(accumulator->data, a + c, output->data, o + c, c, params, accumulator_bits);
        }
      }
    }
  }
}
