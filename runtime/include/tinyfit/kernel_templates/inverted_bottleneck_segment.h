/* The fused inverted bottleneck in segment order (tinyfit/segment.h), over
 * conv_quantized_arithmetic.h (included first; the residual add is TFLite's
 * quantized ADD); the including file then defines TF_INVERTED_BOTTLENECK_SEGMENT.
 * The expand is a conv2d_segment pixel written into the ring, the depthwise a
 * dwconv2d_segment pixel reading from it, the projection a 1x1 conv of that
 * pixel: the same arithmetic as the three kernels one by one, so the output
 * is bit for bit the unfused one's. */
#ifndef TINYFIT_KERNEL_TEMPLATES_INVERTED_BOTTLENECK_SEGMENT_H_
#define TINYFIT_KERNEL_TEMPLATES_INVERTED_BOTTLENECK_SEGMENT_H_

#include "tinyfit/kernel_templates/conv_segment.h"
#include "tinyfit/kernel_templates/dwconv2d_segment.h"
#include "tinyfit/kernel_templates/quantized_arithmetic.h"

/* The projection of one depthwise pixel `mid` (p->in_channels elements) into
 * output pixel y, block by block: the block's sums, then its residual block
 * of the input pixel x loaded (when x is not NULL), then its stores. */
static inline void ib_project_pixel(const conv_element* mid, const tf_conv_params* p, const conv_element* x,
                                    const tf_quantized_add_params* add, int32_t descending, conv_element* y) {
  const conv_weight* weights = (const conv_weight*)p->weights;
  const int32_t channels = p->in_channels, co = p->out_channels;
  const int32_t blocks = (co + TF_SEGMENT_CONV_BLOCK - 1) / TF_SEGMENT_CONV_BLOCK;
  conv_sum x_sum = 0;
  int32_t b, c, j;
  if (p->weight_offset != 0) {
    for (c = 0; c < channels; ++c) x_sum += conv_widen_element(mid[c]);
  }
  for (b = 0; b < blocks; ++b) {
    int32_t oc_begin, oc_end;
    conv_element residual[TF_SEGMENT_CONV_BLOCK];
    conv_sum sum[TF_SEGMENT_CONV_BLOCK] = {0, 0, 0, 0};
    segment_block(b, co, TF_SEGMENT_CONV_BLOCK, descending, &oc_begin, &oc_end);
    for (j = 0; j < oc_end - oc_begin; ++j) {
      const conv_weight* w = weights + (ptrdiff_t)(oc_begin + j) * channels;
      conv_sum s = 0;
      for (c = 0; c < channels; ++c) s += conv_widen_element(mid[c]) * conv_widen_weight(w[c]);
      sum[j] = s + conv_offset_terms(x_sum, (conv_sum)p->weight_sums[oc_begin + j], channels, p->input_offset,
                                     p->weight_offset);
    }
    if (x != NULL) {
      for (j = 0; j < oc_end - oc_begin; ++j) residual[j] = x[oc_begin + j];
    }
    for (j = 0; j < oc_end - oc_begin; ++j) {
      const int32_t oc = oc_begin + j;
      if (x == NULL) {
        conv_store_output(y, oc, sum[j], oc, p);
      } else {
        conv_element projected;
        conv_store_output(&projected, 0, sum[j], oc, p);
        y[oc] = (conv_element)tf_quantized_add_sub(residual[j], projected, add, 0);
      }
    }
  }
}

#endif /* TINYFIT_KERNEL_TEMPLATES_INVERTED_BOTTLENECK_SEGMENT_H_ */

#ifdef TF_INVERTED_BOTTLENECK_SEGMENT
void TF_INVERTED_BOTTLENECK_SEGMENT(const tf_view* input, const tf_view* output,
                                    const tf_inverted_bottleneck_params* params, uint8_t* workspace,
                                    int32_t descending) {
  const tf_conv_params* dw = params->depthwise;
  const conv_window expand_window = conv_segment_window(params->expand);
  const int32_t mid_rows = params->mid_rows, mid_cols = params->mid_cols, mid_channels = dw->out_channels;
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * out_rows * out_cols;
  const int32_t mids = output->shape[0] * mid_rows * mid_cols;
  const int32_t ring_pixels = params->ring_pixels;
  const int32_t group =
      segment_expand_group(params->expand->kernel_h, params->expand->kernel_w, params->expand->in_channels);
  conv_element* ring = (conv_element*)(void*)workspace;
  conv_element* dw_pixel = ring + (ptrdiff_t)ring_pixels * mid_channels;
  const conv_element* taps[TF_SEGMENT_MAX_TAPS];
  int32_t tap_index[TF_SEGMENT_MAX_TAPS];
  int32_t t, ky, kx, next = 0; /* mid pixels computed so far, in traversal order */
  for (t = 0; t < pixels; ++t) {
    const int32_t pixel = segment_pixel(t, pixels, descending);
    const int32_t n = pixel / (out_rows * out_cols), oy = pixel / out_cols % out_rows, ox = pixel % out_cols;
    const int32_t iy0 = oy * dw->stride_h - dw->pad_top, ix0 = ox * dw->stride_w - dw->pad_left;
    int32_t ky_begin, ky_end, kx_begin, kx_end, needed, tap_count = 0;
    conv_tap_range(iy0, dw->dilation_h, dw->kernel_h, mid_rows, &ky_begin, &ky_end);
    conv_tap_range(ix0, dw->dilation_w, dw->kernel_w, mid_cols, &kx_begin, &kx_end);
    /* The mid pixel this output needs last in traversal order (computed
     * with the rest of its group: segment_last_computed_mid). */
    needed = descending ? (n * mid_rows + iy0 + ky_begin * dw->dilation_h) * mid_cols + ix0 + kx_begin * dw->dilation_w
                        : (n * mid_rows + iy0 + (ky_end - 1) * dw->dilation_h) * mid_cols + ix0 +
                              (kx_end - 1) * dw->dilation_w;
    for (; next <= segment_last_computed_mid(segment_pixel(needed, mids, descending), mids, group); ++next) {
      const int32_t mid = segment_pixel(next, mids, descending);
      const int32_t mn = mid / (mid_rows * mid_cols), mr = mid / mid_cols % mid_rows, mc = mid % mid_cols;
      conv_segment_pixel(input, mn, mr * expand_window.stride_h - expand_window.pad_top,
                         mc * expand_window.stride_w - expand_window.pad_left, params->expand, &expand_window,
                         descending, ring + (ptrdiff_t)(mid % ring_pixels) * mid_channels);
    }
    for (ky = ky_begin; ky < ky_end; ++ky) {
      const int32_t row_start = (n * mid_rows + iy0 + ky * dw->dilation_h) * mid_cols + ix0;
      for (kx = kx_begin; kx < kx_end; ++kx) {
        taps[tap_count] = ring + (ptrdiff_t)((row_start + kx * dw->dilation_w) % ring_pixels) * mid_channels;
        tap_index[tap_count++] = ky * dw->kernel_w + kx;
      }
    }
    dwconv_segment_pixel(taps, tap_index, tap_count, dw, descending, dw_pixel);
    {
      const ptrdiff_t at_out = n * output->strides[0] + oy * output->strides[1] + ox * output->strides[2];
      const ptrdiff_t at_in = n * input->strides[0] + oy * input->strides[1] + ox * input->strides[2];
      ib_project_pixel(dw_pixel, params->project, params->add ? (const conv_element*)input->data + at_in : NULL,
                       params->add, descending, (conv_element*)output->data + at_out);
    }
  }
}
#endif
