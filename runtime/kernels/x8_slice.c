#include "tinyfit/data_movement.h"
#include "tinyfit/strided_copy.h"

void tf_x8_slice(const tf_view* input, const tf_view* output, const tf_slice_params* params) {
  const uint8_t* start = (const uint8_t*)input->data;
  int32_t strides[4];
  int d;
  for (d = 0; d < 4; ++d) {
    start += (size_t)params->begin[d] * (size_t)input->strides[d] * (size_t)params->element_bytes;
    strides[d] = input->strides[d] * params->step[d];
  }
  tf_copy_strided(start, strides, (uint8_t*)output->data, output->strides, output->shape, params->element_bytes);
}
