/* DepthwiseConv2D (multiplier 1) in segment order (tinyfit/segment.h), over
 * the element arithmetic of conv_quantized_arithmetic.h or
 * conv_float_arithmetic.h (included first); the including file then defines
 * TF_DWCONV_SEGMENT. Weights w[KH][KW][C]. */
#ifndef TINYFIT_KERNEL_TEMPLATES_DWCONV2D_SEGMENT_H_
#define TINYFIT_KERNEL_TEMPLATES_DWCONV2D_SEGMENT_H_

#include <stddef.h>
#include "tinyfit/kernel_templates/conv_taps.h"
#include "tinyfit/kernel_templates/segment_order.h"
#include "tinyfit/segment.h"

/* Channels [begin, end) (at most TF_SEGMENT_DWCONV_BLOCK) of one output
 * pixel: tap i of `tap_count` reads the pixel at taps[i] with the weights of
 * window position tap_index[i] (ky * KW + kx); the block is stored at y.
 * Shared with the fused inverted bottleneck, whose taps point into its ring. */
static inline void dwconv_segment_block(const conv_element* const* taps, const int32_t* tap_index,
                                        int32_t tap_count, int32_t begin, int32_t end, const tf_conv_params* p,
                                        conv_element* y) {
  const conv_weight* weights = (const conv_weight*)p->weights;
  const ptrdiff_t channels = p->out_channels;
  conv_sum sum[TF_SEGMENT_DWCONV_BLOCK];
  const int32_t count = end - begin;
  int32_t i, c;
  for (c = 0; c < count; ++c) sum[c] = 0;
  for (i = 0; i < tap_count; ++i) {
    const conv_element* xp = taps[i] + begin;
    const conv_weight* wp = weights + tap_index[i] * channels + begin;
    for (c = 0; c < count; ++c) sum[c] += conv_product(xp[c], wp[c], p->input_offset, p->weight_offset);
  }
  for (c = 0; c < count; ++c) conv_store_output(y, begin + c, sum[c], begin + c, p);
}

/* Every channel block of one output pixel, in traversal order. */
static inline void dwconv_segment_pixel(const conv_element* const* taps, const int32_t* tap_index, int32_t tap_count,
                                        const tf_conv_params* p, int32_t descending, conv_element* y) {
  const int32_t channels = p->out_channels;
  const int32_t blocks = (channels + TF_SEGMENT_DWCONV_BLOCK - 1) / TF_SEGMENT_DWCONV_BLOCK;
  int32_t b;
  for (b = 0; b < blocks; ++b) {
    int32_t begin, end;
    segment_block(b, channels, TF_SEGMENT_DWCONV_BLOCK, descending, &begin, &end);
    dwconv_segment_block(taps, tap_index, tap_count, begin, end, p, y);
  }
}

#endif /* TINYFIT_KERNEL_TEMPLATES_DWCONV2D_SEGMENT_H_ */

#ifdef TF_DWCONV_SEGMENT
void TF_DWCONV_SEGMENT(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                       int32_t descending) {
  const conv_element* x = (const conv_element*)input->data;
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * out_rows * out_cols;
  const conv_element* taps[TF_SEGMENT_MAX_TAPS];
  int32_t tap_index[TF_SEGMENT_MAX_TAPS];
  int32_t t, ky, kx;
  for (t = 0; t < pixels; ++t) {
    const int32_t pixel = segment_pixel(t, pixels, descending);
    const int32_t n = pixel / (out_rows * out_cols), oy = pixel / out_cols % out_rows, ox = pixel % out_cols;
    const int32_t iy0 = oy * params->stride_h - params->pad_top, ix0 = ox * params->stride_w - params->pad_left;
    int32_t ky_begin, ky_end, kx_begin, kx_end, tap_count = 0;
    conv_tap_range(iy0, params->dilation_h, params->kernel_h, input->shape[1], &ky_begin, &ky_end);
    conv_tap_range(ix0, params->dilation_w, params->kernel_w, input->shape[2], &kx_begin, &kx_end);
    for (ky = ky_begin; ky < ky_end; ++ky) {
      for (kx = kx_begin; kx < kx_end; ++kx) {
        taps[tap_count] = x + n * input->strides[0] + (iy0 + ky * params->dilation_h) * input->strides[1] +
                          (ix0 + kx * params->dilation_w) * input->strides[2];
        tap_index[tap_count++] = ky * params->kernel_w + kx;
      }
    }
    dwconv_segment_pixel(taps, tap_index, tap_count, params, descending,
                         (conv_element*)output->data + n * output->strides[0] + oy * output->strides[1] +
                             ox * output->strides[2]);
  }
}
#endif
