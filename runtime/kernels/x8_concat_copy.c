#include "tinyfit/data_movement.h"
#include "tinyfit/strided_copy.h"

void tf_x8_concat_copy(const tf_view* input, const tf_view* output, const tf_concat_params* params) {
  uint8_t* start = (uint8_t*)output->data + (size_t)params->offset * (size_t)output->strides[params->axis] *
                                                (size_t)params->element_bytes;
  tf_copy_strided((const uint8_t*)input->data, input->strides, start, output->strides, input->shape,
                  params->element_bytes);
}
