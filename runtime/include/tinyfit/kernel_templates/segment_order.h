/* The traversal of the segment kernels (tinyfit/segment.h): which output
 * pixel and which channel block comes t-th, ascending or, mirrored,
 * descending. */
#ifndef TINYFIT_KERNEL_TEMPLATES_SEGMENT_ORDER_H_
#define TINYFIT_KERNEL_TEMPLATES_SEGMENT_ORDER_H_

#include <stdint.h>

/* Taps of one window the depthwise kernels keep pointers to (a 8x8 window;
 * the compiler calls them only for windows that fit). */
#define TF_SEGMENT_MAX_TAPS 64

/* Pixel index t of `pixels` in traversal order (its own inverse). */
static inline int32_t segment_pixel(int32_t t, int32_t pixels, int32_t descending) {
  return descending ? pixels - 1 - t : t;
}

/* Expand windows of at most this many input elements (KH * KW * Cin) that
 * the fused inverted bottleneck's __dsp path gathers two at a time (its
 * stack holds both). plan/segment_kernel.cc's kPairedExpandWindowMax says the
 * same. */
#define TF_SEGMENT_PAIRED_WINDOW_MAX 64

/* How many mids the fused inverted bottleneck's expand computes at a time,
 * at positions (g * i, ..., g * i + g - 1), the last group shorter when g
 * does not divide the count: three with a 1x1 expand, two with a window of 4
 * to TF_SEGMENT_PAIRED_WINDOW_MAX input elements (a stem convolution), so
 * that its __dsp path loads each expand weight once per group; one
 * otherwise. plan/segment_kernel.h's count_expand_group_mids says the same. */
static inline int32_t segment_expand_group(int32_t kernel_h, int32_t kernel_w, int32_t in_channels) {
  const int32_t window = kernel_h * kernel_w * in_channels;
  if (kernel_h == 1 && kernel_w == 1) return 3;
  return window >= 4 && window <= TF_SEGMENT_PAIRED_WINDOW_MAX ? 2 : 1;
}

/* The last mid position (in traversal order) the fused inverted bottleneck
 * computes before an output pixel whose depthwise window needs position
 * `needed` last: the end of needed's group of `group` positions
 * (segment_expand_group), or the last mid. plan/segment_kernel.h's
 * find_last_computed_mid_position says the same. */
static inline int32_t segment_last_computed_mid(int32_t needed, int32_t mids, int32_t group) {
  const int32_t end = needed - needed % group + group - 1;
  return end < mids ? end : mids - 1;
}

/* Channel block b of `channels` split into blocks of `block`, as [begin, end). */
static inline void segment_block(int32_t b, int32_t channels, int32_t block, int32_t descending, int32_t* begin,
                                 int32_t* end) {
  const int32_t first = b * block;
  const int32_t last = first + block < channels ? first + block : channels;
  *begin = descending ? channels - last : first;
  *end = descending ? channels - first : last;
}

#endif /* TINYFIT_KERNEL_TEMPLATES_SEGMENT_ORDER_H_ */
