/* The depthwise __dsp kernels' window, weights, one-channel loop and tap step
 * (dwconv2d_dsp.h's layout and arithmetic) and its SMMLAR requantisation,
 * over conv_dsp_arithmetic.h (included first): shared by dwconv2d_dsp.h, the
 * depthwise segment kernel's fast path (dwconv2d_segment_dsp.h) and the fused
 * inverted bottleneck's (inverted_bottleneck_segment_dsp.h). DWCONV_DSP_TAP
 * stays defined for the including file's loops. */
#ifndef TINYFIT_KERNEL_TEMPLATES_DWCONV2D_DSP_PIXEL_H_
#define TINYFIT_KERNEL_TEMPLATES_DWCONV2D_DSP_PIXEL_H_

#include "tinyfit/kernel_templates/conv_taps.h"

/* The in-bounds taps of one output pixel. */
typedef struct dwconv_dsp_window {
  const dsp_element* x; /* input at the first tap, channel 0 of the node */
  int32_t first_tap;    /* ky * KW + kx of the first tap */
  int32_t rows, cols;   /* taps in bounds */
} dwconv_dsp_window;

/* One channel c, every tap of the window: channel c's weight at tap t is the
 * 16-bit lane (c % 4) of its group's tap, so the window's weights are every
 * fourth halfword from the first tap's (little-endian words: lane 0 first). */
static inline int32_t dwconv_dsp_channel(const dwconv_dsp_window* win, const uint32_t* words, ptrdiff_t group_words,
                                         int32_t c, const tf_conv_params* p, ptrdiff_t x_row_step, ptrdiff_t x_col_step,
                                         int32_t x_offset) {
  const dsp_element* x = win->x + c;
  const uint8_t* w = (const uint8_t*)(words + (c >> 2) * group_words + win->first_tap * 2) + (c & 3) * 2;
  const ptrdiff_t w_row_step = (ptrdiff_t)p->kernel_w * 8;
  const int32_t cols = win->cols;
  int32_t acc = ((const int32_t*)p->bias)[c], ky, kx;
  for (ky = 0; ky < win->rows; ++ky, x += x_row_step, w += w_row_step) {
    const dsp_element* x_tap = x;
    for (kx = 0; kx < cols; ++kx, x_tap += x_col_step) acc += dsp_widen(*x_tap, x_offset) * tf_load_s16(w + kx * 8);
  }
  return acc;
}

/* One tap of four channels: a0..a3 += (x + offset) * w, lanes selected by
 * SMLAxy (even channels in `even`, odd ones in `odd`; w01 = (w0, w1),
 * w23 = (w2, w3)). */
#define DWCONV_DSP_TAP(x_tap, w_pair)                                                                      \
  do {                                                                                                     \
    const uint32_t xw_ = tf_load_u32(x_tap);                                                               \
    const uint32_t even_ = dsp_widen_even(xw_, x_offset_lanes), odd_ = dsp_widen_odd(xw_, x_offset_lanes); \
    const uint32_t w01_ = (w_pair)[0], w23_ = (w_pair)[1];                                                 \
    a0 = tf_smlabb(even_, w01_, a0);                                                                       \
    a1 = tf_smlabt(odd_, w01_, a1);                                                                        \
    a2 = tf_smlatb(even_, w23_, a2);                                                                       \
    a3 = tf_smlatt(odd_, w23_, a3);                                                                        \
  } while (0)

/* A whole 3x3 window: x_tap (a variable, left at the window's last row) walks
 * the rows, w_taps holds the nine taps' weight pairs in order. */
#define DWCONV_DSP_TAPS_3X3(x_tap, w_taps)              \
  do {                                                  \
    DWCONV_DSP_TAP(x_tap, w_taps);                      \
    DWCONV_DSP_TAP(x_tap + x_col_step, w_taps + 2);     \
    DWCONV_DSP_TAP(x_tap + 2 * x_col_step, w_taps + 4); \
    x_tap += x_row_step;                                \
    DWCONV_DSP_TAP(x_tap, w_taps + 6);                  \
    DWCONV_DSP_TAP(x_tap + x_col_step, w_taps + 8);     \
    DWCONV_DSP_TAP(x_tap + 2 * x_col_step, w_taps + 10);\
    x_tap += x_row_step;                                \
    DWCONV_DSP_TAP(x_tap, w_taps + 12);                 \
    DWCONV_DSP_TAP(x_tap + x_col_step, w_taps + 14);    \
    DWCONV_DSP_TAP(x_tap + 2 * x_col_step, w_taps + 16);\
  } while (0)

/* What the pixel loop hands the channel loop, once per call. */
typedef struct dwconv_dsp_call {
  const uint32_t* words;           /* the weights (above) */
  const int32_t* bias;             /* [C] */
  const tf_requant_channel* requant; /* [C] */
  ptrdiff_t group_words;           /* words of one group of four channels: KH * KW * 2 */
  ptrdiff_t x_row_step, x_col_step; /* elements between taps of a column and of a row */
  ptrdiff_t x_pixel_step, y_col_step; /* elements between neighbouring pixels of a row: input, output */
  int32_t kernel_w;
  uint32_t x_offset_lanes;
  dsp_clamp clamp;
} dwconv_dsp_call;

#endif /* TINYFIT_KERNEL_TEMPLATES_DWCONV2D_DSP_PIXEL_H_ */
