#include "tinyfit/data_movement.h"
#include "tinyfit/strided_copy.h"

void tf_x8_copy(const tf_view* input, const tf_view* output, int32_t element_bytes) {
  if (input->data == output->data) return; /* the same elements, already in place */
  tf_copy_strided((const uint8_t*)input->data, input->strides, (uint8_t*)output->data, output->strides,
                  input->shape, element_bytes);
}
