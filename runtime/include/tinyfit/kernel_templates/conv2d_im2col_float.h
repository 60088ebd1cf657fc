/* Float32 Conv2D as partial im2col + GEMM. The including file defines
 * TF_F32_CONV_IM2COL or TF_F32_CONV_IM2COL_ROWS.
 *
 * Four output pixels at a time: their input windows are gathered into the
 * workspace as four interleaved columns (tap k of pixel p at k * 4 + p, zero
 * where the window leaves the input), then the output channels, four at a
 * time, are dot products of their weight rows (the IR layout: K = KH * KW *
 * Cin / groups floats per channel, in (ky, kx, c) order) with the columns:
 * per tap, one 16-byte column load and four weight loads for sixteen
 * multiply-adds, the sixteen sums in the FPU's registers (the Cortex-M4F has
 * 32 single-precision ones). Each sum runs over the taps in the direct
 * kernel's order and is stored as it stores (conv_float_arithmetic.h). */
#include "tinyfit/dsp.h"
#include "tinyfit/kernel_templates/conv_float_arithmetic.h"
#include "tinyfit/kernel_templates/conv_taps.h"

#define F32_IM2COL_PIXELS TF_F32_CONV_IM2COL_PIXELS
/* The GEMM below is written out for four pixels. */
typedef char f32_im2col_four_pixels[F32_IM2COL_PIXELS == 4 ? 1 : -1];

/* The window geometry of a call: the padding shifted by the views' origins. */
typedef struct f32_im2col_window {
  int32_t kernel_h, kernel_w, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left;
  int32_t channels; /* per tap: the node's Cin / groups */
} f32_im2col_window;

/* Pixel p's column (taps k * 4 + p of `columns`) for the window at input
 * (iy0, ix0) of image n, channels [0, win->channels) of `input`. */
static void f32_im2col_gather(float* columns, int32_t p, const tf_view* input, const f32_im2col_window* win, int32_t n,
                              int32_t iy0, int32_t ix0) {
  const int32_t channels = win->channels;
  int32_t ky_begin, ky_end, kx_begin, kx_end, ky, kx, c;
  float* out = columns + p;
  conv_tap_range(iy0, win->dilation_h, win->kernel_h, input->shape[1], &ky_begin, &ky_end);
  conv_tap_range(ix0, win->dilation_w, win->kernel_w, input->shape[2], &kx_begin, &kx_end);
  for (ky = 0; ky < win->kernel_h; ++ky) {
    const int32_t row_inside = ky >= ky_begin && ky < ky_end;
    const float* x_row = (const float*)input->data + (ptrdiff_t)n * input->strides[0] +
                         (ptrdiff_t)(iy0 + ky * win->dilation_h) * input->strides[1];
    for (kx = 0; kx < win->kernel_w; ++kx) {
      if (row_inside && kx >= kx_begin && kx < kx_end) {
        const float* x = x_row + (ptrdiff_t)(ix0 + kx * win->dilation_w) * input->strides[2];
        for (c = 0; c < channels; ++c, out += F32_IM2COL_PIXELS) *out = x[c];
      } else {
        for (c = 0; c < channels; ++c, out += F32_IM2COL_PIXELS) *out = 0.0f;
      }
    }
  }
}

/* Where a group of pixels writes: element offsets of each pixel in the output
 * view, and how many of the group are real (the last group of a call may have
 * fewer; the others repeat the first pixel's window and are not stored). */
typedef struct f32_im2col_targets {
  ptrdiff_t y[F32_IM2COL_PIXELS];
  int32_t count;
} f32_im2col_targets;

/* acc[p * 4 + j] = the dot product of column p with channel j's weights
 * (w0..w3, k taps each): the sixteen sums in registers. */
static inline void f32_im2col_dot4x4(const float* col, const float* w0, const float* w1, const float* w2,
                                     const float* w3, int32_t k, float acc[16]) {
  float a00 = 0.0f, a01 = 0.0f, a02 = 0.0f, a03 = 0.0f, a10 = 0.0f, a11 = 0.0f, a12 = 0.0f, a13 = 0.0f;
  float a20 = 0.0f, a21 = 0.0f, a22 = 0.0f, a23 = 0.0f, a30 = 0.0f, a31 = 0.0f, a32 = 0.0f, a33 = 0.0f;
  const float* const w_end = w0 + k;
  for (; w0 < w_end; ++w0, ++w1, ++w2, ++w3, col += F32_IM2COL_PIXELS) {
    const float x0 = col[0], x1 = col[1], x2 = col[2], x3 = col[3];
    const float v0 = *w0, v1 = *w1, v2 = *w2, v3 = *w3;
    a00 += x0 * v0, a01 += x0 * v1, a02 += x0 * v2, a03 += x0 * v3;
    a10 += x1 * v0, a11 += x1 * v1, a12 += x1 * v2, a13 += x1 * v3;
    a20 += x2 * v0, a21 += x2 * v1, a22 += x2 * v2, a23 += x2 * v3;
    a30 += x3 * v0, a31 += x3 * v1, a32 += x3 * v2, a33 += x3 * v3;
  }
  acc[0] = a00, acc[1] = a01, acc[2] = a02, acc[3] = a03, acc[4] = a10, acc[5] = a11, acc[6] = a12, acc[7] = a13;
  acc[8] = a20, acc[9] = a21, acc[10] = a22, acc[11] = a23, acc[12] = a30, acc[13] = a31, acc[14] = a32;
  acc[15] = a33;
}

/* acc[j] = the dot product of column 0 with channel j's weights: a group of
 * one pixel (a call of a single output pixel) does not compute four. */
static inline void f32_im2col_dot1x4(const float* col, const float* w0, const float* w1, const float* w2,
                                     const float* w3, int32_t k, float acc[4]) {
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  const float* const w_end = w0 + k;
  for (; w0 < w_end; ++w0, ++w1, ++w2, ++w3, col += F32_IM2COL_PIXELS) {
    const float x = col[0];
    a0 += x * *w0, a1 += x * *w1, a2 += x * *w2, a3 += x * *w3;
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* acc[p] = the dot product of column p with the weights w (k taps). */
static inline void f32_im2col_dot4x1(const float* col, const float* w, int32_t k, float acc[4]) {
  float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
  const float* const w_end = w + k;
  for (; w < w_end; ++w, col += F32_IM2COL_PIXELS) {
    const float v = *w;
    a0 += col[0] * v, a1 += col[1] * v, a2 += col[2] * v, a3 += col[3] * v;
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

/* Channels [c_begin, c_end) of the gathered pixels: four at a time, then one
 * at a time; weights of channel c at w + (c - c_begin) * k, stored at channel
 * c - out_begin. */
TF_INNER_LOOP static void f32_im2col_channels(const float* columns, const float* w, int32_t k, int32_t c_begin,
                                              int32_t c_end, const f32_im2col_targets* targets, const tf_view* output,
                                              const tf_conv_params* p, int32_t out_begin) {
  float* y = (float*)output->data - out_begin;
  float acc[16];
  int32_t c = c_begin, i, j;
  for (; c + 4 <= c_end; c += 4, w += 4 * k) {
    if (targets->count == 1) {
      f32_im2col_dot1x4(columns, w, w + k, w + 2 * k, w + 3 * k, k, acc);
      for (j = 0; j < 4; ++j) conv_store_output(y, targets->y[0] + c + j, acc[j], c + j, p);
      continue;
    }
    f32_im2col_dot4x4(columns, w, w + k, w + 2 * k, w + 3 * k, k, acc);
    for (i = 0; i < targets->count; ++i) {
      for (j = 0; j < 4; ++j) conv_store_output(y, targets->y[i] + c + j, acc[i * 4 + j], c + j, p);
    }
  }
  for (; c < c_end; ++c, w += k) {
    f32_im2col_dot4x1(columns, w, k, acc);
    for (i = 0; i < targets->count; ++i) conv_store_output(y, targets->y[i] + c, acc[i], c, p);
  }
}

/* The output pixels of `output` (its (0, 0) the node's (out_row, out_col);
 * the input view's (0, 0) the node's input (in_row, in_col)) in groups of
 * four, channels [out_begin, out_end) (grouped: of every group), written at
 * channel c - out_begin. */
static void f32_im2col_run(const tf_view* input, const tf_view* output, const tf_conv_params* p, uint8_t* workspace,
                           int32_t out_begin, int32_t out_end, int32_t out_row, int32_t in_row, int32_t out_col,
                           int32_t in_col) {
  const int32_t groups = p->groups;
  const int32_t group_out = p->out_channels / groups;
  const float* weights = (const float*)p->weights;
  const int32_t out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * output->shape[1] * out_cols;
  float* columns = (float*)(void*)workspace;
  f32_im2col_window win;
  int32_t k, first_pixel;
  win.kernel_h = p->kernel_h, win.kernel_w = p->kernel_w, win.stride_h = p->stride_h, win.stride_w = p->stride_w;
  win.dilation_h = p->dilation_h, win.dilation_w = p->dilation_w;
  win.pad_top = p->pad_top - out_row * p->stride_h + in_row;
  win.pad_left = p->pad_left - out_col * p->stride_w + in_col;
  win.channels = p->in_channels / groups;
  k = win.kernel_h * win.kernel_w * win.channels;
  for (first_pixel = 0; first_pixel < pixels; first_pixel += F32_IM2COL_PIXELS) {
    f32_im2col_targets targets;
    int32_t at[F32_IM2COL_PIXELS][3], i, group;
    targets.count = pixels - first_pixel < F32_IM2COL_PIXELS ? pixels - first_pixel : F32_IM2COL_PIXELS;
    for (i = 0; i < F32_IM2COL_PIXELS; ++i) {
      const int32_t pixel = first_pixel + (i < targets.count ? i : 0);
      at[i][2] = pixel % out_cols;
      at[i][1] = pixel / out_cols % output->shape[1];
      at[i][0] = pixel / out_cols / output->shape[1];
      targets.y[i] = (ptrdiff_t)at[i][0] * output->strides[0] + (ptrdiff_t)at[i][1] * output->strides[1] +
                     (ptrdiff_t)at[i][2] * output->strides[2];
    }
    for (group = 0; group < groups; ++group) {
      const int32_t c_begin = out_begin > group * group_out ? out_begin : group * group_out;
      const int32_t c_end = out_end < (group + 1) * group_out ? out_end : (group + 1) * group_out;
      tf_view group_input = *input;
      if (c_begin >= c_end) continue;
      group_input.data = (float*)input->data + group * win.channels;
      for (i = 0; i < F32_IM2COL_PIXELS; ++i) {
        f32_im2col_gather(columns, i, &group_input, &win, at[i][0], at[i][1] * win.stride_h - win.pad_top,
                          at[i][2] * win.stride_w - win.pad_left);
      }
      f32_im2col_channels(columns, weights + (ptrdiff_t)c_begin * k, k, c_begin, c_end, &targets, output, p,
                          out_begin);
    }
  }
}

#ifdef TF_F32_CONV_IM2COL
void TF_F32_CONV_IM2COL(const tf_view* input, const tf_view* output, const tf_conv_params* params, uint8_t* workspace,
                        int32_t out_begin, int32_t out_end) {
  f32_im2col_run(input, output, params, workspace, out_begin, out_end, 0, 0, 0, 0);
}
#endif

#ifdef TF_F32_CONV_IM2COL_ROWS
/* The part of the output its view shows (rows, cols and channels from its
 * origin) from the input rows and cols the input view shows (all channels),
 * as conv2d_direct_rows. */
void TF_F32_CONV_IM2COL_ROWS(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                             uint8_t* workspace) {
  f32_im2col_run(input, output, params, workspace, output->origin[3], output->origin[3] + output->shape[3],
                 output->origin[1], input->origin[1], output->origin[2], input->origin[2]);
}
#endif
