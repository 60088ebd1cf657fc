#include "tinyfit/data_movement.h"
#include "tinyfit/dsp.h"
#include "tinyfit/strided_copy.h"

/* Whether `view`'s elements lie back to back in n, h, w, c order (axes of
 * extent 1 may have any stride). */
static int is_dense(const tf_view* view) {
  int32_t next = 1; /* the stride a dense layout has at this axis */
  int axis;
  for (axis = 3; axis >= 0; --axis) {
    if (view->shape[axis] != 1 && view->strides[axis] != next) return 0;
    next *= view->shape[axis];
  }
  return 1;
}

/* Copies `bytes` bytes front to back, four words per step: right when `dst`
 * does not start after `src` (BlockConcat's kept rows move toward the
 * front), as every word is read before a store can reach it. No libc call:
 * a bare-metal firmware may link no memmove, and the board's memcpy may be
 * a byte loop. */
static void copy_forward(uint8_t* dst, const uint8_t* src, size_t bytes) {
  size_t i = 0;
  for (; i + 16 <= bytes; i += 16) {
    tf_store_u32(dst + i, tf_load_u32(src + i));
    tf_store_u32(dst + i + 4, tf_load_u32(src + i + 4));
    tf_store_u32(dst + i + 8, tf_load_u32(src + i + 8));
    tf_store_u32(dst + i + 12, tf_load_u32(src + i + 12));
  }
  for (; i + 4 <= bytes; i += 4) tf_store_u32(dst + i, tf_load_u32(src + i));
  for (; i < bytes; ++i) dst[i] = src[i];
}

void tf_x8_copy(const tf_view* input, const tf_view* output, int32_t element_bytes) {
  if (input->data == output->data) return; /* the same elements, already in place */
  if (is_dense(input) && is_dense(output)) {
    const uint8_t* src = (const uint8_t*)input->data;
    uint8_t* dst = (uint8_t*)output->data;
    const size_t bytes = (size_t)input->shape[0] * (size_t)input->shape[1] * (size_t)input->shape[2] *
                         (size_t)input->shape[3] * (size_t)element_bytes;
    if (dst < src || dst >= src + bytes) { /* toward the front, or apart */
      copy_forward(dst, src, bytes);
      return;
    }
  }
  tf_copy_strided((const uint8_t*)input->data, input->strides, (uint8_t*)output->data, output->strides,
                  input->shape, element_bytes);
}
