#include "tinyfit/data_movement.h"
#include "tinyfit/strided_copy.h"

void tf_x8_pad(const tf_view* input, const tf_view* output, const tf_pad_params* params) {
  const size_t eb = (size_t)params->element_bytes;
  uint8_t* out = (uint8_t*)output->data;
  size_t interior = 0;
  int32_t n, h, w, c;
  int d;
  /* Fill everything, then copy the input over the interior: the interior is
   * written twice, which costs less code than walking the border. */
  for (n = 0; n < output->shape[0]; ++n) {
    for (h = 0; h < output->shape[1]; ++h) {
      for (w = 0; w < output->shape[2]; ++w) {
        uint8_t* row = out + ((size_t)n * (size_t)output->strides[0] + (size_t)h * (size_t)output->strides[1] +
                              (size_t)w * (size_t)output->strides[2]) * eb;
        for (c = 0; c < output->shape[3]; ++c) {
          memcpy(row + (size_t)c * (size_t)output->strides[3] * eb, params->fill, eb);
        }
      }
    }
  }
  for (d = 0; d < 4; ++d) interior += (size_t)params->before[d] * (size_t)output->strides[d];
  tf_copy_strided((const uint8_t*)input->data, input->strides, out + interior * eb, output->strides, input->shape,
                  params->element_bytes);
}
