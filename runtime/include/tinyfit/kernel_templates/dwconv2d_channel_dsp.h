/* DepthwiseConv2D with multiplier 1, one channel at a time, over
 * conv_dsp_arithmetic.h (included first); the including file defines
 * TF_DWCONV_CHANNEL_DSP.
 *
 * For chunk calls of one channel (partial execution's narrowest loops): the
 * depthwise __dsp kernel computes channels four at a time, and a channel
 * outside a group of four ran its own per-pixel loop at about 117
 * instructions per output element on the Cortex-M4 (mcunet-5fps_vww's first
 * depthwise in 16 one-channel chunks: 3,004,280 instructions, 1,136,040 for
 * the whole layer). Here the window's weights plus the weight offset are
 * 32-bit words per channel, w[C][KH][KW]; in-bounds pixels of a 3x3 window
 * add the input offset's share (x_offset times the weights' sum) to the bias
 * once per call, so each tap is one load and one multiply-accumulate, the
 * nine weights in registers; pixels the padding clips, and other windows,
 * add the offset to each tap. */
#include "tinyfit/kernel_templates/conv_taps.h"

/* What every pixel of a channel shares. */
typedef struct dwchannel_call {
  const int32_t* w; /* the channel's KH x KW weights plus the weight offset */
  int32_t bias;     /* the channel's bias */
  tf_requant_channel q;
  dsp_clamp clamp;
} dwchannel_call;

/* `count` pixels of a row whose 3x3 windows are in bounds, with dilation 1
 * (x: the first pixel's window's top-left tap; the next pixel x_step
 * further; rows x_row apart), into y, y_step apart. */
TF_INNER_LOOP static void dwchannel_3x3(const dsp_element* x, dsp_element* y, int32_t count, ptrdiff_t x_step,
                                        ptrdiff_t y_step, ptrdiff_t x_row, ptrdiff_t x_tap, int32_t x_offset,
                                        const dwchannel_call* k) {
  const int32_t* const w = k->w;
  const int32_t w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7], w8 = w[8];
  const int32_t bias = k->bias + x_offset * (w0 + w1 + w2 + w3 + w4 + w5 + w6 + w7 + w8);
  const tf_requant_channel q = k->q;
  const dsp_clamp clamp = k->clamp;
  const ptrdiff_t x_tap2 = 2 * x_tap;
  int32_t i;
  for (i = 0; i < count; ++i, x += x_step, y += y_step) {
    const dsp_element* r = x;
    int32_t acc = bias + r[0] * w0 + r[x_tap] * w1 + r[x_tap2] * w2;
    r += x_row;
    acc += r[0] * w3 + r[x_tap] * w4 + r[x_tap2] * w5;
    r += x_row;
    acc += r[0] * w6 + r[x_tap] * w7 + r[x_tap2] * w8;
    *y = dsp_requantize(acc, &q, &clamp);
  }
}

/* One pixel: its window's in-bounds taps [ky_begin, ky_end) x [kx_begin,
 * kx_end), the input offset added to each (x: tap (ky_begin, kx_begin)). */
static dsp_element dwchannel_pixel(const dsp_element* x, ptrdiff_t x_row, ptrdiff_t x_tap, int32_t ky_begin,
                                   int32_t ky_end, int32_t kx_begin, int32_t kx_end, int32_t kernel_w,
                                   int32_t x_offset, const dwchannel_call* k) {
  int32_t acc = k->bias, ky, kx;
  for (ky = ky_begin; ky < ky_end; ++ky, x += x_row) {
    const int32_t* const w = k->w + ky * kernel_w;
    for (kx = kx_begin; kx < kx_end; ++kx) acc += dsp_widen(x[(kx - kx_begin) * x_tap], x_offset) * w[kx];
  }
  return dsp_requantize(acc, &k->q, &k->clamp);
}

#ifdef TF_DWCONV_CHANNEL_DSP
/* Output channels [out_begin, out_end) of the node, at channel c - out_begin
 * of `output`, each from input channel c, channel c - in_begin of `input`. */
void TF_DWCONV_CHANNEL_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* p, int32_t out_begin,
                           int32_t out_end, int32_t in_begin) {
  const ptrdiff_t xs0 = input->strides[0], xs1 = input->strides[1], xs2 = input->strides[2];
  const ptrdiff_t ys0 = output->strides[0], ys1 = output->strides[1], ys2 = output->strides[2];
  const ptrdiff_t x_row = (ptrdiff_t)p->dilation_h * xs1, x_tap = (ptrdiff_t)p->dilation_w * xs2;
  const int32_t out_cols = output->shape[2], in_cols = input->shape[2];
  const int32_t taps = p->kernel_h * p->kernel_w;
  const int32_t unrolled = p->kernel_h == 3 && p->kernel_w == 3;
  const int32_t last_tap_w = (p->kernel_w - 1) * p->dilation_w;
  int32_t interior_begin = 0, interior_end = out_cols, c, n, oy, ox;
  dwchannel_call k;
  k.clamp = dsp_make_clamp(p);
  /* Interior columns: every tap of the window's rows in bounds. */
  while (interior_begin < out_cols && interior_begin * p->stride_w - p->pad_left < 0) ++interior_begin;
  while (interior_end > interior_begin && (interior_end - 1) * p->stride_w - p->pad_left + last_tap_w >= in_cols) {
    --interior_end;
  }
  for (c = out_begin; c < out_end; ++c) {
    const dsp_element* x_channel = (const dsp_element*)input->data + (c - in_begin);
    dsp_element* y_channel = (dsp_element*)output->data + (c - out_begin);
    k.w = (const int32_t*)p->weights + (ptrdiff_t)c * taps;
    k.bias = ((const int32_t*)p->bias)[c];
    k.q = p->requant[c];
    for (n = 0; n < output->shape[0]; ++n) {
      for (oy = 0; oy < output->shape[1]; ++oy) {
        const int32_t iy0 = oy * p->stride_h - p->pad_top;
        const dsp_element* x_image = x_channel + (ptrdiff_t)n * xs0;
        dsp_element* y_row = y_channel + (ptrdiff_t)n * ys0 + (ptrdiff_t)oy * ys1;
        int32_t ky_begin, ky_end;
        conv_tap_range(iy0, p->dilation_h, p->kernel_h, input->shape[1], &ky_begin, &ky_end);
        for (ox = 0; ox < out_cols; ++ox) {
          const int32_t ix0 = ox * p->stride_w - p->pad_left;
          const dsp_element* x_window = x_image + (ptrdiff_t)(iy0 + ky_begin * p->dilation_h) * xs1;
          int32_t kx_begin, kx_end;
          if (ox == interior_begin && interior_end > interior_begin && unrolled && p->dilation_h == 1 &&
              p->dilation_w == 1 && ky_begin == 0 && ky_end == 3) {
            dwchannel_3x3(x_window + (ptrdiff_t)ix0 * xs2, y_row + (ptrdiff_t)ox * ys2, interior_end - interior_begin,
                          (ptrdiff_t)p->stride_w * xs2, ys2, xs1, xs2, p->input_offset, &k);
            ox = interior_end - 1;
            continue;
          }
          conv_tap_range(ix0, p->dilation_w, p->kernel_w, in_cols, &kx_begin, &kx_end);
          y_row[(ptrdiff_t)ox * ys2] =
              dwchannel_pixel(x_window + (ptrdiff_t)(ix0 + kx_begin * p->dilation_w) * xs2, x_row, x_tap, ky_begin,
                              ky_end, kx_begin, kx_end, p->kernel_w, p->input_offset, &k);
        }
      }
    }
  }
}
#endif
