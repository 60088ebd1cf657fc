/* Conv2D of a few output channels straight from the input window, 16-bit
 * SIMD, over conv_dsp_arithmetic.h (included first); no workspace. The
 * including file defines TF_CONV_WINDOW_DSP.
 *
 * For chunk calls of one or two output channels (partial execution's narrow
 * loops): the im2col kernel gathers and widens every pixel's whole patch
 * again on each chunk call, which for one output channel of a 3x3 Conv2D over
 * three input channels cost about 580 instructions per output element on the
 * Cortex-M4. Here each in-bounds row of a pixel's window is one contiguous
 * run of (taps in bounds) x Cin input elements, and the same run of each
 * channel's weights in the IR layout w[Cout][KH][KW][Cin]: one dot product
 * per window row (dot_dsp_1x2: four inputs a step), padding taps skipped
 * (they add (zp - zp) * w = 0 in TFLite's sums). The window rows are
 * contiguous when the view is dense along its row and the window is not
 * dilated along it; otherwise each tap is a run of Cin. */
#include "tinyfit/kernel_templates/conv_taps.h"
#include "tinyfit/kernel_templates/dot_dsp_step.h"

/* What every pixel of a call shares. */
typedef struct window_dsp_call {
  const tf_conv_params* p;
  const dsp_element* weights; /* IR layout */
  int32_t cin, row_weights, filter;
  ptrdiff_t x_row_step;       /* elements between window rows: dilation_h x the view's row stride */
  ptrdiff_t x_tap_step;       /* between taps of a row: dilation_w x the view's pixel stride */
  int32_t runs_per_row;       /* a window row's in-bounds taps are one contiguous run */
  uint32_t x_offset_lanes, w_offset_lanes;
  dsp_clamp clamp;
} window_dsp_call;

/* acc += x . w over `count` elements (offsets added), four a step. */
static inline int32_t window_dsp_dot1(const dsp_element* x, const dsp_element* w, int32_t count,
                                      const window_dsp_call* k, int32_t acc) {
  const dsp_element* const x_end = x + (count & ~3);
  const uint32_t x_offset_lanes = k->x_offset_lanes, w_offset_lanes = k->w_offset_lanes;
  for (; x < x_end; x += 4, w += 4) {
    const uint32_t xw = tf_load_u32(x), ww = tf_load_u32(w);
    acc = tf_smlad(dsp_widen_even(xw, x_offset_lanes), dsp_widen_weights_even(ww, w_offset_lanes), acc);
    acc = tf_smlad(dsp_widen_odd(xw, x_offset_lanes), dsp_widen_weights_odd(ww, w_offset_lanes), acc);
  }
  for (; x < x_end + (count & 3); ++x, ++w) {
    acc += dsp_widen(*x, k->p->input_offset) * dsp_widen(*w, k->p->weight_offset);
  }
  return acc;
}

/* One group of four taps at element `at` of weight row wk and of the two
 * pixels' input rows x0 and x0 + second: the weights loaded and widened once
 * for both pixels, then per pixel a load, two widenings and two SMLADs. */
#define WINDOW_DSP_GROUP2(at)                                                \
  {                                                                          \
    const uint32_t ww = tf_load_u32(wk + (at));                              \
    const uint32_t w_even = dsp_widen_weights_even(ww, w_offset_lanes);      \
    const uint32_t w_odd = dsp_widen_weights_odd(ww, w_offset_lanes);        \
    uint32_t xw = tf_load_u32(x0 + (at));                                    \
    a0 = tf_smlad(dsp_widen_even(xw, x_offset_lanes), w_even, a0);           \
    a0 = tf_smlad(dsp_widen_odd(xw, x_offset_lanes), w_odd, a0);             \
    xw = tf_load_u32(x0 + second + (at));                                    \
    a1 = tf_smlad(dsp_widen_even(xw, x_offset_lanes), w_even, a1);           \
    a1 = tf_smlad(dsp_widen_odd(xw, x_offset_lanes), w_odd, a1);             \
  }
/* One tap at element `at`, both pixels. */
#define WINDOW_DSP_TAP2(at)                                                  \
  {                                                                          \
    const int32_t wv = dsp_widen(wk[at], w_offset);                          \
    a0 += dsp_widen(x0[at], x_offset) * wv;                                  \
    a1 += dsp_widen(x0[second + (at)], x_offset) * wv;                       \
  }

#if defined(__GNUC__)
#define WINDOW_DSP_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define WINDOW_DSP_ALWAYS_INLINE static inline
#endif

/* Runs of nine (3x3 over three input channels), the pixels `x_step` elements
 * apart, four pixels at a time: `count` >= 4 pixels of one channel, the
 * last four ending at the last pixel (a count that is not a multiple of four
 * computes up to three pixels twice, which cost fewer instructions than the
 * pair loop; the output never overlaps the input),
 * with wv the channel's weights of each window row widened once a call (even
 * and odd lanes of taps 0-3 and 4-7, then tap 8 in one 16-bit lane, the
 * other zero) and bias_sum its bias plus
 * the input offset's share (x_offset x the widened weights' sum), so that
 * inputs widen without an offset. Per window row, each pair of weight words
 * is loaded once for the four pixels, and x_step is a constant of the caller
 * (3 or 6: stride 1 or 2), so the four pixels' loads need no address
 * arithmetic. A pixel's tap 8 is in the next pixel's widened words (stride
 * 2: the high even lane of its first word; stride 1: the low odd lane of its
 * second), so it costs the first three pixels one SMLAD with the lane-placed
 * weight instead of a byte load and a multiply-accumulate; the fourth pixel
 * loads its byte (SMLABT / SMLABB with the same weight word). With that and
 * the window rows counted by the weights' pointer, MobileNetV2-96-w0.35's
 * sixteen one-channel stem calls went from 2,521,520 to 2,408,720
 * instructions on the Cortex-M4. A one-channel call (partial execution's
 * narrowest chunks) of an RGB stem cost about 129 instructions per output
 * element on the Cortex-M4 two pixels at a time with the offsets and weights
 * widened per pixel pair. */
WINDOW_DSP_ALWAYS_INLINE void window_dsp_quads9(const dsp_element* x, dsp_element* y, int32_t count, ptrdiff_t y_step,
                                                const int32_t* wv, int32_t rows, int32_t bias_sum,
                                                const tf_requant_channel* q, const dsp_clamp* clamp,
                                                ptrdiff_t x_row_step, const ptrdiff_t x_step) {
  const tf_requant_channel qc = *q;
  const dsp_clamp cl = *clamp;
  const int32_t* const wv_end = wv + 5 * rows;
  int32_t i = 0;
  for (;;) {
    const dsp_element* xr = x + i * x_step;
    dsp_element* const yq = y + i * y_step;
    const int32_t* wr = wv;
    int32_t a0 = bias_sum, a1 = bias_sum, a2 = bias_sum, a3 = bias_sum;
    for (; wr < wv_end; xr += x_row_step, wr += 5) {
      const uint32_t w8 = (uint32_t)wr[4];
      uint32_t we = (uint32_t)wr[0], wo = (uint32_t)wr[1], xw, lanes;
      xw = tf_load_u32(xr);
      a0 = tf_smlad(dsp_widen_plain_even(xw), we, a0), a0 = tf_smlad(dsp_widen_plain_odd(xw), wo, a0);
      xw = tf_load_u32(xr + x_step);
      lanes = dsp_widen_plain_even(xw);
      a1 = tf_smlad(lanes, we, a1), a1 = tf_smlad(dsp_widen_plain_odd(xw), wo, a1);
      if (x_step == 6) a0 = tf_smlad(lanes, w8, a0);
      xw = tf_load_u32(xr + 2 * x_step);
      lanes = dsp_widen_plain_even(xw);
      a2 = tf_smlad(lanes, we, a2), a2 = tf_smlad(dsp_widen_plain_odd(xw), wo, a2);
      if (x_step == 6) a1 = tf_smlad(lanes, w8, a1);
      xw = tf_load_u32(xr + 3 * x_step);
      lanes = dsp_widen_plain_even(xw);
      a3 = tf_smlad(lanes, we, a3), a3 = tf_smlad(dsp_widen_plain_odd(xw), wo, a3);
      if (x_step == 6) a2 = tf_smlad(lanes, w8, a2);
      we = (uint32_t)wr[2], wo = (uint32_t)wr[3];
      xw = tf_load_u32(xr + 4);
      a0 = tf_smlad(dsp_widen_plain_even(xw), we, a0), a0 = tf_smlad(dsp_widen_plain_odd(xw), wo, a0);
      xw = tf_load_u32(xr + x_step + 4);
      lanes = dsp_widen_plain_odd(xw);
      a1 = tf_smlad(dsp_widen_plain_even(xw), we, a1), a1 = tf_smlad(lanes, wo, a1);
      if (x_step == 3) a0 = tf_smlad(lanes, w8, a0);
      xw = tf_load_u32(xr + 2 * x_step + 4);
      lanes = dsp_widen_plain_odd(xw);
      a2 = tf_smlad(dsp_widen_plain_even(xw), we, a2), a2 = tf_smlad(lanes, wo, a2);
      if (x_step == 3) a1 = tf_smlad(lanes, w8, a1);
      xw = tf_load_u32(xr + 3 * x_step + 4);
      lanes = dsp_widen_plain_odd(xw);
      a3 = tf_smlad(dsp_widen_plain_even(xw), we, a3), a3 = tf_smlad(lanes, wo, a3);
      if (x_step == 3) a2 = tf_smlad(lanes, w8, a2);
      if (x_step == 6) {
        a3 = tf_smlabt((uint32_t)(int32_t)xr[3 * x_step + 8], w8, a3);
      } else {
        a3 = tf_smlabb((uint32_t)(int32_t)xr[3 * x_step + 8], w8, a3);
      }
    }
    a0 = dsp_requantize_smmlar(a0, &qc), a1 = dsp_requantize_smmlar(a1, &qc);
    a2 = dsp_requantize_smmlar(a2, &qc), a3 = dsp_requantize_smmlar(a3, &qc);
    if (y_step == 1) {
      dsp_store4(yq, a0, a1, a2, a3, &cl);
    } else {
      yq[0] = dsp_clamp_output(a0, &cl);
      yq[y_step] = dsp_clamp_output(a1, &cl);
      yq[2 * y_step] = dsp_clamp_output(a2, &cl);
      yq[3 * y_step] = dsp_clamp_output(a3, &cl);
    }
    if (i + 4 >= count) break;
    i = i + 8 <= count ? i + 4 : count - 4;
  }
}

/* Whether window_dsp_channel9 serves a call: one output channel, window rows
 * of nine contiguous elements (3x3 over three input channels, or 1x9 over
 * one), at most three of them, pixels 3 or 6 elements apart (stride 1 or 2
 * over three channels) and at least four interior pixels a row. */
static int32_t window_dsp_channel9_serves(const tf_conv_params* p, const window_dsp_call* k, ptrdiff_t x_step,
                                          int32_t width, int32_t interior) {
  return width == 1 && k->runs_per_row && p->kernel_w * p->in_channels == 9 && p->kernel_h <= 3 &&
         (x_step == 3 || x_step == 6) && interior >= 4;
}

/* Channel c's interior pixels [col_begin, col_begin + count) of every output
 * row (every tap of a window row in bounds), through window_dsp_quads9: the
 * weights of the window's rows widened and their sums taken once a call, the
 * input offset's share of a row's in-bounds window rows added to the bias,
 * x_step 3 or 6 (window_dsp_channel9_serves). y: the output at channel c of
 * image 0, row 0, column 0. Per-row set-up through window_dsp_pixels and
 * window_dsp_channel cost about 900 instructions a row of a one-channel
 * call. */
TF_INNER_LOOP static void window_dsp_channel9(const tf_view* input, const tf_view* output, dsp_element* y,
                                              int32_t c, int32_t col_begin, int32_t count, ptrdiff_t x_step,
                                              const window_dsp_call* k) {
  const tf_conv_params* p = k->p;
  const dsp_element* w = k->weights + (ptrdiff_t)c * k->filter;
  const ptrdiff_t y_step = output->strides[2];
  const int32_t bias = ((const int32_t*)p->bias)[c];
  int32_t wv[3 * 5], row_sums[3], ky, j, n, oy;
  for (ky = 0; ky < p->kernel_h; ++ky, w += k->row_weights) {
    const uint32_t w0 = tf_load_u32(w), w1 = tf_load_u32(w + 4);
    wv[5 * ky + 0] = (int32_t)dsp_widen_weights_even(w0, k->w_offset_lanes);
    wv[5 * ky + 1] = (int32_t)dsp_widen_weights_odd(w0, k->w_offset_lanes);
    wv[5 * ky + 2] = (int32_t)dsp_widen_weights_even(w1, k->w_offset_lanes);
    wv[5 * ky + 3] = (int32_t)dsp_widen_weights_odd(w1, k->w_offset_lanes);
    /* The ninth tap in the lane where the next pixel's widened words hold
     * it (window_dsp_quads9): high of the first word's even lanes (stride
     * 2), low of the second word's odd lanes (stride 1). */
    wv[5 * ky + 4] = x_step == 6 ? (int32_t)((uint32_t)dsp_widen(w[8], p->weight_offset) << 16)
                                 : (int32_t)((uint32_t)dsp_widen(w[8], p->weight_offset) & 0xffffu);
    row_sums[ky] = 0;
    for (j = 0; j < 9; ++j) row_sums[ky] += dsp_widen(w[j], p->weight_offset);
  }
  for (n = 0; n < output->shape[0]; ++n) {
    for (oy = 0; oy < output->shape[1]; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      int32_t ky_begin, ky_end, sum = 0;
      const dsp_element* x;
      dsp_element* const y_row =
          y + (ptrdiff_t)n * output->strides[0] + (ptrdiff_t)oy * output->strides[1] + (ptrdiff_t)col_begin * y_step;
      conv_tap_range(iy0, p->dilation_h, p->kernel_h, input->shape[1], &ky_begin, &ky_end);
      for (ky = ky_begin; ky < ky_end; ++ky) sum += row_sums[ky];
      x = (const dsp_element*)input->data + (ptrdiff_t)n * input->strides[0] +
          (ptrdiff_t)(iy0 + ky_begin * p->dilation_h) * input->strides[1] +
          (ptrdiff_t)(col_begin * p->stride_w - p->pad_left) * input->strides[2];
      sum = bias + p->input_offset * sum;
      if (x_step == 3) {
        window_dsp_quads9(x, y_row, count, y_step, wv + 5 * ky_begin, ky_end - ky_begin, sum, &p->requant[c],
                          &k->clamp, k->x_row_step, 3);
      } else {
        window_dsp_quads9(x, y_row, count, y_step, wv + 5 * ky_begin, ky_end - ky_begin, sum, &p->requant[c],
                          &k->clamp, k->x_row_step, 6);
      }
    }
  }
}

/* Channel c of `count` pixels along a row whose windows have the same `rows`
 * window rows of `run` contiguous elements in bounds (x and w at the first
 * pixel's first tap and its weight), two pixels at a time: per group of four
 * taps the weights are loaded and widened once for the pair; the taps left
 * over one by one. An odd last pixel is computed as a pair with itself. Runs
 * of nine (3x3 over three input channels: the first layer of an RGB network)
 * are written out: two groups and a tap a row, no loop within the row. A
 * one-channel call (partial execution's narrowest chunks) of such a layer
 * cost about 350 instructions per output element on the Cortex-M4 going
 * pixel by pixel through window_dsp_pixels' loops. */
TF_INNER_LOOP static void window_dsp_channel(const dsp_element* x, dsp_element* y, int32_t count, ptrdiff_t x_step,
                                             ptrdiff_t y_step, const dsp_element* w, int32_t rows, int32_t run,
                                             int32_t c, const window_dsp_call* k) {
  const tf_conv_params* p = k->p;
  const uint32_t x_offset_lanes = k->x_offset_lanes, w_offset_lanes = k->w_offset_lanes;
  const int32_t x_offset = p->input_offset, w_offset = p->weight_offset;
  const int32_t bias = ((const int32_t*)p->bias)[c];
  const tf_requant_channel q = p->requant[c];
  const dsp_clamp clamp = k->clamp;
  const ptrdiff_t x_row_step = k->x_row_step;
  const int32_t row_weights = k->row_weights, groups = run >> 2, tail = run & 3;
  int32_t i;
  for (i = 0; i < count; i += 2, x += 2 * x_step, y += 2 * y_step) {
    const ptrdiff_t second = i + 1 < count ? x_step : 0;
    const dsp_element* x0 = x;
    const dsp_element* wk = w;
    int32_t a0 = bias, a1 = bias, ky, g;
    if (run == 9) {
      for (ky = rows; ky > 0; --ky, x0 += x_row_step, wk += row_weights) {
        WINDOW_DSP_GROUP2(0)
        WINDOW_DSP_GROUP2(4)
        WINDOW_DSP_TAP2(8)
      }
    } else {
      for (ky = rows; ky > 0; --ky, x0 += x_row_step - groups * 4, wk += row_weights - groups * 4) {
        for (g = groups; g > 0; --g, wk += 4, x0 += 4) WINDOW_DSP_GROUP2(0)
        for (g = 0; g < tail; ++g) WINDOW_DSP_TAP2(g)
      }
    }
    y[0] = dsp_requantize(a0, &q, &clamp);
    if (second != 0) y[y_step] = dsp_requantize(a1, &q, &clamp);
  }
}
#undef WINDOW_DSP_GROUP2
#undef WINDOW_DSP_TAP2

/* Output channels [c_begin, c_end) of `count` pixels along a row whose
 * windows have the same taps in bounds (x: the first pixel's input at its
 * window's first in-bounds tap, the next x_step further; rows x cols taps
 * from tap (ky0, kx0)), stored at y[c], the next y_step further. Out of line,
 * so that the row loops leave it the registers (inlined, the dot products
 * spilled), and a row's interior pixels in one call. */
TF_INNER_LOOP static void window_dsp_pixels(const dsp_element* x, dsp_element* y, int32_t count, ptrdiff_t x_step,
                                            ptrdiff_t y_step, int32_t c_begin, int32_t c_end, int32_t ky0,
                                            int32_t rows, int32_t kx0, int32_t cols, const window_dsp_call* k) {
  const tf_conv_params* p = k->p;
  const int32_t* bias = (const int32_t*)p->bias;
  const int32_t cin = k->cin;
  const int32_t run = k->runs_per_row ? cols * cin : cin, runs = k->runs_per_row ? 1 : cols;
  const ptrdiff_t first = (ptrdiff_t)ky0 * k->row_weights + (ptrdiff_t)kx0 * cin;
  int32_t i, c;
  if (k->runs_per_row && ((c_end - c_begin) & 1)) {
    /* The channel outside the pairs, pixels two at a time. */
    --c_end;
    window_dsp_channel(x, y + c_end, count, x_step, y_step, k->weights + (ptrdiff_t)c_end * k->filter + first, rows,
                       run, c_end, k);
    if (c_end == c_begin) return;
  }
  for (i = 0; i < count; ++i, x += x_step, y += y_step) {
  for (c = c_begin; c < c_end; c += 2) {
    const int32_t pair = c_end - c >= 2;
    const dsp_element* w = k->weights + (ptrdiff_t)c * k->filter + first;
    const dsp_element* x_row = x;
    int32_t acc[2], ky, r;
    acc[0] = bias[c];
    acc[1] = pair ? bias[c + 1] : 0;
    for (ky = 0; ky < rows; ++ky, x_row += k->x_row_step, w += k->row_weights) {
      for (r = 0; r < runs; ++r) {
        const dsp_element* xr = x_row + (ptrdiff_t)r * k->x_tap_step;
        const dsp_element* wr = w + (ptrdiff_t)r * cin;
        if (pair) {
          dot_dsp_1x2(xr, wr, wr + k->filter, run, p->input_offset, p->weight_offset, acc);
        } else {
          acc[0] = window_dsp_dot1(xr, wr, run, k, acc[0]);
        }
      }
    }
    if (pair) {
      dsp_store2(y + c, tf_requantize(acc[0], &p->requant[c]), tf_requantize(acc[1], &p->requant[c + 1]), &k->clamp);
    } else {
      y[c] = dsp_requantize(acc[0], &p->requant[c], &k->clamp);
    }
  }
  }
}

#ifdef TF_CONV_WINDOW_DSP
/* Pixels [0, count) of output column ox of the rows from oy (x_col: image
 * n's input at row oy's first window row), every window row in bounds: the
 * column's windows have the same taps in bounds, so they are one run of
 * window_dsp_pixels down the column (a border column of a one-channel call
 * is then a run of pixel pairs, not one call a pixel). */
static void window_dsp_column(const dsp_element* x_col, dsp_element* y_col, int32_t ox, int32_t count,
                              const tf_view* input, const tf_view* output, int32_t out_begin, int32_t out_end,
                              const window_dsp_call* k) {
  const tf_conv_params* p = k->p;
  const int32_t ix0 = ox * p->stride_w - p->pad_left;
  int32_t kx_begin, kx_end;
  conv_tap_range(ix0, p->dilation_w, p->kernel_w, input->shape[2], &kx_begin, &kx_end);
  window_dsp_pixels(x_col + (ptrdiff_t)(ix0 + kx_begin * p->dilation_w) * input->strides[2],
                    y_col + (ptrdiff_t)ox * output->strides[2], count, (ptrdiff_t)p->stride_h * input->strides[1],
                    output->strides[1], out_begin, out_end, 0, p->kernel_h, kx_begin, kx_end - kx_begin, k);
}

void TF_CONV_WINDOW_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* p, int32_t out_begin,
                        int32_t out_end) {
  const ptrdiff_t xs0 = input->strides[0], xs1 = input->strides[1], xs2 = input->strides[2];
  const ptrdiff_t ys2 = output->strides[2];
  const int32_t out_cols = output->shape[2], in_cols = input->shape[2];
  const int32_t out_rows = output->shape[1], in_rows = input->shape[1];
  const int32_t last_tap_w = (p->kernel_w - 1) * p->dilation_w, last_tap_h = (p->kernel_h - 1) * p->dilation_h;
  window_dsp_call k;
  int32_t interior_begin = 0, interior_end = out_cols, interior_served = 0, rows_begin = 0, rows_end = out_rows;
  int32_t n, oy, ox;
  k.p = p;
  k.weights = (const dsp_element*)p->weights;
  k.cin = p->in_channels;
  k.row_weights = p->kernel_w * p->in_channels;
  k.filter = p->kernel_h * k.row_weights;
  k.x_row_step = (ptrdiff_t)p->dilation_h * xs1;
  k.x_tap_step = (ptrdiff_t)p->dilation_w * xs2;
  k.runs_per_row = p->dilation_w == 1 && xs2 == p->in_channels;
  k.x_offset_lanes = tf_splat_lanes(p->input_offset);
  k.w_offset_lanes = tf_splat_lanes(p->weight_offset);
  k.clamp = dsp_make_clamp(p);
  /* Interior columns: every tap of the window's rows in bounds. */
  while (interior_begin < out_cols && interior_begin * p->stride_w - p->pad_left < 0) ++interior_begin;
  while (interior_end > interior_begin && (interior_end - 1) * p->stride_w - p->pad_left + last_tap_w >= in_cols) {
    --interior_end;
  }
  /* Interior rows: every window row in bounds. */
  while (rows_begin < out_rows && rows_begin * p->stride_h - p->pad_top < 0) ++rows_begin;
  while (rows_end > rows_begin && (rows_end - 1) * p->stride_h - p->pad_top + last_tap_h >= in_rows) --rows_end;
  if (window_dsp_channel9_serves(p, &k, (ptrdiff_t)p->stride_w * xs2, out_end - out_begin,
                                 interior_end - interior_begin)) {
    window_dsp_channel9(input, output, (dsp_element*)output->data, out_begin, interior_begin,
                        interior_end - interior_begin, (ptrdiff_t)p->stride_w * xs2, &k);
    interior_served = 1;
  }
  for (n = 0; n < output->shape[0]; ++n) {
    const dsp_element* const x_n = (const dsp_element*)input->data + (ptrdiff_t)n * xs0;
    dsp_element* const y_n = (dsp_element*)output->data + (ptrdiff_t)n * output->strides[0] - out_begin;
    /* The border columns of the interior rows, a run down each column. */
    if (rows_end > rows_begin) {
      const dsp_element* const x_col = x_n + (ptrdiff_t)(rows_begin * p->stride_h - p->pad_top) * xs1;
      dsp_element* const y_col = y_n + (ptrdiff_t)rows_begin * output->strides[1];
      for (ox = 0; ox < interior_begin; ++ox) {
        window_dsp_column(x_col, y_col, ox, rows_end - rows_begin, input, output, out_begin, out_end, &k);
      }
      for (ox = interior_end > interior_begin ? interior_end : interior_begin; ox < out_cols; ++ox) {
        window_dsp_column(x_col, y_col, ox, rows_end - rows_begin, input, output, out_begin, out_end, &k);
      }
    }
    for (oy = 0; oy < out_rows; ++oy) {
      const int32_t iy0 = oy * p->stride_h - p->pad_top;
      const int32_t border_row = oy < rows_begin || oy >= rows_end;
      int32_t ky_begin, ky_end;
      const dsp_element* x_row;
      dsp_element* const y_row = y_n + (ptrdiff_t)oy * output->strides[1];
      if (!border_row && (interior_served || interior_end == interior_begin)) continue;
      conv_tap_range(iy0, p->dilation_h, p->kernel_h, in_rows, &ky_begin, &ky_end);
      x_row = x_n + (ptrdiff_t)(iy0 + ky_begin * p->dilation_h) * xs1;
      for (ox = 0; ox < out_cols; ++ox) {
        const int32_t ix0 = ox * p->stride_w - p->pad_left;
        int32_t kx_begin, kx_end, count = 1;
        if (ox == interior_begin && interior_end > interior_begin) {
          count = interior_end - interior_begin;
          if (interior_served) {
            ox += count - 1;
            continue;
          }
          kx_begin = 0, kx_end = p->kernel_w;
        } else if (!border_row) {
          continue; /* in its column's run */
        } else {
          conv_tap_range(ix0, p->dilation_w, p->kernel_w, in_cols, &kx_begin, &kx_end);
        }
        window_dsp_pixels(x_row + (ptrdiff_t)(ix0 + kx_begin * p->dilation_w) * xs2, y_row + (ptrdiff_t)ox * ys2, count,
                          (ptrdiff_t)p->stride_w * xs2, ys2, out_begin, out_end, ky_begin, ky_end - ky_begin,
                          kx_begin, kx_end - kx_begin, &k);
        ox += count - 1;
      }
    }
  }
}
#endif
