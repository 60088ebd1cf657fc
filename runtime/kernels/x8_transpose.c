#include "tinyfit/data_movement.h"
#include "tinyfit/strided_copy.h"

void tf_x8_transpose(const tf_view* input, const tf_view* output, const tf_transpose_params* params) {
  /* Walking the output, axis d steps the input along axis perm[d]. */
  int32_t strides[4];
  int d;
  for (d = 0; d < 4; ++d) strides[d] = input->strides[params->perm[d]];
  tf_copy_strided((const uint8_t*)input->data, strides, (uint8_t*)output->data, output->strides, output->shape,
                  params->element_bytes);
}
