/* Data movement kernels: copies between views, whatever the element type. */
#ifndef TINYFIT_DATA_MOVEMENT_H_
#define TINYFIT_DATA_MOVEMENT_H_

#include "tinyfit/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies every element of `input` to the same index of `output` (same shape,
 * any strides, elements of `element_bytes` bytes). PEX Slice and
 * Post-concatenate when a producer cannot write in place. Overlapping views
 * are not allowed. */
void tf_x8_copy(const tf_view* input, const tf_view* output, int32_t element_bytes);

#ifdef __cplusplus
}
#endif

#endif /* TINYFIT_DATA_MOVEMENT_H_ */
