/* The loop every data-movement kernel is made of: copy a 4-axis block of
 * elements between two strided layouts. A header (static inline), not a
 * kernel: each kernel file stays self-contained for generated code. */
#ifndef TINYFIT_STRIDED_COPY_H_
#define TINYFIT_STRIDED_COPY_H_

#include <string.h>

#include "tinyfit/runtime.h"

/* Copies shape[0] x shape[1] x shape[2] x shape[3] elements of
 * `element_bytes` bytes from `src` to `dst`, each walked with its own element
 * strides (any non-negative strides; a channel stride of 1 on both sides
 * copies whole rows of channels at once). The blocks must not overlap,
 * except that `dst` may start whole rows of `shape[2]` pixels before `src`
 * with the same strides (tf_x8_copy's BlockConcat), or lie below `src` with
 * no larger strides, its first element at least one copied run (the
 * channels of a pixel when both channel strides are 1, else one element)
 * below `src`'s (a Slice over its input's rows, plan/write_rows_in_place.h):
 * elements are copied front to back, each read before it is overwritten. */
static inline void tf_copy_strided(const uint8_t* src, const int32_t src_strides[4], uint8_t* dst,
                                   const int32_t dst_strides[4], const int32_t shape[4],
                                   int32_t element_bytes) {
  const size_t eb = (size_t)element_bytes;
  const int contiguous = src_strides[3] == 1 && dst_strides[3] == 1;
  int32_t n, h, w, c;
  for (n = 0; n < shape[0]; ++n) {
    for (h = 0; h < shape[1]; ++h) {
      for (w = 0; w < shape[2]; ++w) {
        const uint8_t* s = src + ((size_t)n * (size_t)src_strides[0] + (size_t)h * (size_t)src_strides[1] +
                                  (size_t)w * (size_t)src_strides[2]) * eb;
        uint8_t* d = dst + ((size_t)n * (size_t)dst_strides[0] + (size_t)h * (size_t)dst_strides[1] +
                            (size_t)w * (size_t)dst_strides[2]) * eb;
        if (contiguous) {
          memcpy(d, s, (size_t)shape[3] * eb);
        } else {
          for (c = 0; c < shape[3]; ++c) {
            memcpy(d + (size_t)c * (size_t)dst_strides[3] * eb, s + (size_t)c * (size_t)src_strides[3] * eb, eb);
          }
        }
      }
    }
  }
}

#endif /* TINYFIT_STRIDED_COPY_H_ */
