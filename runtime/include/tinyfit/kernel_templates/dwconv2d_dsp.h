/* DepthwiseConv2D with 16-bit lanes (multiplier 1), over conv_dsp_arithmetic.h
 * (included first). The including file defines TF_DWCONV_DSP,
 * TF_DWCONV_DSP_ROWS or TF_DWCONV_DSP_INPLACE, the function it implements.
 *
 * Weights (params->weights): int16 w[ceil(C/4)][KH][KW][4], channel c in
 * group c/4, lane c%4, each weight already plus the weight offset (widened
 * once by the compiler: flash pays 2 bytes a weight, a few hundred bytes a
 * layer), stored as 32-bit words of two lanes (lane 0 in the low half) and
 * word aligned, so a tap of four channels is one 64-bit load.
 *
 * Four channels at a time: one 32-bit load brings a tap's four input
 * channels, two widenings (SXTAB16, the odd one with its rotation) split them
 * into even and odd channels, and each channel's product is one SMLAxy whose
 * halves select its lanes: a tap of four channels is seven instructions and a
 * weight load. Pixels whose window columns are all in bounds run a row at a
 * time per group (dwconv_dsp_interior: about 170 instructions a pixel and
 * group for a whole 3x3 window on a Cortex-M4, 4.7 per MAC, where CMSIS-NN's
 * s8 depthwise spends 8-9), the first and last rows' too (their in-bounds
 * window rows); the other border pixels take their in-bounds taps
 * (dwconv_dsp_pixel, the windows of a padded 3x3 written out). Channels
 * before the first multiple of four and after the last, one at a time. Taps
 * outside the input are skipped (offsets are added on widening, so a padded
 * tap adds nothing). */
#include "tinyfit/kernel_templates/dwconv2d_dsp_pixel.h"

/* A window row of three or two taps (x_tap: its first tap; w_taps: their
 * weight pairs in order). */
#define DWCONV_DSP_ROW3(x_tap, w_taps)                      \
  do {                                                      \
    DWCONV_DSP_TAP(x_tap, w_taps);                          \
    DWCONV_DSP_TAP((x_tap) + x_col_step, (w_taps) + 2);     \
    DWCONV_DSP_TAP((x_tap) + 2 * x_col_step, (w_taps) + 4); \
  } while (0)
#define DWCONV_DSP_ROW2(x_tap, w_taps)                  \
  do {                                                  \
    DWCONV_DSP_TAP(x_tap, w_taps);                      \
    DWCONV_DSP_TAP((x_tap) + x_col_step, (w_taps) + 2); \
  } while (0)

/* Four channels' sums a0..a3 requantised and stored at y[0..3]: through the
 * folded records f (params->requant_folded: the output zero point in their
 * addend, clamp `folded` with zero point 0) when the compiler emitted them,
 * else the plain ones q (clamp); q is evaluated only then (the compiler
 * emits one family of records, so params->requant is NULL when f is not). A
 * macro: GCC kept a function of it out of line, and the calls cost the
 * depthwise layers of vww_96 about 5% more. */
#define DWCONV_DSP_STORE(y, q, f, clamp, folded)                                                          \
  do {                                                                                                    \
    if ((f) != NULL) {                                                                                    \
      dsp_store4(y, dsp_requantize_folded(a0, &(f)[0]), dsp_requantize_folded(a1, &(f)[1]),               \
                 dsp_requantize_folded(a2, &(f)[2]), dsp_requantize_folded(a3, &(f)[3]), folded);         \
    } else {                                                                                              \
      dsp_store4(y, dsp_requantize_smmlar(a0, &(q)[0]), dsp_requantize_smmlar(a1, &(q)[1]),               \
                 dsp_requantize_smmlar(a2, &(q)[2]), dsp_requantize_smmlar(a3, &(q)[3]), clamp);          \
    }                                                                                                     \
  } while (0)
/* The same through the folded records f when the clamp does not narrow the
 * element range (dsp_store4_saturated: no lane-wise clamp). */
#define DWCONV_DSP_STORE_FOLDED_SATURATED(y, f, folded)                                                   \
  dsp_store4_saturated(y, dsp_requantize_folded(a0, &(f)[0]), dsp_requantize_folded(a1, &(f)[1]),         \
                       dsp_requantize_folded(a2, &(f)[2]), dsp_requantize_folded(a3, &(f)[3]), folded)

/* Channels [c_begin, c_end) (multiples of four) of one pixel over its
 * window's in-bounds taps (`rows` x `cols` from tap `first_tap`; x: the input
 * at the first tap, channel 0), requantised (SMMLAR) and stored at y[c], four
 * at a time. One call per pixel, so that accumulators, pointers and lanes
 * stay in registers. A 3x3 window and the border windows of 3x3 (two or three
 * rows of two or three taps) are written out, other windows take their rows'
 * taps in a loop (about 20 instructions a tap of four channels more).
 * folded: params->requant_folded or NULL (dwconv_dsp_store). */
TF_INNER_LOOP static void dwconv_dsp_pixel(const dsp_element* x, dsp_element* y, int32_t c_begin, int32_t c_end,
                                           int32_t first_tap, int32_t rows, int32_t cols,
                                           const dwconv_dsp_call* k, const tf_requant_folded* folded) {
  const uint32_t x_offset_lanes = k->x_offset_lanes;
  const ptrdiff_t x_row_step = k->x_row_step, x_col_step = k->x_col_step;
  const ptrdiff_t w_row_step = (ptrdiff_t)k->kernel_w * 2;
  /* 0: 3x3 whole; 1: rows of three taps; 2: rows of two; 3: any (loops). */
  const int32_t shape = rows == 3 && cols == 3 && k->kernel_w == 3 ? 0
                        : rows >= 2 && rows <= 3 && cols == 3 ? 1
                        : rows >= 2 && rows <= 3 && cols == 2 ? 2
                                                             : 3;
  const dsp_clamp clamp = k->clamp, folded_clamp = dsp_folded_clamp(&k->clamp);
  const uint32_t* w_group = k->words + (c_begin >> 2) * k->group_words + first_tap * 2;
  int32_t c;
  for (c = c_begin; c < c_end; c += 4, w_group += k->group_words) {
    const dsp_element* xc = x + c;
    const uint32_t* w = w_group;
    int32_t a0 = k->bias[c], a1 = k->bias[c + 1], a2 = k->bias[c + 2], a3 = k->bias[c + 3];
    if (shape == 0) {
      DWCONV_DSP_TAPS_3X3(xc, w);
    } else if (shape == 1) {
      DWCONV_DSP_ROW3(xc, w);
      DWCONV_DSP_ROW3(xc + x_row_step, w + w_row_step);
      if (rows == 3) DWCONV_DSP_ROW3(xc + 2 * x_row_step, w + 2 * w_row_step);
    } else if (shape == 2) {
      DWCONV_DSP_ROW2(xc, w);
      DWCONV_DSP_ROW2(xc + x_row_step, w + w_row_step);
      if (rows == 3) DWCONV_DSP_ROW2(xc + 2 * x_row_step, w + 2 * w_row_step);
    } else {
      int32_t ky;
      for (ky = 0; ky < rows; ++ky, xc += x_row_step, w += w_row_step) {
        const dsp_element* x_tap = xc;
        const uint32_t* w_tap = w;
        const uint32_t* const w_end = w + cols * 2;
        for (; w_tap < w_end; w_tap += 2, x_tap += x_col_step) DWCONV_DSP_TAP(x_tap, w_tap);
      }
    }
    {
      const tf_requant_folded* const f = folded != NULL ? folded + c : NULL;
      DWCONV_DSP_STORE(y + c, k->requant + c, f, &clamp, &folded_clamp);
    }
  }
}

/* `count` pixels of one group of four channels whose windows have every
 * column in bounds and the same `rows` rows in bounds (x: the first pixel's
 * first in-bounds tap at the group's first channel, then x_step apart; y
 * likewise, y_step apart; w: the group's weights from that tap on, bias its
 * channels', f their folded records or NULL and q, when f is NULL, their
 * plain ones): no window arithmetic, a
 * 3x3 window and its first and last rows' two-row windows unrolled, other
 * windows two taps at a time along a row. */
TF_INNER_LOOP static void dwconv_dsp_interior(const dsp_element* x, dsp_element* y, int32_t count, const uint32_t* w,
                                              const int32_t* bias, const tf_requant_channel* q,
                                              const tf_requant_folded* f, const dwconv_dsp_call* k,
                                              ptrdiff_t x_step, ptrdiff_t y_step, int32_t rows) {
  const uint32_t x_offset_lanes = k->x_offset_lanes;
  const ptrdiff_t x_row_step = k->x_row_step, x_col_step = k->x_col_step;
  const int32_t kernel_w = k->kernel_w;
  const dsp_clamp clamp = k->clamp, folded_clamp = dsp_folded_clamp(&k->clamp);
  int32_t i;
#define DWCONV_DSP_INTERIOR_STORE() DWCONV_DSP_STORE(y, q, f, &clamp, &folded_clamp)
  if (rows == 3 && kernel_w == 3 && f != NULL && !dsp_clamp_narrows(&clamp)) {
    /* Folded records and a clamp that does not narrow the element range
     * (ReLU6 on int8 usually): saturated stores, no lane-wise clamp, and the
     * loop runs to y's end, no counter (about 10 instructions a pixel and
     * group fewer on a Cortex-M4). */
    dsp_element* const y_end = y + count * y_step;
    do {
      const dsp_element* xc = x;
      int32_t a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3];
      DWCONV_DSP_TAPS_3X3(xc, w);
      DWCONV_DSP_STORE_FOLDED_SATURATED(y, f, &folded_clamp);
      x += x_step, y += y_step;
    } while (y != y_end);
  } else if (rows == 3 && kernel_w == 3) {
    for (i = 0; i < count; ++i, x += x_step, y += y_step) {
      const dsp_element* xc = x;
      int32_t a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3];
      DWCONV_DSP_TAPS_3X3(xc, w);
      DWCONV_DSP_INTERIOR_STORE();
    }
  } else if (rows == 2 && kernel_w == 3) {
    /* The first or last row of a padded 3x3. */
    for (i = 0; i < count; ++i, x += x_step, y += y_step) {
      int32_t a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3];
      DWCONV_DSP_ROW3(x, w);
      DWCONV_DSP_ROW3(x + x_row_step, w + 6);
      DWCONV_DSP_INTERIOR_STORE();
    }
  } else {
    const ptrdiff_t row_pairs = (ptrdiff_t)(kernel_w >> 1) * 4;
    for (i = 0; i < count; ++i, x += x_step, y += y_step) {
      const dsp_element* xc = x;
      const uint32_t* w_row = w;
      int32_t a0 = bias[0], a1 = bias[1], a2 = bias[2], a3 = bias[3], ky;
      for (ky = 0; ky < rows; ++ky, xc += x_row_step) {
        const dsp_element* x_tap = xc;
        const uint32_t* w_tap = w_row;
        const uint32_t* const w_pairs_end = w_row + row_pairs;
        for (; w_tap < w_pairs_end; w_tap += 4, x_tap += 2 * x_col_step) {
          DWCONV_DSP_TAP(x_tap, w_tap);
          DWCONV_DSP_TAP(x_tap + x_col_step, w_tap + 2);
        }
        if (kernel_w & 1) {
          DWCONV_DSP_TAP(x_tap, w_tap);
          w_tap += 2;
        }
        w_row = w_tap;
      }
      DWCONV_DSP_INTERIOR_STORE();
    }
  }
#undef DWCONV_DSP_INTERIOR_STORE
}
#undef DWCONV_DSP_STORE_FOLDED_SATURATED
#undef DWCONV_DSP_STORE
#undef DWCONV_DSP_ROW2
#undef DWCONV_DSP_ROW3
#undef DWCONV_DSP_TAPS_3X3
#undef DWCONV_DSP_TAP

/* Channel c's sum requantised and clamped through its folded record when
 * the compiler emitted them (params->requant_folded; then no plain ones),
 * else its plain one: the channels outside groups of four. */
static dsp_element dwconv_dsp_requantize_channel(int32_t acc, int32_t c, const tf_conv_params* p,
                                                 const dwconv_dsp_call* k) {
  if (p->requant_folded != NULL) {
    const dsp_clamp folded_clamp = dsp_folded_clamp(&k->clamp);
    return dsp_clamp_output(dsp_requantize_folded(acc, &p->requant_folded[c]), &folded_clamp);
  }
  return dsp_requantize(acc, &k->requant[c], &k->clamp);
}

/* Channel c of `count` pixels along a row (x: the first pixel's first tap
 * at channel c, then x_pixel_step apart; y likewise, y_col_step apart), every
 * tap of a 3x3 window in bounds: the nine weights read once, the input
 * offset's share (offset x the weights' sum) added once per pixel, so a tap
 * is a load and a multiply-add (the general loop below took about 20
 * instructions a tap: partial execution's one-channel chunks run every
 * channel here). Sums wrap as TFLite's int32 arithmetic. */
TF_INNER_LOOP static void dwconv_dsp_channel_3x3(const dsp_element* x, dsp_element* y, int32_t count, int32_t c,
                                                 const tf_conv_params* p, const dwconv_dsp_call* k) {
  const uint8_t* w = (const uint8_t*)(k->words + (c >> 2) * k->group_words) + (c & 3) * 2;
  const ptrdiff_t cs = k->x_col_step, rs = k->x_row_step, x_step = k->x_pixel_step, y_step = k->y_col_step;
  const int32_t w0 = tf_load_s16(w), w1 = tf_load_s16(w + 8), w2 = tf_load_s16(w + 16);
  const int32_t w3 = tf_load_s16(w + 24), w4 = tf_load_s16(w + 32), w5 = tf_load_s16(w + 40);
  const int32_t w6 = tf_load_s16(w + 48), w7 = tf_load_s16(w + 56), w8 = tf_load_s16(w + 64);
  /* Two weights a register (SMLABB / SMLABT pick the half). */
  const uint32_t w01 = tf_pack_lanes(w0, w1), w23 = tf_pack_lanes(w2, w3), w45 = tf_pack_lanes(w4, w5);
  const uint32_t w67 = tf_pack_lanes(w6, w7), w8_ = tf_pack_lanes(w8, 0);
  const uint32_t base = (uint32_t)((const int32_t*)p->bias)[c] +
                        (uint32_t)p->input_offset * (uint32_t)(w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7 + w8);
  int32_t i;
  for (i = 0; i < count; ++i, x += x_step, y += y_step) {
    const dsp_element* r = x;
    int32_t sum = tf_smlabb((uint32_t)(int32_t)r[0], w01, 0);
    sum = tf_smlabt((uint32_t)(int32_t)r[cs], w01, sum);
    sum = tf_smlabb((uint32_t)(int32_t)r[2 * cs], w23, sum);
    r += rs;
    sum = tf_smlabt((uint32_t)(int32_t)r[0], w23, sum);
    sum = tf_smlabb((uint32_t)(int32_t)r[cs], w45, sum);
    sum = tf_smlabt((uint32_t)(int32_t)r[2 * cs], w45, sum);
    r += rs;
    sum = tf_smlabb((uint32_t)(int32_t)r[0], w67, sum);
    sum = tf_smlabt((uint32_t)(int32_t)r[cs], w67, sum);
    sum = tf_smlabb((uint32_t)(int32_t)r[2 * cs], w8_, sum);
    *y = dwconv_dsp_requantize_channel((int32_t)(base + (uint32_t)sum), c, p, k);
  }
}

/* Channel c of `pixels` pixels along a row from `win` (stride_w apart), one
 * at a time: the channels outside groups of four. */
static void dwconv_dsp_scalar_channel(const dwconv_dsp_window* win, dsp_element* y, int32_t c, int32_t pixels,
                                      const tf_conv_params* p, const dwconv_dsp_call* k) {
  dwconv_dsp_window at = *win;
  int32_t i;
  if (win->rows == 3 && win->cols == 3 && k->kernel_w == 3 && win->first_tap == 0) {
    dwconv_dsp_channel_3x3(win->x + c, y + c, pixels, c, p, k);
    return;
  }
  for (i = 0; i < pixels; ++i, at.x += k->x_pixel_step) {
    y[c + i * k->y_col_step] = dwconv_dsp_requantize_channel(
        dwconv_dsp_channel(&at, k->words, k->group_words, c, p, k->x_row_step, k->x_col_step, p->input_offset), c, p,
        k);
  }
}

/* Output channels [out_begin, out_end) of the node into `output`, whose
 * (oy, ox) is the node's output (out_row + oy, out_col + ox), from an input
 * view whose channel 0 is the node's input channel in_begin and whose (0, 0)
 * is the node's input (in_row, in_col); rows and cols outside the input view
 * are the window's padding (as dwconv2d_direct.h's dwconv_rows). The pixels
 * of a row whose windows have every column in bounds (a contiguous range of
 * columns, the same rows in bounds) run group by group through
 * dwconv_dsp_interior, border rows too (their windows' in-bounds rows); the
 * other pixels take their windows' in-bounds taps through dwconv_dsp_pixel;
 * channels before the first multiple of four and after the last one at a
 * time. */
static void dwconv_dsp_rows(const tf_view* input, const tf_view* output, const tf_conv_params* p, int32_t out_begin,
                            int32_t out_end, int32_t in_begin, int32_t out_row, int32_t in_row, int32_t out_col,
                            int32_t in_col) {
  const int32_t x_offset = p->input_offset;
  const int32_t kernel_h = p->kernel_h, kernel_w = p->kernel_w;
  const ptrdiff_t xs0 = input->strides[0], xs1 = input->strides[1], xs2 = input->strides[2];
  const ptrdiff_t ys0 = output->strides[0], ys1 = output->strides[1], ys2 = output->strides[2];
  const int32_t simd_begin = (out_begin + 3) & ~3, simd_end = out_end & ~3;
  const int32_t in_cols = input->shape[2], last_tap_w = (kernel_w - 1) * p->dilation_w;
  const int32_t out_cols = output->shape[2];
  /* Interior columns: ix0 >= 0 and ix0 + last_tap_w < in_cols, with
   * ix0 = (out_col + ox) * stride_w - pad_left - in_col increasing in ox. */
  const int32_t col_origin = out_col * p->stride_w - p->pad_left - in_col;
  const tf_requant_folded* const folded = p->requant_folded;
  int32_t interior_begin = 0, interior_end = out_cols;
  dwconv_dsp_call k;
  int32_t n, oy, ox;
  while (interior_begin < out_cols && col_origin + interior_begin * p->stride_w < 0) ++interior_begin;
  while (interior_end > interior_begin && col_origin + (interior_end - 1) * p->stride_w + last_tap_w >= in_cols) {
    --interior_end;
  }
  k.words = (const uint32_t*)p->weights;
  k.bias = (const int32_t*)p->bias;
  k.requant = p->requant;
  k.group_words = (ptrdiff_t)kernel_h * kernel_w * 2;
  k.x_row_step = (ptrdiff_t)p->dilation_h * xs1;
  k.x_col_step = (ptrdiff_t)p->dilation_w * xs2;
  k.x_pixel_step = (ptrdiff_t)p->stride_w * xs2;
  k.y_col_step = ys2;
  k.kernel_w = kernel_w;
  k.x_offset_lanes = tf_splat_lanes(x_offset);
  k.clamp = dsp_make_clamp(p);
  for (n = 0; n < output->shape[0]; ++n) {
    for (oy = 0; oy < output->shape[1]; ++oy) {
      const int32_t iy0 = (out_row + oy) * p->stride_h - p->pad_top - in_row;
      int32_t ky_begin, ky_end;
      conv_tap_range(iy0, p->dilation_h, kernel_h, input->shape[1], &ky_begin, &ky_end);
      /* The row's interior runs from its first pixel, then the loop goes on
       * past it (a loop step a pixel cost a chunk call of 8 channels about
       * 20 instructions a pixel on the Cortex-M4). */
      for (ox = 0; ox < out_cols; ox = ox == interior_begin && interior_end > ox ? interior_end : ox + 1) {
        const int32_t ix0 = col_origin + ox * p->stride_w;
        dsp_element* y = (dsp_element*)output->data + n * ys0 + oy * ys1 + ox * ys2 - out_begin;
        dwconv_dsp_window win;
        int32_t kx_begin = 0, kx_end = kernel_w, c;
        const int interior = ox >= interior_begin && ox < interior_end;
        if (!interior) conv_tap_range(ix0, p->dilation_w, kernel_w, in_cols, &kx_begin, &kx_end);
        win.x = (const dsp_element*)input->data + n * xs0 + (iy0 + ky_begin * p->dilation_h) * xs1 +
                (ix0 + kx_begin * p->dilation_w) * xs2 - in_begin;
        win.first_tap = ky_begin * kernel_w + kx_begin;
        win.rows = ky_end - ky_begin;
        win.cols = kx_end - kx_begin;
        for (c = out_begin; c < out_end && c < simd_begin; ++c) {
          dwconv_dsp_scalar_channel(&win, y, c, interior ? interior_end - interior_begin : 1, p, &k);
        }
        if (c < simd_end) {
          if (interior) {
            /* The row's whole interior, group by group. */
            for (; c < simd_end; c += 4) {
              dwconv_dsp_interior(win.x + c, y + c, interior_end - interior_begin,
                                  k.words + (c >> 2) * k.group_words + win.first_tap * 2, k.bias + c,
                                  folded != NULL ? NULL : k.requant + c, folded != NULL ? folded + c : NULL, &k,
                                  k.x_pixel_step, ys2,
                                  win.rows);
            }
          } else {
            dwconv_dsp_pixel(win.x, y, c, simd_end, win.first_tap, win.rows, win.cols, &k, folded);
          }
          c = simd_end;
        }
        for (; c < out_end; ++c) {
          dwconv_dsp_scalar_channel(&win, y, c, interior ? interior_end - interior_begin : 1, p, &k);
        }
      }
    }
  }
}

#ifdef TF_DWCONV_DSP
void TF_DWCONV_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params, int32_t out_begin,
                   int32_t out_end, int32_t in_begin) {
  dwconv_dsp_rows(input, output, params, out_begin, out_end, in_begin, 0, 0, 0, 0);
}
#endif

#ifdef TF_DWCONV_DSP_ROWS
/* The part of the output its view shows (rows, cols and channels from its
 * origin), from the part of the input the input view shows. */
void TF_DWCONV_DSP_ROWS(const tf_view* input, const tf_view* output, const tf_conv_params* params) {
  dwconv_dsp_rows(input, output, params, output->origin[3], output->origin[3] + output->shape[3], input->origin[3],
                  output->origin[1], input->origin[1], output->origin[2], input->origin[2]);
}
#endif

#ifdef TF_DWCONV_DSP_INPLACE
#define TF_DWCONV_INPLACE TF_DWCONV_DSP_INPLACE
#define DWCONV_INPLACE_ROWS dwconv_dsp_rows
typedef dsp_element dwconv_inplace_element;
#include "tinyfit/kernel_templates/dwconv2d_inplace.h"
#endif
