/* Conv2D as partial im2col + GEMM with 16-bit lanes, over conv_dsp_arithmetic.h
 * (included first). The including file defines TF_CONV_IM2COL_DSP,
 * TF_CONV_IM2COL_DSP_ROWS or TF_CONV_IM2COL_DSP_ACCUMULATE, and with one of
 * the first two TF_CONV_IM2COL_DSP_WIDE for the _wide kernels, whose weights
 * come widened (below).
 *
 * Three output pixels at a time: their input windows are gathered into the
 * workspace, widened to 16 bits with the input offset added (zero where the
 * window leaves the input), then the output channels, two at a time, are dot
 * products of their weights with the three columns. Per group of four taps:
 * one 64-bit load of the pair's weights and four widenings shared by the
 * three pixels, three 64-bit column loads shared by the two channels, twelve
 * SMLADs; two groups a loop step: 48 MACs in 45 instructions with GCC 12 -O2
 * (three pixels and two channels keep the twelve live values in the
 * Cortex-M's registers; four pixels by one channel took 23 for 16 MACs, four
 * by two spilled; with the two channels' weights in separate rows, one load
 * each and one group a step, 27 for 24).
 *
 * Weights (params->weights), K = KH * KW * Cin / groups in the IR order
 * (ky, kx, c) and K4 = K rounded up to a multiple of four (zeros after K):
 * whole / chunk and rows calls take channel pairs, uint64_t
 * w[ceil(Cout / 2)][K4 / 4], channel 2i's four taps of a group in the low
 * word and 2i + 1's in the high word (zeros past Cout); the _wide kernels
 * take them widened to int16 with the weight offset added by the compiler,
 * uint64_t w[ceil(Cout / 2)][K4 / 4][2], per pair and group channel 2i's
 * lanes (w0, w2) and (w1, w3) in the first word and 2i + 1's in the second,
 * so their GEMM loads weights and widens nothing (two bytes a weight in
 * flash; per 96 MACs eight weight loads instead of four and sixteen
 * widenings, four groups a loop step: 74 instructions with GCC 12 -O2);
 * accumulate calls take
 * int8 / uint8 rows w[Cout][K4], then 4 more zero bytes (a 1x1 accumulate
 * chunk starts at any input channel and reads up to 3 weights past its
 * channels; the workspace's zero lanes cancel them). The workspace (8-byte
 * aligned) holds TF_CONV_IM2COL_PIXELS columns of K4 16-bit lanes and a
 * staging row of K4 bytes: tf_conv2d_im2col_workspace_bytes(K). */
#include "tinyfit/kernel_templates/conv_taps.h"
#include "tinyfit/kernel_templates/dot_dsp_3x2.h"

#define IM2COL_PIXELS TF_CONV_IM2COL_PIXELS
/* 64-bit weight words per channel pair and group of four taps. */
#ifdef TF_CONV_IM2COL_DSP_WIDE
#define IM2COL_GROUP_WORDS 2
#else
#define IM2COL_GROUP_WORDS 1
#endif
/* The GEMM below is written out for three pixels. */
typedef char im2col_three_pixels[IM2COL_PIXELS == 3 ? 1 : -1];

/* Columns: pixel p's group j is 64-bit word j * IM2COL_PIXELS + p, the even
 * and odd elements of its four (dsp_widen_even / odd) in its low and high
 * halves: written as 64-bit words (one STRD), read as the 32-bit halves. */
typedef struct im2col_columns {
  uint64_t* words;
  dsp_element* staging; /* unaligned taps: one column of raw elements */
  int32_t k4;           /* lanes per column */
} im2col_columns;

/* The window geometry of a call. */
typedef struct im2col_window {
  int32_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int32_t channels; /* per tap: the node's Cin / groups, or an accumulate chunk's */
} im2col_window;

/* Widens one word of four raw elements into the column word at `out`. */
static inline void im2col_widen_word(uint64_t* out, uint32_t xw, uint32_t x_offset_lanes) {
  *out = dsp_widen_column_word(xw, x_offset_lanes);
}

/* Widens `groups` groups of four raw elements into pixel p's column from
 * group j on. */
static inline void im2col_widen(const im2col_columns* cols, int32_t p, int32_t j, const dsp_element* x, int32_t groups,
                                uint32_t x_offset_lanes) {
  uint64_t* out = cols->words + (ptrdiff_t)j * IM2COL_PIXELS + p;
  const dsp_element* const x_end = x + groups * 4;
  for (; x < x_end; x += 4, out += IM2COL_PIXELS) im2col_widen_word(out, tf_load_u32(x), x_offset_lanes);
}

/* Elements [k, k + count) of pixel p's column, when their source is outside
 * the input: zero lanes (aligned taps) or the input zero point (staging). */
static inline void im2col_fill(const im2col_columns* cols, int32_t p, int32_t k, int32_t count, int32_t aligned,
                               dsp_element zero_point) {
  int32_t i;
  if (aligned) {
    uint64_t* out = cols->words + (ptrdiff_t)(k >> 2) * IM2COL_PIXELS + p;
    for (i = 0; i < count; i += 4, out += IM2COL_PIXELS) *out = 0;
  } else {
    for (i = 0; i < count; ++i) cols->staging[k + i] = zero_point;
  }
}

/* Elements [k, k + count) of pixel p's column from contiguous input x. */
static inline void im2col_copy(const im2col_columns* cols, int32_t p, int32_t k, const dsp_element* x, int32_t count,
                               int32_t aligned, uint32_t x_offset_lanes) {
  int32_t i = 0;
  if (aligned) {
    im2col_widen(cols, p, k >> 2, x, count >> 2, x_offset_lanes);
    return;
  }
  for (; i + 4 <= count; i += 4) tf_store_u32(cols->staging + k + i, tf_load_u32(x + i));
  for (; i < count; ++i) cols->staging[k + i] = x[i];
}

/* Pixel p's column from a window whose every tap is in the input and whose
 * rows are contiguous runs of kernel_w * channels elements (not dilated
 * along the row, the view dense along it): x_row at its first tap, row_step
 * elements between its rows. Taps of a multiple of four channels are widened
 * row by row straight into the column; other widths (an RGB stem) are copied
 * row by row as raw elements into the staging row, then widened as one. */
static inline void im2col_gather_inside(const im2col_columns* cols, int32_t p, const dsp_element* x_row,
                                        ptrdiff_t row_step, const im2col_window* win, dsp_element zero_point,
                                        uint32_t x_offset_lanes) {
  const int32_t row_elements = win->kernel_w * win->channels;
  const int32_t k = win->kernel_h * row_elements;
  dsp_element* staged = cols->staging;
  int32_t ky;
  if ((win->channels & 3) == 0) {
    for (ky = 0; ky < win->kernel_h; ++ky, x_row += row_step) {
      im2col_widen(cols, p, (ky * row_elements) >> 2, x_row, row_elements >> 2, x_offset_lanes);
    }
    return;
  }
  if (win->kernel_h == 3 && row_elements == 9) {
    /* 3x3 over three channels: the window's 27 elements and a 28th lane
     * (the zero point: it widens to 0) as seven words read straight from
     * its three rows (unaligned loads within each row's nine bytes) and
     * widened into the column, no staging row (staging cost about 100
     * instructions a pixel). */
    const dsp_element* const r1 = x_row + row_step;
    const dsp_element* const r2 = r1 + row_step;
    uint64_t* const out = cols->words + p;
    im2col_widen_word(out, tf_load_u32(x_row), x_offset_lanes);
    im2col_widen_word(out + IM2COL_PIXELS, tf_load_u32(x_row + 4), x_offset_lanes);
    im2col_widen_word(out + 2 * IM2COL_PIXELS, (uint32_t)(uint8_t)x_row[8] | tf_load_u32(r1) << 8, x_offset_lanes);
    im2col_widen_word(out + 3 * IM2COL_PIXELS, tf_load_u32(r1 + 3), x_offset_lanes);
    im2col_widen_word(out + 4 * IM2COL_PIXELS, ((uint32_t)tf_load_s16(r1 + 7) & 0xffffu) | tf_load_u32(r2) << 16,
                      x_offset_lanes);
    im2col_widen_word(out + 5 * IM2COL_PIXELS, tf_load_u32(r2 + 2), x_offset_lanes);
    im2col_widen_word(out + 6 * IM2COL_PIXELS, tf_load_u32(r2 + 5) >> 8 | (uint32_t)(uint8_t)zero_point << 24,
                      x_offset_lanes);
    return;
  }
  for (ky = 0; ky < win->kernel_h; ++ky, x_row += row_step, staged += row_elements) {
    int32_t i = 0;
    if (row_elements == 9) {
      /* 3 taps x 3 channels, written out: two words and a byte. */
      tf_store_u32(staged, tf_load_u32(x_row));
      tf_store_u32(staged + 4, tf_load_u32(x_row + 4));
      staged[8] = x_row[8];
      continue;
    }
    for (; i + 4 <= row_elements; i += 4) tf_store_u32(staged + i, tf_load_u32(x_row + i));
    for (; i < row_elements; ++i) staged[i] = x_row[i];
  }
  im2col_fill(cols, p, k, cols->k4 - k, 0, zero_point);
  im2col_widen(cols, p, 0, cols->staging, cols->k4 >> 2, x_offset_lanes);
}

/* Whether a window's rows are contiguous runs in the input view
 * (im2col_gather_inside's requirement). */
static inline int32_t im2col_rows_contiguous(const tf_view* input, const im2col_window* win) {
  return win->dilation_w == 1 && input->strides[2] == win->channels;
}

/* Pixel p's column from the input view (its channel 0 is the first of the
 * tap's `channels`): window at input (iy0, ix0) of image n. Taps of a multiple
 * of four channels are widened straight into the column (zero words for taps
 * outside the input); other widths are first copied as raw elements into the
 * staging row, the input zero point standing for taps outside (it widens to
 * 0), and widened as one. The in-bounds taps of a row are one contiguous run
 * when the view is dense along the row and not dilated. */
static void im2col_gather(const im2col_columns* cols, int32_t p, const tf_view* input, const im2col_window* win,
                          int32_t n, int32_t iy0, int32_t ix0, int32_t x_offset, uint32_t x_offset_lanes) {
  const int32_t channels = win->channels;
  const int32_t aligned = (channels & 3) == 0;
  const int32_t row_elements = win->kernel_w * channels;
  const ptrdiff_t xs2 = input->strides[2];
  const int32_t contiguous = im2col_rows_contiguous(input, win);
  const dsp_element zero_point = (dsp_element)(-x_offset);
  int32_t ky_begin, ky_end, kx_begin, kx_end, ky, kx;
  if ((contiguous || (win->kernel_h == 1 && win->kernel_w == 1)) && iy0 >= 0 && ix0 >= 0 &&
      iy0 + (win->kernel_h - 1) * win->dilation_h < input->shape[1] && ix0 + win->kernel_w <= input->shape[2]) {
    /* A whole window in bounds: no tap ranges, no fills. */
    im2col_gather_inside(cols, p,
                         (const dsp_element*)input->data + (ptrdiff_t)n * input->strides[0] +
                             (ptrdiff_t)iy0 * input->strides[1] + (ptrdiff_t)ix0 * xs2,
                         (ptrdiff_t)win->dilation_h * input->strides[1], win, zero_point, x_offset_lanes);
    return;
  }
  conv_tap_range(iy0, win->dilation_h, win->kernel_h, input->shape[1], &ky_begin, &ky_end);
  conv_tap_range(ix0, win->dilation_w, win->kernel_w, input->shape[2], &kx_begin, &kx_end);
  for (ky = 0; ky < win->kernel_h; ++ky) {
    const int32_t k = ky * row_elements;
    const dsp_element* x_row;
    if (ky < ky_begin || ky >= ky_end) {
      im2col_fill(cols, p, k, row_elements, aligned, zero_point);
      continue;
    }
    x_row = (const dsp_element*)input->data + (ptrdiff_t)n * input->strides[0] +
            (ptrdiff_t)(iy0 + ky * win->dilation_h) * input->strides[1] + (ptrdiff_t)ix0 * xs2;
    im2col_fill(cols, p, k, kx_begin * channels, aligned, zero_point);
    if (contiguous) {
      im2col_copy(cols, p, k + kx_begin * channels, x_row + (ptrdiff_t)kx_begin * xs2, (kx_end - kx_begin) * channels,
                  aligned, x_offset_lanes);
    } else {
      for (kx = kx_begin; kx < kx_end; ++kx) {
        im2col_copy(cols, p, k + kx * channels, x_row + (ptrdiff_t)kx * win->dilation_w * xs2, channels, aligned,
                    x_offset_lanes);
      }
    }
    im2col_fill(cols, p, k + kx_end * channels, (win->kernel_w - kx_end) * channels, aligned, zero_point);
  }
  if (!aligned) {
    const int32_t k = win->kernel_h * row_elements;
    im2col_fill(cols, p, k, cols->k4 - k, 0, zero_point);
    im2col_widen(cols, p, 0, cols->staging, cols->k4 >> 2, x_offset_lanes);
  }
}

/* Where a group of pixels writes: element offsets of each pixel in the output
 * view, and how many of the group are real (the last group of a call may
 * have fewer; the others repeat the first pixel's window, so their results
 * are the first pixel's). */
typedef struct im2col_targets {
  ptrdiff_t y[IM2COL_PIXELS];
  int32_t count;
} im2col_targets;

#ifdef TF_CONV_IM2COL_DSP_ACCUMULATE

/* acc[p][j] += weights of channel j (k4 of them, from w[j]) . column p, for
 * the three pixels and two channels (weights in rows: an accumulate chunk
 * starts at any input channel), two weight loads a group (27 instructions
 * for 24 MACs, two of them a spilled pointer). */
static inline void im2col_dot3x2(const uint64_t* columns, const dsp_element* w0, const dsp_element* w1, int32_t k4,
                                 uint32_t w_offset_lanes, int32_t acc[6]) {
  int32_t a00 = acc[0], a01 = acc[1], a10 = acc[2], a11 = acc[3], a20 = acc[4], a21 = acc[5];
  const dsp_element* const w_end = w0 + k4;
  for (; w0 < w_end; w0 += 4, w1 += 4, columns += IM2COL_PIXELS) {
    DOT_DSP_3X2_WEIGHTS(tf_load_u32(w0), tf_load_u32(w1), columns);
  }
  acc[0] = a00, acc[1] = a01, acc[2] = a10, acc[3] = a11, acc[4] = a20, acc[5] = a21;
}

/* The contribution of the gathered pixels' input channels to the int32/16/8
 * accumulators of channels [c_begin, c_end), two at a time (an odd last
 * channel is computed twice), each channel's weights k4 from `w`, the next
 * channel's row_k4 further on. */
TF_INNER_LOOP static void im2col_accumulate_channels(const uint64_t* columns, const dsp_element* w, int32_t row_k4,
                                                     int32_t k4, int32_t c_begin, int32_t c_end,
                                                     const im2col_targets* targets, const tf_view* output,
                                                     const tf_conv_params* p, int32_t bits, int32_t first) {
  const uint32_t w_offset_lanes = tf_splat_lanes(p->weight_offset);
  int32_t c, i, j;
  for (c = c_begin; c < c_end; c += 2, w += 2 * row_k4) {
    const int32_t pair = c + 1 < c_end;
    int32_t acc[2 * IM2COL_PIXELS] = {0};
    im2col_dot3x2(columns, w, w + pair * row_k4, k4, w_offset_lanes, acc);
    for (j = 0; j <= pair; ++j) {
      for (i = 0; i < targets->count; ++i) {
        conv_store_accumulator(output->data, targets->y[i] + c + j, (conv_sum)acc[2 * i + j], c + j, p, bits, first);
      }
    }
  }
}

#else

/* A channel pair's group of four taps at w against the three columns at x:
 * one 64-bit word of raw weights (channel 0's four in the low half, channel
 * 1's in the high one), or with widened weights two (each channel's lanes
 * (w0, w2) in the low half, (w1, w3) in the high one). */
#ifdef TF_CONV_IM2COL_DSP_WIDE
#define IM2COL_WEIGHT_GROUP(w, x)                                                                   \
  do {                                                                                              \
    const uint64_t w0_ = (w)[0], w1_ = (w)[1];                                                      \
    DOT_DSP_3X2_LANES((uint32_t)w0_, (uint32_t)(w0_ >> 32), (uint32_t)w1_, (uint32_t)(w1_ >> 32), x);  \
  } while (0)
#else
#define IM2COL_WEIGHT_GROUP(w, x) DOT_DSP_3X2_PAIR_WORD(w, x)
#endif

/* Channel c of the gathered pixels when its pair partner is outside the
 * call's channels (a chunk that starts or ends inside a pair): the pair's
 * dot products, channel c requantised through its folded record when the
 * call has them (folded, the compiler then emits no plain ones), else its
 * plain one, and stored at y[i][c]. Out of line: at most two a call. */
static void im2col_lone_channel(const uint64_t* columns, const uint64_t* words, int32_t groups, int32_t c,
                                dsp_element* const y[IM2COL_PIXELS], const tf_conv_params* p,
                                const tf_requant_folded* folded, const dsp_clamp* clamp) {
#ifndef TF_CONV_IM2COL_DSP_WIDE
  const uint32_t w_offset_lanes = tf_splat_lanes(p->weight_offset);
#endif
  const int32_t b = ((const int32_t*)p->bias)[c];
  const uint64_t* w = words + (ptrdiff_t)(c >> 1) * groups * IM2COL_GROUP_WORDS;
  const uint64_t* const w_end = w + groups * IM2COL_GROUP_WORDS;
  const uint64_t* x = columns;
  int32_t a00 = b, a01 = b, a10 = b, a11 = b, a20 = b, a21 = b, i;
  int32_t sums[IM2COL_PIXELS];
#ifdef TF_CONV_IM2COL_DSP_WIDE
  for (; w < w_end; w += IM2COL_GROUP_WORDS, x += IM2COL_PIXELS) IM2COL_WEIGHT_GROUP(w, x);
#else
  for (; w < w_end; ++w, x += IM2COL_PIXELS) DOT_DSP_3X2_WEIGHTS((uint32_t)*w, (uint32_t)(*w >> 32), x);
#endif
  sums[0] = (c & 1) ? a01 : a00, sums[1] = (c & 1) ? a11 : a10, sums[2] = (c & 1) ? a21 : a20;
  if (folded != NULL) {
    const tf_requant_folded f = folded[c];
    const dsp_clamp folded_clamp = dsp_folded_clamp(clamp);
    for (i = 0; i < IM2COL_PIXELS; ++i) y[i][c] = dsp_clamp_output(dsp_requantize_folded(sums[i], &f), &folded_clamp);
  } else {
    const tf_requant_channel q = p->requant[c];
    for (i = 0; i < IM2COL_PIXELS; ++i) y[i][c] = dsp_requantize(sums[i], &q, clamp);
  }
}

/* What every group of pixels of a whole / chunk call shares: the weights,
 * `groups` groups of IM2COL_GROUP_WORDS 64-bit words a channel pair, and the constants of the
 * requantisation, made once a call. */
typedef struct im2col_call {
  const tf_conv_params* p;
  const uint64_t* words;
  int32_t groups;
  uint32_t w_offset_lanes;
  int32_t narrowed; /* the activation narrows the element range: stores clamp lane-wise */
  dsp_clamp clamp;
  const tf_requant_folded* folded; /* params->requant_folded (NULL: params->requant; never both) */
} im2col_call;

static im2col_call im2col_make_call(const tf_conv_params* p, int32_t groups) {
  im2col_call k;
  k.p = p;
  k.words = (const uint64_t*)p->weights;
  k.groups = groups;
  k.w_offset_lanes = tf_splat_lanes(p->weight_offset);
  k.clamp = dsp_make_clamp(p);
  k.narrowed = dsp_clamp_narrows(&k.clamp);
  k.folded = p->requant_folded;
  return k;
}

/* The pair's six sums (a00..a21: pixel p, channel j) requantised by
 * `requantize` through the records r[0], r[1] (of type `Record`, copied out
 * once for their three pixels) and stored at y0, y0 + y1, y0 + y2 through
 * `clamp_of`: lane-wise when `narrowed`, else saturated byte by byte. One
 * body for the plain and the folded records (im2col_pairs). */
#define IM2COL_REQUANTIZE_STORE_3X2(Record, requantize, r, clamp_of)                 \
  do {                                                                               \
    {                                                                                \
      const Record r0 = (r)[0];                                                      \
      a00 = requantize(a00, &r0), a10 = requantize(a10, &r0);                        \
      a20 = requantize(a20, &r0);                                                    \
    }                                                                                \
    {                                                                                \
      const Record r1 = (r)[1];                                                      \
      a01 = requantize(a01, &r1), a11 = requantize(a11, &r1);                        \
      a21 = requantize(a21, &r1);                                                    \
    }                                                                                \
    if (narrowed) {                                                                  \
      dsp_store2(y0, a00, a01, clamp_of);                                            \
      dsp_store2(y0 + y1, a10, a11, clamp_of);                                       \
      dsp_store2(y0 + y2, a20, a21, clamp_of);                                       \
    } else {                                                                         \
      dsp_store2_saturated(y0, a00, a01, clamp_of);                                  \
      dsp_store2_saturated(y0 + y1, a10, a11, clamp_of);                             \
      dsp_store2_saturated(y0 + y2, a20, a21, clamp_of);                             \
    }                                                                                \
  } while (0)

#ifdef TF_CONV_IM2COL_DSP_WIDE
/* The _wide kernels' pair loop (in im2col_pairs): the pairs from w on until y0 reaches y0_end,
 * requantised through the records r (of type `Record`, by `requantize`,
 * stored through `clamp_of`), one copy for the folded records and one for
 * the plain ones, so that no pair tests which. The first group of four taps
 * starts from the bias (no copies of it into the six sums), then one and two
 * more as the count of the groups after it asks, then four groups a step
 * (74 instructions per 96 MACs with GCC 12 -O2); the step runs through the
 * columns (their end the call's) and leaves w at the next pair's weights. */
#define IM2COL_PAIR_LOOP(Record, requantize, r, clamp_of)                                \
  do {                                                                                   \
    int32_t a00 = b[0], a01 = b[1], a10 = a00, a11 = a01, a20 = a00, a21 = a01;          \
    const uint64_t* x = columns + IM2COL_PIXELS;                                         \
    IM2COL_WEIGHT_GROUP(w, columns);                                                     \
    w += IM2COL_GROUP_WORDS;                                                             \
    if (((groups - 1) & 1) != 0) {                                                       \
      IM2COL_WEIGHT_GROUP(w, x);                                                         \
      w += IM2COL_GROUP_WORDS, x += IM2COL_PIXELS;                                       \
    }                                                                                    \
    if (((groups - 1) & 2) != 0) {                                                       \
      IM2COL_WEIGHT_GROUP(w, x);                                                         \
      IM2COL_WEIGHT_GROUP(w + IM2COL_GROUP_WORDS, x + IM2COL_PIXELS);                    \
      w += 2 * IM2COL_GROUP_WORDS, x += 2 * IM2COL_PIXELS;                               \
    }                                                                                    \
    for (; x < x_end; w += 4 * IM2COL_GROUP_WORDS, x += 4 * IM2COL_PIXELS) {             \
      IM2COL_WEIGHT_GROUP(w, x);                                                         \
      IM2COL_WEIGHT_GROUP(w + IM2COL_GROUP_WORDS, x + IM2COL_PIXELS);                    \
      IM2COL_WEIGHT_GROUP(w + 2 * IM2COL_GROUP_WORDS, x + 2 * IM2COL_PIXELS);            \
      IM2COL_WEIGHT_GROUP(w + 3 * IM2COL_GROUP_WORDS, x + 3 * IM2COL_PIXELS);            \
    }                                                                                    \
    IM2COL_REQUANTIZE_STORE_3X2(Record, requantize, r, clamp_of);                        \
    b += 2, r += 2, y0 += 2;                                                             \
  } while (y0 < y0_end)

/* The columns' end, for the pair loop above. */
#define IM2COL_DECLARE_COLUMNS_END const uint64_t* const x_end = columns + (ptrdiff_t)groups * IM2COL_PIXELS
#else
/* The pair loop of the kernels with int8 / uint8 weights, as the _wide
 * kernels' above: the pairs from w on until y0 reaches y0_end, two groups of
 * four taps a step after an odd first one, requantised through the records r
 * (one copy for the folded records and one for the plain ones: a test per
 * pair made a 1x1 chunk's loop over pixels spill more). */
#define IM2COL_PAIR_LOOP(Record, requantize, r, clamp_of)                                \
  do {                                                                                   \
    int32_t a00 = b[0], a01 = b[1], a10 = a00, a11 = a01, a20 = a00, a21 = a01;          \
    const uint64_t* const w_end = w + groups;                                            \
    const uint64_t* x = columns;                                                         \
    if (groups & 1) {                                                                    \
      IM2COL_WEIGHT_GROUP(w, x);                                                         \
      ++w, x += IM2COL_PIXELS;                                                           \
    }                                                                                    \
    for (; w < w_end; w += 2, x += 2 * IM2COL_PIXELS) {                                  \
      IM2COL_WEIGHT_GROUP(w, x);                                                         \
      IM2COL_WEIGHT_GROUP(w + 1, x + IM2COL_PIXELS);                                     \
    }                                                                                    \
    IM2COL_REQUANTIZE_STORE_3X2(Record, requantize, r, clamp_of);                        \
    b += 2, r += 2, y0 += 2;                                                             \
  } while (y0 < y0_end)
#define IM2COL_DECLARE_COLUMNS_END (void)0
#endif

/* The pairs [pair_begin, pair_end) of the three gathered pixels of `columns`
 * (in im2col_pairs and im2col_pointwise, from their constants w_first,
 * b_first, f_first, q_first of the range), stored from y_first (pixel 0's
 * first pair) and y_first + y1, y_first + y2 (y1, y2: the caller's). */
#define IM2COL_PAIRS(y_first)                                                      \
  do {                                                                             \
    const uint64_t* w = w_first;                                                   \
    const int32_t* b = b_first;                                                    \
    dsp_element* y0 = (y_first);                                                   \
    dsp_element* const y0_end = y0 + (pair_end - pair_begin);                      \
    IM2COL_DECLARE_COLUMNS_END;                                                    \
    if (f_first != NULL) {                                                         \
      const tf_requant_folded* f = f_first;                                        \
      IM2COL_PAIR_LOOP(tf_requant_folded, dsp_requantize_folded, f, &folded_clamp); \
    } else {                                                                       \
      const tf_requant_channel* q = q_first;                                       \
      IM2COL_PAIR_LOOP(tf_requant_channel, dsp_requantize_smmlar, q, &clamp);      \
    }                                                                              \
  } while (0)

/* A run of pixels whose columns need no coordinates: `pixels` pixels in
 * rows of `run_cols` (the pixels of an image whose windows are wholly in the
 * input, im2col_run; in the _wide kernels also a dense pointwise call's
 * pixels, im2col_is_dense_pointwise: one row of them all), each row's pixels
 * x_step elements apart in the input from x on and y_step apart in the
 * output from y on (already moved back by the call's first channel), the
 * rows x_row_step and y_row_step apart. window NULL (_wide only): a pixel's
 * column is its `words` words of four channels, widened; else the window's
 * taps from its x (im2col_gather_inside, window rows tap_row_step apart,
 * into cols). */
typedef struct im2col_pixel_run {
  const dsp_element* x;
  dsp_element* y;
  ptrdiff_t x_step, y_step, x_row_step, y_row_step;
  int32_t pixels, run_cols, words;
  uint32_t x_offset_lanes;
  const im2col_window* window;
  const im2col_columns* cols;
  ptrdiff_t tap_row_step;
  dsp_element zero_point;
} im2col_pixel_run;

/* Channels [c_begin, c_end) of groups of three pixels, requantised and
 * stored at y[i][c] (y[i] already moved back by the call's first channel; a
 * repeated pixel stores its first pixel's value again): the gathered pixels
 * of `columns` (dense NULL: one group, at y), or every pixel of a run
 * (im2col_pixel_run), three at a time, each pixel's window gathered straight
 * into its column (a last group of fewer repeats its first pixel, as
 * im2col_run does). The call's constants are made once a call (im2col_call)
 * and the channel range's once a call of this function: a run
 * runs all its groups here, because this set-up made once a group of
 * three pixels cost a 1x1 chunk of 8 of 48 channels about 227 instructions a
 * group more than the whole call on the Cortex-M4 (mcunet_vww's and
 * MobileNetV2-96's partial execution loops). The pairs (2i, 2i + 1) that
 * hold the range, each pair's `groups` 64-bit words from `words` on, channel
 * 2i's four taps of a group in the low half and 2i + 1's in the high one, so
 * one load brings both; a channel whose partner is outside the range runs
 * im2col_lone_channel. Per pair: acc[p][j] += weights of channel j . column
 * p for the three pixels, two groups of four taps a step (per 48 MACs two
 * weight loads, eight widenings, six column loads and 24 SMLADs), then six
 * requantisations (SMMLAR), each channel's constants copied out once for its
 * three pixels and all six values computed before the first store (an
 * element store may alias the constants: GCC reloaded five of them per
 * value), with the output zero point folded into the constants when the
 * compiler emitted such records (params->requant_folded: two instructions a
 * value fewer), then stored: clamped lane-wise and two bytes a store when the
 * activation narrows the type's range, else saturated byte by byte. The pair
 * loop and the dot products are one function: a call per pair cost about 40
 * instructions (saving registers, the accumulators through memory); the
 * weights, bias, constants and output run on from pair to pair as pointers
 * (indexing them by channel cost about 16 instructions a pair more, reloaded
 * from the stack after the dot products). */
TF_INNER_LOOP static void im2col_pairs(uint64_t* columns, const im2col_call* k, int32_t c_begin, int32_t c_end,
                                       dsp_element* const y_group[IM2COL_PIXELS], const im2col_pixel_run* dense) {
  const uint64_t* const words = k->words;
  const int32_t groups = k->groups;
#ifndef TF_CONV_IM2COL_DSP_WIDE
  const uint32_t w_offset_lanes = k->w_offset_lanes;
#endif
  const dsp_clamp clamp = k->clamp;
  const dsp_clamp folded_clamp = dsp_folded_clamp(&clamp);
  const int32_t narrowed = k->narrowed;
  const tf_conv_params* const p = k->p;
  /* The pairs [pair_begin, pair_end) and the lone channels before and after. */
  const int32_t lone_first = c_begin & 1;
  const int32_t pair_begin = c_begin + lone_first, pair_end = pair_begin + ((c_end - pair_begin) & ~1);
  const uint64_t* const w_first = words + (ptrdiff_t)(pair_begin >> 1) * groups * IM2COL_GROUP_WORDS;
  const int32_t* const b_first = (const int32_t*)p->bias + pair_begin;
  /* One family of records: the folded ones when the compiler emitted
   * them (it then emits no plain ones), else the plain ones. */
  const tf_requant_folded* const f_first = k->folded != NULL ? k->folded + pair_begin : NULL;
  const tf_requant_channel* const q_first = k->folded != NULL ? NULL : p->requant + pair_begin;
  int32_t first_pixel = 0;
  dsp_element* y[IM2COL_PIXELS];
  y[0] = y_group[0], y[1] = y_group[1], y[2] = y_group[2];
  for (;;) {
#ifdef TF_CONV_IM2COL_DSP_WIDE
    if (dense != NULL && dense->window == NULL) {
      /* A dense pointwise group: three pixels a stride apart, their channels
       * widened straight into the columns. */
      const int32_t count = dense->pixels - first_pixel < IM2COL_PIXELS ? dense->pixels - first_pixel : IM2COL_PIXELS;
      const dsp_element* const x0 = dense->x + first_pixel * dense->x_step;
      const dsp_element* const x1 = count > 1 ? x0 + dense->x_step : x0;
      y[0] = dense->y + first_pixel * dense->y_step;
      y[1] = count > 1 ? y[0] + dense->y_step : y[0];
      y[2] = count > 2 ? y[1] + dense->y_step : y[0];
      dot_dsp_widen_three(columns, x0, x1, count > 2 ? x1 + dense->x_step : x0, dense->words, dense->x_offset_lanes);
    } else
#endif
    if (dense != NULL) {
      /* A run's group: its first pixel's row and col (a division: one
       * instruction), a pixel past a row's end starts the next row; a last
       * group of fewer repeats its first pixel. */
      const int32_t count = dense->pixels - first_pixel < IM2COL_PIXELS ? dense->pixels - first_pixel : IM2COL_PIXELS;
      const int32_t row = first_pixel / dense->run_cols;
      int32_t col = first_pixel - row * dense->run_cols, i;
      const dsp_element* x_row = dense->x + row * dense->x_row_step;
      dsp_element* y_row = dense->y + row * dense->y_row_step;
      const dsp_element* x_first = x_row + col * dense->x_step;
      for (i = 0; i < IM2COL_PIXELS; ++i, ++col) {
        const dsp_element* x = x_first;
        if (i < count) {
          if (col == dense->run_cols) col = 0, x_row += dense->x_row_step, y_row += dense->y_row_step;
          x = x_row + col * dense->x_step;
          y[i] = y_row + col * dense->y_step;
        } else {
          y[i] = y[0];
        }
        im2col_gather_inside(dense->cols, i, x, dense->tap_row_step, dense->window, dense->zero_point,
                             dense->x_offset_lanes);
      }
    }
    if (lone_first) im2col_lone_channel(columns, words, groups, c_begin, y, p, k->folded, &clamp);
    if (pair_begin < pair_end) {
      /* The pairs' weights are consecutive: w runs on from pair to pair. */
      const ptrdiff_t y1 = y[1] - y[0], y2 = y[2] - y[0];
      IM2COL_PAIRS(y[0] + pair_begin);
    }
    if (pair_end < c_end) im2col_lone_channel(columns, words, groups, pair_end, y, p, k->folded, &clamp);
    if (dense == NULL) return;
    first_pixel += IM2COL_PIXELS;
    if (first_pixel >= dense->pixels) return;
  }
}

#ifndef TF_CONV_IM2COL_DSP_WIDE
/* A dense pointwise call's pixels (im2col_is_dense_pointwise): pixel i's
 * column is its `words` words of four channels at x_pixel + i * x_step, its
 * output at y + i * y_step (y moved back by the call's first channel);
 * channels [c_begin, c_end) of three pixels at a time as im2col_pairs (a last
 * group of fewer repeats its first pixel). Its own loop, the pixels' pointers
 * advanced by a stride a group: as a run of im2col_pairs (each group's
 * pointers from its first pixel's index, beside the window runs' code) a
 * group's set-up cost about 111 instructions on the Cortex-M4, here about 87,
 * paid per call: a 1x1 chunk of 8 of 48 channels (MobileNetV2-96-w0.35's
 * partial execution) pays it for four pairs, the whole call for 24
 * (tf_qs8_conv2d_im2col__dsp chunk calls 2,964,720 -> 2,817,360 instructions
 * over six chunks, the whole call 2,537,000 -> 2,481,720). */
TF_INNER_LOOP static void im2col_pointwise(uint64_t* columns, const im2col_call* k, int32_t c_begin, int32_t c_end,
                                           const dsp_element* x_pixel, dsp_element* y, ptrdiff_t x_step,
                                           ptrdiff_t y_step, int32_t pixels, int32_t words, uint32_t x_offset_lanes) {
  const int32_t groups = k->groups;
#ifndef TF_CONV_IM2COL_DSP_WIDE
  const uint32_t w_offset_lanes = k->w_offset_lanes;
#endif
  const dsp_clamp clamp = k->clamp;
  const dsp_clamp folded_clamp = dsp_folded_clamp(&clamp);
  const int32_t narrowed = k->narrowed;
  const tf_conv_params* const p = k->p;
  const int32_t lone_first = c_begin & 1;
  const int32_t pair_begin = c_begin + lone_first, pair_end = pair_begin + ((c_end - pair_begin) & ~1);
  const uint64_t* const w_first = k->words + (ptrdiff_t)(pair_begin >> 1) * groups * IM2COL_GROUP_WORDS;
  const int32_t* const b_first = (const int32_t*)p->bias + pair_begin;
  const tf_requant_folded* const f_first = k->folded != NULL ? k->folded + pair_begin : NULL;
  const tf_requant_channel* const q_first = k->folded != NULL ? NULL : p->requant + pair_begin;
  for (; pixels > 0; pixels -= IM2COL_PIXELS, x_pixel += IM2COL_PIXELS * x_step, y += IM2COL_PIXELS * y_step) {
    ptrdiff_t y1 = y_step, y2 = 2 * y_step;
    const dsp_element* x1 = x_pixel + x_step;
    const dsp_element* x2 = x1 + x_step;
    if (pixels < IM2COL_PIXELS) {
      if (pixels < 2) x1 = x_pixel, y1 = 0;
      x2 = x_pixel, y2 = 0;
    }
    dot_dsp_widen_three(columns, x_pixel, x1, x2, words, x_offset_lanes);
    if (lone_first | (pair_end < c_end)) {
      dsp_element* const y_group[IM2COL_PIXELS] = {y, y + y1, y + y2};
      if (lone_first) im2col_lone_channel(columns, k->words, groups, c_begin, y_group, p, k->folded, &clamp);
      if (pair_end < c_end) im2col_lone_channel(columns, k->words, groups, pair_end, y_group, p, k->folded, &clamp);
    }
    if (pair_begin < pair_end) IM2COL_PAIRS(y + pair_begin);
  }
}
#endif

#undef IM2COL_PAIRS
#undef IM2COL_PAIR_LOOP
#undef IM2COL_DECLARE_COLUMNS_END
#undef IM2COL_WEIGHT_GROUP
#undef IM2COL_REQUANTIZE_STORE_3X2

/* Whether output pixel i of the call reads input pixel i alone (a 1x1
 * window, stride 1, no padding, one group, channels in groups of four) and
 * both views' pixels are equally spaced runs (dense rows and images): then
 * pixels advance by one stride, with no coordinates and no window ranges. */
static int32_t im2col_is_dense_pointwise(const tf_view* input, const tf_view* output, const tf_conv_params* p,
                                         const im2col_window* win) {
  int32_t axis;
  if (win->kernel_h != 1 || win->kernel_w != 1 || win->stride_h != 1 || win->stride_w != 1 || p->groups != 1 ||
      (win->channels & 3) != 0 || win->pad_top != 0 || win->pad_left != 0) {
    return 0;
  }
  for (axis = 0; axis < 3; ++axis) {
    if (input->shape[axis] != output->shape[axis]) return 0;
  }
  return input->strides[1] == input->shape[2] * input->strides[2] &&
         output->strides[1] == output->shape[2] * output->strides[2] &&
         (input->shape[0] == 1 || (input->strides[0] == input->shape[1] * input->strides[1] &&
                                   output->strides[0] == output->shape[1] * output->strides[1]));
}

#endif
#undef IM2COL_GROUP_WORDS

/* Moves `next` (image, row, col) on past the pixels of `inside` (rows [0],
 * [1], cols [2], [3] of every image) and past a row's end, to the next pixel
 * the one-by-one loop of im2col_run gathers. Every image has such a pixel
 * when this is called (the loop has pixels left, and the pixels outside
 * `inside` repeat image after image). */
static void im2col_skip_inside(int32_t next[3], int32_t rows, int32_t cols, const int32_t inside[4]) {
  for (;;) {
    if (next[2] == cols) {
      next[2] = 0;
      if (++next[1] == rows) next[1] = 0, ++next[0];
    } else if (next[1] >= inside[0] && next[1] < inside[1] && next[2] >= inside[2] && next[2] < inside[3]) {
      next[2] = inside[3];
    } else {
      return;
    }
  }
}

/* Moves `next` on to the next pixel the one-by-one loop gathers: the next
 * one along the row, wrapping to the next row and image, and past `inside`
 * only when it is not empty (rows [0] < [1]: the accumulate calls and the
 * calls without a run pay no more than the wrap). */
static inline void im2col_next_pixel(int32_t next[3], int32_t rows, int32_t cols, const int32_t inside[4]) {
  if (++next[2] == cols) {
    next[2] = 0;
    if (++next[1] == rows) next[1] = 0, ++next[0];
  }
  if (inside[0] < inside[1]) im2col_skip_inside(next, rows, cols, inside);
}

/* The output pixels of `output` (its (0, 0) the node's (out_row, out_col);
 * the input view's (0, 0) the node's input (in_row, in_col)) in groups of
 * three, channels [out_begin, out_end) (grouped: of every group), written at
 * channel c - out_begin, or (accumulate) the contribution of the input view's
 * channels, the node's from in_begin, added to int32/16/8 accumulators.
 * Whole and chunk calls of one group run a dense pointwise call's pixels, or
 * the pixels whose windows are wholly in the input (contiguous window rows),
 * as runs (im2col_pixel_run: on the Cortex-M4, vww_96's RGB stem 1,228,240 ->
 * 1,021,680 instructions, its pixels' coordinates, tap ranges and the pairs'
 * set-up about 90 instructions a pixel before); the other pixels are gathered
 * one by one with their coordinates. */
static void im2col_run(const tf_view* input, const tf_view* output, const tf_conv_params* p, uint8_t* workspace,
                       int32_t out_begin, int32_t out_end, int32_t out_row, int32_t in_row, int32_t out_col,
                       int32_t in_col, int32_t accumulate, int32_t in_begin, int32_t bits, int32_t first) {
  const int32_t groups = p->groups;
  const int32_t group_out = p->out_channels / groups;
  const int32_t x_offset = p->input_offset;
  const uint32_t x_offset_lanes = tf_splat_lanes(x_offset);
  const int32_t row_k4 = (p->kernel_h * p->kernel_w * (p->in_channels / groups) + 3) & ~3;
  const int32_t out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * output->shape[1] * out_cols;
  im2col_window win;
  im2col_columns cols;
  int32_t remaining = pixels; /* the pixels the loop below gathers one by one */
  /* Output rows and cols [0] <= oy < [1], [2] <= ox < [3] whose windows are
   * wholly in the input, when they ran as one pixel run (else empty). */
  int32_t inside[4] = {0, 0, 0, 0};
  int32_t next[3] = {0, 0, 0}; /* the next pixel's (image, row, col): no divisions per pixel */
  win.kernel_h = p->kernel_h, win.kernel_w = p->kernel_w, win.stride_h = p->stride_h, win.stride_w = p->stride_w;
  win.dilation_h = p->dilation_h, win.dilation_w = p->dilation_w;
  win.pad_top = p->pad_top - out_row * p->stride_h + in_row;
  win.pad_left = p->pad_left - out_col * p->stride_w + in_col;
  win.channels = accumulate ? input->shape[3] : p->in_channels / groups;
  cols.k4 = (win.kernel_h * win.kernel_w * win.channels + 3) & ~3;
  cols.words = (uint64_t*)(void*)workspace;
  cols.staging = (dsp_element*)(void*)(workspace + (ptrdiff_t)cols.k4 * 2 * IM2COL_PIXELS);
#ifndef TF_CONV_IM2COL_DSP_ACCUMULATE
  const im2col_call k = im2col_make_call(p, row_k4 >> 2);
  im2col_pixel_run run;
  dsp_element* y[IM2COL_PIXELS];
  run.x_offset_lanes = x_offset_lanes;
  run.cols = &cols;
  run.zero_point = (dsp_element)(-x_offset);
  if (im2col_is_dense_pointwise(input, output, p, &win)) {
#ifdef TF_CONV_IM2COL_DSP_WIDE
    /* The _wide kernels run it as a run of im2col_pairs: GCC 12 gives their
     * pair loop about 14 instructions a pair more in im2col_pointwise
     * (vww_96's 13 widened calls 7,346,200 -> 7,141,680 instructions on the
     * Cortex-M4 this way, bench/mcu_call_profile.py); the int8-weight
     * kernels' loop is faster in im2col_pointwise. */
    run.x = (const dsp_element*)input->data;
    run.y = (dsp_element*)output->data - out_begin;
    run.x_step = input->strides[2], run.y_step = output->strides[2];
    run.x_row_step = run.y_row_step = 0;
    run.pixels = run.run_cols = pixels;
    run.words = cols.k4 >> 2;
    run.window = NULL;
    run.tap_row_step = 0;
    y[0] = y[1] = y[2] = run.y;
    if (pixels > 0) im2col_pairs(cols.words, &k, out_begin, out_end, y, &run); /* a row call may have none */
#else
    im2col_pointwise(cols.words, &k, out_begin, out_end, (const dsp_element*)input->data,
                     (dsp_element*)output->data - out_begin, input->strides[2], output->strides[2], pixels,
                     cols.k4 >> 2, x_offset_lanes);
#endif
    return;
  }
  if (groups == 1 && im2col_rows_contiguous(input, &win)) {
    /* The pixels whose windows are wholly in the input, image by image as
     * one run (no coordinates, no tap ranges, the pairs' set-up once a run);
     * the loop below gathers the others. */
    const int32_t last_row = (win.kernel_h - 1) * win.dilation_h, last_col = win.kernel_w - 1;
    int32_t n;
    inside[1] = output->shape[1], inside[3] = out_cols;
    while (inside[0] < inside[1] && inside[0] * win.stride_h - win.pad_top < 0) ++inside[0];
    while (inside[1] > inside[0] && (inside[1] - 1) * win.stride_h - win.pad_top + last_row >= input->shape[1]) {
      --inside[1];
    }
    while (inside[2] < inside[3] && inside[2] * win.stride_w - win.pad_left < 0) ++inside[2];
    while (inside[3] > inside[2] && (inside[3] - 1) * win.stride_w - win.pad_left + last_col >= input->shape[2]) {
      --inside[3];
    }
    run.x_step = (ptrdiff_t)win.stride_w * input->strides[2], run.y_step = output->strides[2];
    run.x_row_step = (ptrdiff_t)win.stride_h * input->strides[1], run.y_row_step = output->strides[1];
    run.pixels = (inside[1] - inside[0]) * (inside[3] - inside[2]);
    run.run_cols = inside[3] - inside[2];
    run.window = &win;
    run.tap_row_step = (ptrdiff_t)win.dilation_h * input->strides[1];
    for (n = 0; n < output->shape[0] && run.pixels > 0; ++n) {
      run.x = (const dsp_element*)input->data + (ptrdiff_t)n * input->strides[0] +
              (ptrdiff_t)(inside[0] * win.stride_h - win.pad_top) * input->strides[1] +
              (ptrdiff_t)(inside[2] * win.stride_w - win.pad_left) * input->strides[2];
      run.y = (dsp_element*)output->data + (ptrdiff_t)n * output->strides[0] +
              (ptrdiff_t)inside[0] * output->strides[1] + (ptrdiff_t)inside[2] * output->strides[2] - out_begin;
      y[0] = y[1] = y[2] = run.y;
      im2col_pairs(cols.words, &k, out_begin, out_end, y, &run);
    }
    remaining -= output->shape[0] * run.pixels;
    if (run.pixels == 0) inside[0] = inside[1] = 0;
  }
#endif
  if (remaining > 0 && inside[0] < inside[1]) im2col_skip_inside(next, output->shape[1], out_cols, inside);
  for (; remaining > 0; remaining -= IM2COL_PIXELS) {
    im2col_targets targets;
    int32_t at[IM2COL_PIXELS][3], i, group;
    targets.count = remaining < IM2COL_PIXELS ? remaining : IM2COL_PIXELS;
    for (i = 0; i < IM2COL_PIXELS; ++i) {
      const int32_t* const from = i < targets.count ? next : at[0];
      at[i][0] = from[0], at[i][1] = from[1], at[i][2] = from[2];
      if (i < targets.count) im2col_next_pixel(next, output->shape[1], out_cols, inside);
      targets.y[i] = (ptrdiff_t)at[i][0] * output->strides[0] + (ptrdiff_t)at[i][1] * output->strides[1] +
                     (ptrdiff_t)at[i][2] * output->strides[2];
    }
    for (group = 0; group < groups; ++group) {
      const int32_t c_begin = out_begin > group * group_out ? out_begin : group * group_out;
      const int32_t c_end = out_end < (group + 1) * group_out ? out_end : (group + 1) * group_out;
      tf_view group_input = *input;
      if (c_begin >= c_end) continue;
      group_input.data = (dsp_element*)input->data + group * win.channels;
      for (i = 0; i < IM2COL_PIXELS; ++i) {
        im2col_gather(&cols, i, &group_input, &win, at[i][0], at[i][1] * win.stride_h - win.pad_top,
                      at[i][2] * win.stride_w - win.pad_left, x_offset, x_offset_lanes);
      }
#ifdef TF_CONV_IM2COL_DSP_ACCUMULATE
      im2col_accumulate_channels(cols.words, (const dsp_element*)p->weights + (ptrdiff_t)c_begin * row_k4 + in_begin,
                                 row_k4, cols.k4, c_begin, c_end, &targets, output, p, bits, first);
#else
      (void)in_begin, (void)bits, (void)first;
      for (i = 0; i < IM2COL_PIXELS; ++i) y[i] = (dsp_element*)output->data + targets.y[i] - out_begin;
      im2col_pairs(cols.words, &k, c_begin, c_end, y, (const im2col_pixel_run*)0);
#endif
    }
  }
}

#ifdef TF_CONV_IM2COL_DSP
void TF_CONV_IM2COL_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params, uint8_t* workspace,
                        int32_t out_begin, int32_t out_end) {
  im2col_run(input, output, params, workspace, out_begin, out_end, 0, 0, 0, 0, 0, 0, 32, 1);
}
#endif

#ifdef TF_CONV_IM2COL_DSP_ROWS
/* The part of the output its view shows (rows, cols and channels from its
 * origin) from the input rows and cols the input view shows (all channels),
 * as conv2d_direct_rows. */
void TF_CONV_IM2COL_DSP_ROWS(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                             uint8_t* workspace) {
  im2col_run(input, output, params, workspace, output->origin[3], output->origin[3] + output->shape[3],
             output->origin[1], input->origin[1], output->origin[2], input->origin[2], 0, 0, 32, 1);
}
#endif

#ifdef TF_CONV_IM2COL_DSP_ACCUMULATE
void TF_CONV_IM2COL_DSP_ACCUMULATE(const tf_view* input, const tf_view* accumulator, const tf_conv_params* params,
                                   uint8_t* workspace, int32_t in_begin, int32_t accumulator_bits,
                                   int32_t first_iteration) {
  im2col_run(input, accumulator, params, workspace, 0, params->out_channels, 0, 0, 0, 0, 1, in_begin,
             accumulator_bits, first_iteration);
}
#endif
