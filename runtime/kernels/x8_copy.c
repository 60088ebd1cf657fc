#include "tinyfit/data_movement.h"

void tf_x8_copy(const tf_view* input, const tf_view* output, int32_t element_bytes) {
  const uint8_t* in = (const uint8_t*)input->data;
  uint8_t* out = (uint8_t*)output->data;
  int32_t n, h, w, b;
  int32_t c_bytes = input->shape[3] * element_bytes;
  /* Channels are contiguous in both views (strides[3] == 1): copy rows of
   * channels as bytes. */
  for (n = 0; n < input->shape[0]; ++n) {
    for (h = 0; h < input->shape[1]; ++h) {
      for (w = 0; w < input->shape[2]; ++w) {
        const uint8_t* src = in + ((size_t)n * input->strides[0] + (size_t)h * input->strides[1] +
                                   (size_t)w * input->strides[2]) * (size_t)element_bytes;
        uint8_t* dst = out + ((size_t)n * output->strides[0] + (size_t)h * output->strides[1] +
                              (size_t)w * output->strides[2]) * (size_t)element_bytes;
        for (b = 0; b < c_bytes; ++b) dst[b] = src[b];
      }
    }
  }
}
