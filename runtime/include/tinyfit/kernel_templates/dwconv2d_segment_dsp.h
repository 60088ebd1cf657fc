/* DepthwiseConv2D (multiplier 1) in segment order (tinyfit/segment.h) with
 * 16-bit lanes, over conv_dsp_arithmetic.h (included first); the including
 * file then defines TF_DWCONV_SEGMENT_DSP. Weights and requantisation are
 * the depthwise __dsp kernels' (dwconv2d_dsp.h: int16 lanes with the weight
 * offset added, [ceil(C/4)][KH][KW][4]; params->requant).
 *
 * Access order: exactly dwconv2d_segment.h's (plan/segment_kernel.h's
 * kChannelwise record, which verify_plan replays): per output pixel in
 * traversal order, per block of TF_SEGMENT_DWCONV_BLOCK channels in
 * traversal order, the block's channels of every in-bounds tap are loaded
 * (four channels a step with SMLAxy, the channels off the groups of four one
 * by one), the block's outputs are kept in registers and a 16-byte buffer,
 * and only then stored, so no store of a block precedes one of its loads. */
#include "tinyfit/kernel_templates/dwconv2d_dsp_pixel.h"
#include "tinyfit/kernel_templates/segment_order.h"
#include "tinyfit/segment.h"

/* Channels [begin, end) (at most TF_SEGMENT_DWCONV_BLOCK) of one output pixel
 * over the in-bounds taps of `win`, stored at y[begin..end) after the last
 * load. Out of line, so that the pixel loop leaves it the registers. */
TF_INNER_LOOP static void dwconv_segment_dsp_block(const dwconv_dsp_window* win, int32_t begin, int32_t end,
                                                   const tf_conv_params* p, const dwconv_dsp_call* k,
                                                   dsp_element* y) {
  const uint32_t x_offset_lanes = k->x_offset_lanes;
  const int32_t simd_begin = (begin + 3) & ~3, simd_end = end & ~3;
  dsp_element out[TF_SEGMENT_DWCONV_BLOCK]; /* channel c in out[c - begin] */
  int32_t c, ky;
  for (c = begin; c < end && c < simd_begin; ++c) {
    out[c - begin] = dsp_requantize(dwconv_dsp_channel(win, k->words, k->group_words, c, p, k->x_row_step, k->x_col_step,
                                               p->input_offset),
                            &k->requant[c], &k->clamp);
  }
  for (; c < simd_end; c += 4) {
    const uint32_t* w_row = k->words + (c >> 2) * k->group_words + win->first_tap * 2;
    const dsp_element* x_row = win->x + c;
    int32_t a0 = k->bias[c], a1 = k->bias[c + 1], a2 = k->bias[c + 2], a3 = k->bias[c + 3];
    for (ky = 0; ky < win->rows; ++ky, x_row += k->x_row_step, w_row += k->kernel_w * 2) {
      const dsp_element* x_tap = x_row;
      const uint32_t* w_tap = w_row;
      const uint32_t* const w_end = w_row + win->cols * 2;
      for (; w_tap < w_end; w_tap += 2, x_tap += k->x_col_step) DWCONV_DSP_TAP(x_tap, w_tap);
    }
    tf_store_u32(out + (c - begin), dsp_clamp4(tf_requantize(a0, &k->requant[c]), tf_requantize(a1, &k->requant[c + 1]),
                                     tf_requantize(a2, &k->requant[c + 2]), tf_requantize(a3, &k->requant[c + 3]),
                                     &k->clamp));
  }
  for (; c < end; ++c) {
    out[c - begin] = dsp_requantize(dwconv_dsp_channel(win, k->words, k->group_words, c, p, k->x_row_step, k->x_col_step,
                                               p->input_offset),
                            &k->requant[c], &k->clamp);
  }
  for (c = begin; c < end; ++c) y[c] = out[c - begin];
}
#undef DWCONV_DSP_TAP

#ifdef TF_DWCONV_SEGMENT_DSP
void TF_DWCONV_SEGMENT_DSP(const tf_view* input, const tf_view* output, const tf_conv_params* params,
                           int32_t descending) {
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * out_rows * out_cols, channels = params->out_channels;
  const int32_t blocks = (channels + TF_SEGMENT_DWCONV_BLOCK - 1) / TF_SEGMENT_DWCONV_BLOCK;
  const ptrdiff_t xs0 = input->strides[0], xs1 = input->strides[1], xs2 = input->strides[2];
  dwconv_dsp_call k;
  int32_t t, b;
  k.words = (const uint32_t*)params->weights;
  k.bias = (const int32_t*)params->bias;
  k.requant = params->requant;
  k.group_words = (ptrdiff_t)params->kernel_h * params->kernel_w * 2;
  k.x_row_step = (ptrdiff_t)params->dilation_h * xs1;
  k.x_col_step = (ptrdiff_t)params->dilation_w * xs2;
  k.kernel_w = params->kernel_w;
  k.x_offset_lanes = tf_splat_lanes(params->input_offset);
  k.clamp = dsp_make_clamp(params);
  for (t = 0; t < pixels; ++t) {
    const int32_t pixel = segment_pixel(t, pixels, descending);
    const int32_t n = pixel / (out_rows * out_cols), oy = pixel / out_cols % out_rows, ox = pixel % out_cols;
    const int32_t iy0 = oy * params->stride_h - params->pad_top, ix0 = ox * params->stride_w - params->pad_left;
    int32_t ky_begin, ky_end, kx_begin, kx_end;
    dwconv_dsp_window win;
    dsp_element* y = (dsp_element*)output->data + n * output->strides[0] + oy * output->strides[1] +
                     ox * output->strides[2];
    conv_tap_range(iy0, params->dilation_h, params->kernel_h, input->shape[1], &ky_begin, &ky_end);
    conv_tap_range(ix0, params->dilation_w, params->kernel_w, input->shape[2], &kx_begin, &kx_end);
    win.x = (const dsp_element*)input->data + n * xs0 + (iy0 + ky_begin * params->dilation_h) * xs1 +
            (ix0 + kx_begin * params->dilation_w) * xs2;
    win.first_tap = ky_begin * params->kernel_w + kx_begin;
    win.rows = ky_end - ky_begin;
    win.cols = kx_end - kx_begin;
    for (b = 0; b < blocks; ++b) {
      int32_t begin, end;
      segment_block(b, channels, TF_SEGMENT_DWCONV_BLOCK, descending, &begin, &end);
      dwconv_segment_dsp_block(&win, begin, end, params, &k, y);
    }
  }
}
#endif
