/* Conv2D (groups 1) and FullyConnected in segment order (tinyfit/segment.h),
 * over the element arithmetic of conv_quantized_arithmetic.h or
 * conv_float_arithmetic.h (included first). The including file then defines
 * TF_CONV_SEGMENT or TF_FC_SEGMENT, the function it implements. */
#ifndef TINYFIT_KERNEL_TEMPLATES_CONV_SEGMENT_H_
#define TINYFIT_KERNEL_TEMPLATES_CONV_SEGMENT_H_

#include "tinyfit/kernel_templates/conv_window_sums.h"
#include "tinyfit/kernel_templates/segment_order.h"
#include "tinyfit/segment.h"

/* Every output channel (p->out_channels) of one output pixel whose window
 * origin is (batch n, input row iy0, input col ix0), one block of
 * TF_SEGMENT_CONV_BLOCK channels at a time in traversal order: the block's
 * sums over the in-bounds taps (zero points hoisted as conv_core.h does),
 * then its stores at y[oc]. Static inline: kernel files that include this
 * header for the fused inverted bottleneck's expand need not use the rest. */
static inline void conv_segment_pixel(const tf_view* input, int32_t n, int32_t iy0, int32_t ix0,
                                      const tf_conv_params* p, const conv_window* win, int32_t descending,
                                      conv_element* y) {
  const conv_weight* weights = (const conv_weight*)p->weights;
  const int32_t x_offset = p->input_offset, w_offset = p->weight_offset, co = p->out_channels;
  const int32_t blocks = (co + TF_SEGMENT_CONV_BLOCK - 1) / TF_SEGMENT_CONV_BLOCK;
  const int32_t channels = input->shape[3];
  const ptrdiff_t xs1 = input->strides[1], xs2 = input->strides[2];
  const ptrdiff_t weight_row = (ptrdiff_t)win->kernel_h * win->kernel_w * win->tap_channels;
  const conv_element* x_pixel = (const conv_element*)input->data + n * input->strides[0];
  int32_t b, ky, kx, c, j, ky_begin, ky_end, kx_begin, kx_end, whole_window, terms;
  conv_sum x_sum = 0;
  conv_tap_range(iy0, win->dilation_h, win->kernel_h, input->shape[1], &ky_begin, &ky_end);
  conv_tap_range(ix0, win->dilation_w, win->kernel_w, input->shape[2], &kx_begin, &kx_end);
  whole_window = (ky_end - ky_begin) * (kx_end - kx_begin) == win->kernel_h * win->kernel_w;
  terms = (ky_end - ky_begin) * (kx_end - kx_begin) * channels;
  if (CONV_HAS_OFFSETS && w_offset != 0) {
    x_sum = conv_input_sum(x_pixel, win, iy0, ix0, xs1, xs2, ky_begin, ky_end, kx_begin, kx_end, channels);
  }
  for (b = 0; b < blocks; ++b) {
    int32_t oc_begin, oc_end;
    conv_sum sum[TF_SEGMENT_CONV_BLOCK] = {0, 0, 0, 0};
    segment_block(b, co, TF_SEGMENT_CONV_BLOCK, descending, &oc_begin, &oc_end);
    for (ky = ky_begin; ky < ky_end; ++ky) {
      const conv_element* x_row = x_pixel + (iy0 + ky * win->dilation_h) * xs1;
      for (kx = kx_begin; kx < kx_end; ++kx) {
        const conv_element* xp = x_row + (ix0 + kx * win->dilation_w) * xs2;
        const conv_weight* wp =
            weights + oc_begin * weight_row + ((ptrdiff_t)ky * win->kernel_w + kx) * win->tap_channels;
        if (oc_end - oc_begin == TF_SEGMENT_CONV_BLOCK) {
          const conv_weight* wp1 = wp + weight_row;
          const conv_weight* wp2 = wp1 + weight_row;
          const conv_weight* wp3 = wp2 + weight_row;
          conv_sum s0 = sum[0], s1 = sum[1], s2 = sum[2], s3 = sum[3];
          for (c = 0; c < channels; ++c) {
            const conv_sum xv = conv_widen_element(xp[c]);
            s0 += xv * conv_widen_weight(wp[c]);
            s1 += xv * conv_widen_weight(wp1[c]);
            s2 += xv * conv_widen_weight(wp2[c]);
            s3 += xv * conv_widen_weight(wp3[c]);
          }
          sum[0] = s0, sum[1] = s1, sum[2] = s2, sum[3] = s3;
        } else {
          for (j = 0; j < oc_end - oc_begin; ++j) {
            const conv_weight* wj = wp + j * weight_row;
            conv_sum s = sum[j];
            for (c = 0; c < channels; ++c) s += conv_widen_element(xp[c]) * conv_widen_weight(wj[c]);
            sum[j] = s;
          }
        }
      }
    }
    for (j = 0; j < oc_end - oc_begin; ++j) {
      const int32_t oc = oc_begin + j;
      conv_sum total = sum[j];
      if (CONV_HAS_OFFSETS) {
        const conv_sum w_sum = whole_window ? (conv_sum)p->weight_sums[oc]
                                            : conv_weight_sum(weights + oc * weight_row, win, ky_begin, ky_end,
                                                              kx_begin, kx_end, channels);
        total += conv_offset_terms(x_sum, w_sum, terms, x_offset, w_offset);
      }
      conv_store_output(y, oc, total, oc, p);
    }
  }
}

/* Every output pixel of `output` (NHWC) in traversal order. */
static inline void conv_segment_run(const tf_view* input, const tf_view* output, const tf_conv_params* p,
                                    const conv_window* win, int32_t descending) {
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * out_rows * out_cols;
  int32_t t;
  for (t = 0; t < pixels; ++t) {
    const int32_t pixel = segment_pixel(t, pixels, descending);
    const int32_t n = pixel / (out_rows * out_cols), oy = pixel / out_cols % out_rows, ox = pixel % out_cols;
    conv_segment_pixel(input, n, oy * win->stride_h - win->pad_top, ox * win->stride_w - win->pad_left, p, win,
                       descending,
                       (conv_element*)output->data + n * output->strides[0] + oy * output->strides[1] +
                           ox * output->strides[2]);
  }
}

/* The window of a Conv2D with groups 1. */
static inline conv_window conv_segment_window(const tf_conv_params* p) {
  conv_window w;
  w.kernel_h = p->kernel_h;
  w.kernel_w = p->kernel_w;
  w.stride_h = p->stride_h;
  w.stride_w = p->stride_w;
  w.dilation_h = p->dilation_h;
  w.dilation_w = p->dilation_w;
  w.pad_top = p->pad_top;
  w.pad_left = p->pad_left;
  w.tap_channels = p->in_channels;
  w.group_out = 0;
  return w;
}

#endif /* TINYFIT_KERNEL_TEMPLATES_CONV_SEGMENT_H_ */

#ifdef TF_CONV_SEGMENT
void TF_CONV_SEGMENT(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                     int32_t descending) {
  const conv_window win = conv_segment_window(params);
  conv_segment_run(input, output, params, &win, descending);
}
#endif

#ifdef TF_FC_SEGMENT
void TF_FC_SEGMENT(const tf_view* input, const tf_view* output, const tf_conv_params* params, int32_t descending) {
  conv_window win;
  tf_view pixels;
  fc_as_conv(input, output, params, &win, &pixels);
  conv_segment_run(input, &pixels, params, &win, descending);
}
#endif
