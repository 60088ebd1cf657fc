/* Conv2D (groups 1) and FullyConnected in segment order (tinyfit/segment.h)
 * with 16-bit lanes, over conv_dsp_arithmetic.h (included first); the
 * including file then defines TF_CONV_SEGMENT_DSP or TF_FC_SEGMENT_DSP.
 * Weights are the IR layout w[Cout][KH][KW][Cin], requantisation the
 * per-channel tf_requant_channel records (the __dsp kernels' constants).
 *
 * Access order: exactly conv_segment.h's (plan/segment_kernel.h's kConv2D
 * record, which verify_plan replays): per output pixel in traversal order,
 * per block of TF_SEGMENT_CONV_BLOCK output channels in traversal order,
 * every in-bounds tap (all input channels) is loaded, then the block is
 * requantised and stored, after its last load: a whole block of four in one
 * pass over the taps (dot_dsp_block.h), a shorter last block a pair at
 * a time (its taps loaded once per pair, which the rule does not see: it
 * orders stores against later loads, and every load of a block precedes its
 * store). Offsets are added as elements are widened, so a padded
 * tap is skipped and no zero-point terms are needed. */
#include "tinyfit/kernel_templates/conv_segment.h"
#include "tinyfit/kernel_templates/dot_dsp_block.h"
#include "tinyfit/kernel_templates/dot_dsp_step.h"

/* What the pixel loop hands the block loop, once per call. */
typedef struct conv_segment_dsp_call {
  const dsp_element* weights;
  const int32_t* bias;
  const tf_requant_channel* requant;
  ptrdiff_t weight_row;     /* KH * KW * Cin */
  ptrdiff_t w_tap_row;      /* KW * Cin: weights of one window row */
  ptrdiff_t x_row_step;     /* input elements between window rows (dilation included) */
  ptrdiff_t x_run_step;     /* input elements between runs of one window row */
  ptrdiff_t w_run_step;     /* weights between runs of one window row */
  int32_t out_channels, x_offset, w_offset, descending;
  int32_t contiguous;       /* a window row's in-bounds taps are one run of input (dilation 1, dense pixels) */
  int32_t channels;         /* Cin */
  dsp_clamp clamp;
} conv_segment_dsp_call;

/* The short last block [begin, end) of one pixel whose in-bounds taps are one
 * contiguous run of `count` inputs at x (fewer than four channels, w the
 * weights of its first input in channel 0's row): a pair of channels at a
 * time, every load of the block before its first store (the input may lie
 * under it). */
static inline void conv_segment_dsp_short_block(const dsp_element* x, int32_t count, const dsp_element* w,
                                                int32_t begin, int32_t end, const conv_segment_dsp_call* k,
                                                dsp_element* y) {
  int32_t acc[TF_SEGMENT_CONV_BLOCK], j;
  for (j = begin; j < end; j += 2) {
    const int32_t pair = end - j >= 2;
    const dsp_element* w0 = w + j * k->weight_row;
    int32_t sums[2];
    sums[0] = k->bias[j];
    sums[1] = pair ? k->bias[j + 1] : 0;
    dot_dsp_1x2(x, w0, pair ? w0 + k->weight_row : w0, count, k->x_offset, k->w_offset, sums);
    acc[j - begin] = sums[0];
    if (pair) acc[j + 1 - begin] = sums[1];
  }
  for (j = begin; j < end; ++j) y[j] = dsp_requantize(acc[j - begin], &k->requant[j], &k->clamp);
}

/* Every output channel of one pixel whose in-bounds taps are one contiguous
 * run of `count` inputs at x (a 1x1 window, a row of taps, a fully connected
 * row), w the weights of its first input in channel 0's row: the blocks of
 * segment_block's traversal (ascending: [0, 4), [4, 8), ..., then the short
 * one; descending: [C - 4, C), ..., then [0, C % 4)), each in one pass. */
TF_INNER_LOOP static void conv_segment_dsp_one_run(const dsp_element* x, int32_t count, const dsp_element* w,
                                                   const conv_segment_dsp_call* k, dsp_element* y) {
  const int32_t co = k->out_channels, whole = co / TF_SEGMENT_CONV_BLOCK * TF_SEGMENT_CONV_BLOCK;
  const ptrdiff_t weight_row = k->weight_row;
  const int32_t step = k->descending ? -TF_SEGMENT_CONV_BLOCK : TF_SEGMENT_CONV_BLOCK;
  int32_t oc = k->descending ? co - TF_SEGMENT_CONV_BLOCK : 0, b;
  for (b = 0; b < whole; b += TF_SEGMENT_CONV_BLOCK, oc += step) {
    int32_t acc[TF_SEGMENT_CONV_BLOCK];
    acc[0] = k->bias[oc], acc[1] = k->bias[oc + 1], acc[2] = k->bias[oc + 2], acc[3] = k->bias[oc + 3];
    dot_dsp_1x4(x, w + oc * weight_row, weight_row, count, k->x_offset, k->w_offset, acc);
    dsp_store4(y + oc, tf_requantize(acc[0], &k->requant[oc]), tf_requantize(acc[1], &k->requant[oc + 1]),
               tf_requantize(acc[2], &k->requant[oc + 2]), tf_requantize(acc[3], &k->requant[oc + 3]), &k->clamp);
  }
  if (whole < co) {
    conv_segment_dsp_short_block(x, count, w, k->descending ? 0 : whole, k->descending ? co - whole : co, k, y);
  }
}

/* Every output channel of one pixel, block by block in traversal order:
 * x is the input at the first in-bounds tap (channel 0), w_first the weight
 * index of that tap in a weight row, rows x cols the in-bounds taps. Out of
 * line, so that the pixel loop leaves the registers to the dot products. */
TF_INNER_LOOP static void conv_segment_dsp_pixel(const dsp_element* x, ptrdiff_t w_first, int32_t rows, int32_t cols,
                                                 const conv_segment_dsp_call* k, dsp_element* y) {
  const int32_t co = k->out_channels;
  const int32_t blocks = (co + TF_SEGMENT_CONV_BLOCK - 1) / TF_SEGMENT_CONV_BLOCK;
  const int32_t runs = k->contiguous ? 1 : cols;
  const int32_t run_length = k->contiguous ? cols * k->channels : k->channels;
  int32_t b, j, ky, r;
  for (b = 0; b < blocks; ++b) {
    int32_t oc_begin, oc_end, acc[TF_SEGMENT_CONV_BLOCK];
    segment_block(b, co, TF_SEGMENT_CONV_BLOCK, k->descending, &oc_begin, &oc_end);
    if (oc_end - oc_begin == TF_SEGMENT_CONV_BLOCK) {
      const dsp_element* w = k->weights + oc_begin * k->weight_row + w_first;
      acc[0] = k->bias[oc_begin], acc[1] = k->bias[oc_begin + 1];
      acc[2] = k->bias[oc_begin + 2], acc[3] = k->bias[oc_begin + 3];
      for (ky = 0; ky < rows; ++ky) {
        for (r = 0; r < runs; ++r) {
          dot_dsp_1x4(x + ky * k->x_row_step + r * k->x_run_step, w + ky * k->w_tap_row + r * k->w_run_step,
                      k->weight_row, run_length, k->x_offset, k->w_offset, acc);
        }
      }
      dsp_store4(y + oc_begin, tf_requantize(acc[0], &k->requant[oc_begin]),
                 tf_requantize(acc[1], &k->requant[oc_begin + 1]), tf_requantize(acc[2], &k->requant[oc_begin + 2]),
                 tf_requantize(acc[3], &k->requant[oc_begin + 3]), &k->clamp);
      continue;
    }
    for (j = oc_begin; j < oc_end; j += 2) {
      const int32_t pair = oc_end - j >= 2;
      const dsp_element* w0 = k->weights + j * k->weight_row + w_first;
      const dsp_element* w1 = pair ? w0 + k->weight_row : w0;
      int32_t sums[2];
      sums[0] = k->bias[j];
      sums[1] = pair ? k->bias[j + 1] : 0;
      for (ky = 0; ky < rows; ++ky) {
        const dsp_element* xr = x + ky * k->x_row_step;
        const ptrdiff_t wr = ky * k->w_tap_row;
        for (r = 0; r < runs; ++r) {
          dot_dsp_1x2(xr + r * k->x_run_step, w0 + wr + r * k->w_run_step, w1 + wr + r * k->w_run_step, run_length,
                      k->x_offset, k->w_offset, sums);
        }
      }
      acc[j - oc_begin] = sums[0];
      if (pair) acc[j + 1 - oc_begin] = sums[1];
    }
    for (j = oc_begin; j < oc_end; ++j) y[j] = dsp_requantize(acc[j - oc_begin], &k->requant[j], &k->clamp);
  }
}

/* The call constants of params `p` over window `win` of `input`. */
static inline conv_segment_dsp_call conv_segment_dsp_prepare(const tf_view* input, const tf_conv_params* p,
                                                             const conv_window* win, int32_t descending) {
  conv_segment_dsp_call k;
  const ptrdiff_t xs1 = input->strides[1], xs2 = input->strides[2];
  k.weights = (const dsp_element*)p->weights;
  k.bias = (const int32_t*)p->bias;
  k.requant = p->requant;
  k.channels = input->shape[3];
  k.weight_row = (ptrdiff_t)win->kernel_h * win->kernel_w * win->tap_channels;
  k.w_tap_row = (ptrdiff_t)win->kernel_w * win->tap_channels;
  k.x_row_step = (ptrdiff_t)win->dilation_h * xs1;
  k.x_run_step = (ptrdiff_t)win->dilation_w * xs2;
  k.w_run_step = win->tap_channels;
  k.contiguous = win->dilation_w == 1 && xs2 == k.channels && input->strides[3] == 1;
  k.out_channels = p->out_channels;
  k.x_offset = p->input_offset;
  k.w_offset = p->weight_offset;
  k.descending = descending;
  k.clamp = dsp_make_clamp(p);
  return k;
}

/* The in-bounds taps of the window at origin (batch n, input row iy0, col
 * ix0): *x the input at the first one (channel 0), *w_first that tap's
 * weight index in a weight row, *rows x *cols the taps; whether they are one
 * contiguous run of input (*count elements). */
static inline int32_t conv_segment_dsp_taps(const tf_view* input, int32_t n, int32_t iy0, int32_t ix0,
                                            const conv_window* win, const conv_segment_dsp_call* k,
                                            const dsp_element** x, ptrdiff_t* w_first, int32_t* rows, int32_t* cols,
                                            int32_t* count) {
  int32_t ky_begin, ky_end, kx_begin, kx_end;
  conv_tap_range(iy0, win->dilation_h, win->kernel_h, input->shape[1], &ky_begin, &ky_end);
  conv_tap_range(ix0, win->dilation_w, win->kernel_w, input->shape[2], &kx_begin, &kx_end);
  *x = (const dsp_element*)input->data + n * input->strides[0] + (iy0 + ky_begin * win->dilation_h) * input->strides[1] +
       (ix0 + kx_begin * win->dilation_w) * input->strides[2];
  *w_first = ((ptrdiff_t)ky_begin * win->kernel_w + kx_begin) * win->tap_channels;
  *rows = ky_end - ky_begin, *cols = kx_end - kx_begin;
  *count = *cols * k->channels;
  return *rows == 1 && (k->contiguous || *cols == 1);
}

/* One output pixel whose window origin is (batch n, input row iy0, col ix0). */
static inline void conv_segment_dsp_at(const tf_view* input, int32_t n, int32_t iy0, int32_t ix0,
                                       const conv_window* win, const conv_segment_dsp_call* k, dsp_element* y) {
  const dsp_element* x;
  ptrdiff_t w_first;
  int32_t rows, cols, count;
  if (conv_segment_dsp_taps(input, n, iy0, ix0, win, k, &x, &w_first, &rows, &cols, &count)) {
    conv_segment_dsp_one_run(x, count, k->weights + w_first, k, y);
  } else {
    conv_segment_dsp_pixel(x, w_first, rows, cols, k, y);
  }
}

/* Every output pixel of `output` (NHWC) in traversal order. */
static inline void conv_segment_dsp_run(const tf_view* input, const tf_view* output, const tf_conv_params* p,
                                        const conv_window* win, int32_t descending) {
  const conv_segment_dsp_call k = conv_segment_dsp_prepare(input, p, win, descending);
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * out_rows * out_cols;
  int32_t t;
  for (t = 0; t < pixels; ++t) {
    const int32_t pixel = segment_pixel(t, pixels, descending);
    const int32_t n = pixel / (out_rows * out_cols), oy = pixel / out_cols % out_rows, ox = pixel % out_cols;
    conv_segment_dsp_at(input, n, oy * win->stride_h - win->pad_top, ox * win->stride_w - win->pad_left, win, &k,
                        (dsp_element*)output->data + n * output->strides[0] + oy * output->strides[1] +
                            ox * output->strides[2]);
  }
}

#ifdef TF_CONV_SEGMENT_DSP
void TF_CONV_SEGMENT_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                         int32_t descending) {
  const conv_window win = conv_segment_window(params);
  conv_segment_dsp_run(input, output, params, &win, descending);
}
#endif

#ifdef TF_FC_SEGMENT_DSP
void TF_FC_SEGMENT_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                       int32_t descending) {
  conv_window win;
  tf_view pixels;
  fc_as_conv(input, output, params, &win, &pixels);
  conv_segment_dsp_run(input, &pixels, params, &win, descending);
}
#endif
