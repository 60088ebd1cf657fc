/* The fused inverted bottleneck in segment order (tinyfit/segment.h) with
 * 16-bit lanes, over conv_dsp_arithmetic.h (included first); the including
 * file then defines TF_INVERTED_BOTTLENECK_SEGMENT_DSP. A stage whose
 * constants are the __dsp kernels' (params->requant set: expand and project
 * weights in the IR layout, the depthwise's as dwconv2d_dsp.h packs them,
 * int16 lanes with the weight offset added, [ceil(C/4)][KH][KW][4]) runs
 * with 16-bit lanes; one whose requantisation the __dsp kernels cannot take
 * (requant NULL: the direct kernels' constants) runs the portable stage of
 * inverted_bottleneck_segment.h, as the ordinary plan runs the direct
 * kernel for that node. Both are bit for bit the reference.
 *
 * Access order: exactly inverted_bottleneck_segment.h's (plan/segment_kernel.h's
 * kInvertedBottleneck record, which verify_plan replays). Input and output
 * are touched only by the expand (conv_segment_dsp.h's pixel: per mid block,
 * its window loaded, then the block stored into the ring), the residual
 * loads and the output stores, in the same order; the depthwise and the
 * projection read the workspace (ring and depthwise pixel), which no overlap
 * involves. */
#include "tinyfit/kernel_templates/conv_segment_dsp.h"
#include "tinyfit/kernel_templates/inverted_bottleneck_segment.h"

/* The depthwise of one output pixel from its in-bounds taps (taps[i] the mid
 * pixel of window position tap_index[i]) into `y`: groups of four channels
 * with SMLAxy as dwconv2d_dsp.h, the channels past the last group one by
 * one (a word load there would read past the mid pixel). */
TF_INNER_LOOP static void ib_dsp_depthwise(const dsp_element* const* taps, const int32_t* tap_index, int32_t tap_count,
                                           const tf_conv_params* p, const dsp_clamp* clamp, dsp_element* y) {
  const uint32_t* words = (const uint32_t*)p->weights;
  const int32_t* bias = (const int32_t*)p->bias;
  const int32_t channels = p->out_channels, simd_end = channels & ~3;
  const ptrdiff_t group_words = (ptrdiff_t)p->kernel_h * p->kernel_w * 2;
  const int32_t x_offset = p->input_offset;
  const uint32_t x_offset_lanes = tf_splat_lanes(x_offset);
  int32_t c, i;
  for (c = 0; c < simd_end; c += 4) {
    const uint32_t* w_group = words + (c >> 2) * group_words;
    int32_t a0 = bias[c], a1 = bias[c + 1], a2 = bias[c + 2], a3 = bias[c + 3];
    for (i = 0; i < tap_count; ++i) {
      const uint32_t xw = tf_load_u32(taps[i] + c);
      const uint32_t even = dsp_widen_even(xw, x_offset_lanes), odd = dsp_widen_odd(xw, x_offset_lanes);
      const uint32_t* w = w_group + tap_index[i] * 2;
      const uint32_t w01 = w[0], w23 = w[1];
      a0 = tf_smlabb(even, w01, a0);
      a1 = tf_smlabt(odd, w01, a1);
      a2 = tf_smlatb(even, w23, a2);
      a3 = tf_smlatt(odd, w23, a3);
    }
    dsp_store4(y + c, tf_requantize(a0, &p->requant[c]), tf_requantize(a1, &p->requant[c + 1]),
               tf_requantize(a2, &p->requant[c + 2]), tf_requantize(a3, &p->requant[c + 3]), clamp);
  }
  for (; c < channels; ++c) {
    const uint32_t* w_group = words + (c >> 2) * group_words;
    int32_t acc = bias[c];
    for (i = 0; i < tap_count; ++i) {
      const uint32_t word = w_group[tap_index[i] * 2 + ((c & 3) >> 1)];
      acc += dsp_widen(taps[i][c], x_offset) * (int32_t)(int16_t)(uint16_t)(c & 1 ? word >> 16 : word & 0xffffu);
    }
    y[c] = dsp_requantize(acc, &p->requant[c], clamp);
  }
}

/* The projection of one depthwise pixel `mid` into output pixel y, block by
 * block in traversal order: the block's sums, then its residual block of the
 * input pixel x loaded (when x is not NULL), then its stores. */
TF_INNER_LOOP static void ib_dsp_project(const dsp_element* mid, const tf_conv_params* p, const dsp_clamp* clamp,
                                         const dsp_element* x, const tf_quantized_add_params* add,
                                         int32_t descending, dsp_element* y) {
  const dsp_element* weights = (const dsp_element*)p->weights;
  const int32_t* bias = (const int32_t*)p->bias;
  const int32_t channels = p->in_channels, co = p->out_channels;
  const int32_t blocks = (co + TF_SEGMENT_CONV_BLOCK - 1) / TF_SEGMENT_CONV_BLOCK;
  int32_t b, j;
  for (b = 0; b < blocks; ++b) {
    int32_t oc_begin, oc_end, r[TF_SEGMENT_CONV_BLOCK];
    segment_block(b, co, TF_SEGMENT_CONV_BLOCK, descending, &oc_begin, &oc_end);
    if (oc_end - oc_begin == TF_SEGMENT_CONV_BLOCK) {
      int32_t acc[TF_SEGMENT_CONV_BLOCK];
      acc[0] = bias[oc_begin], acc[1] = bias[oc_begin + 1], acc[2] = bias[oc_begin + 2], acc[3] = bias[oc_begin + 3];
      dot_dsp_1x4(mid, weights + (ptrdiff_t)oc_begin * channels, channels, channels, p->input_offset,
                  p->weight_offset, acc);
      for (j = 0; j < TF_SEGMENT_CONV_BLOCK; ++j) r[j] = tf_requantize(acc[j], &p->requant[oc_begin + j]);
    }
    for (j = oc_begin; j < oc_end && oc_end - oc_begin < TF_SEGMENT_CONV_BLOCK; j += 2) {
      const int32_t pair = oc_end - j >= 2;
      const dsp_element* w0 = weights + (ptrdiff_t)j * channels;
      int32_t sums[2];
      sums[0] = bias[j];
      sums[1] = pair ? bias[j + 1] : 0;
      dot_dsp_1x2(mid, w0, pair ? w0 + channels : w0, channels, p->input_offset, p->weight_offset, sums);
      r[j - oc_begin] = tf_requantize(sums[0], &p->requant[j]);
      if (pair) r[j + 1 - oc_begin] = tf_requantize(sums[1], &p->requant[j + 1]);
    }
    if (x != NULL) {
      dsp_element residual[TF_SEGMENT_CONV_BLOCK];
      for (j = 0; j < oc_end - oc_begin; ++j) residual[j] = x[oc_begin + j];
      for (j = 0; j < oc_end - oc_begin; ++j) {
        y[oc_begin + j] = (dsp_element)tf_quantized_add_sub(residual[j], dsp_clamp_output(r[j], clamp), add, 0);
      }
    } else if (oc_end - oc_begin == TF_SEGMENT_CONV_BLOCK) {
      dsp_store4(y + oc_begin, r[0], r[1], r[2], r[3], clamp);
    } else {
      for (j = 0; j < oc_end - oc_begin; ++j) y[oc_begin + j] = dsp_clamp_output(r[j], clamp);
    }
  }
}

#ifdef TF_INVERTED_BOTTLENECK_SEGMENT_DSP
void TF_INVERTED_BOTTLENECK_SEGMENT_DSP(const tf_view* input, const tf_view* output,
                                        const tf_inverted_bottleneck_params* params, uint8_t* workspace,
                                        int32_t descending) {
  const tf_conv_params* dw = params->depthwise;
  const conv_window expand_window = conv_segment_window(params->expand);
  const conv_segment_dsp_call expand = conv_segment_dsp_prepare(input, params->expand, &expand_window, descending);
  const dsp_clamp dw_clamp = dsp_make_clamp(dw), project_clamp = dsp_make_clamp(params->project);
  const int32_t mid_rows = params->mid_rows, mid_cols = params->mid_cols, mid_channels = dw->out_channels;
  const int32_t out_rows = output->shape[1], out_cols = output->shape[2];
  const int32_t pixels = output->shape[0] * out_rows * out_cols;
  const int32_t mids = output->shape[0] * mid_rows * mid_cols;
  const int32_t ring_pixels = params->ring_pixels;
  dsp_element* ring = (dsp_element*)(void*)workspace;
  dsp_element* dw_pixel = ring + (ptrdiff_t)ring_pixels * mid_channels;
  const dsp_element* taps[TF_SEGMENT_MAX_TAPS];
  int32_t tap_index[TF_SEGMENT_MAX_TAPS];
  int32_t t, ky, kx, next = 0; /* mid pixels computed so far, in traversal order */
  for (t = 0; t < pixels; ++t) {
    const int32_t pixel = segment_pixel(t, pixels, descending);
    const int32_t n = pixel / (out_rows * out_cols), oy = pixel / out_cols % out_rows, ox = pixel % out_cols;
    const int32_t iy0 = oy * dw->stride_h - dw->pad_top, ix0 = ox * dw->stride_w - dw->pad_left;
    int32_t ky_begin, ky_end, kx_begin, kx_end, needed, tap_count = 0;
    conv_tap_range(iy0, dw->dilation_h, dw->kernel_h, mid_rows, &ky_begin, &ky_end);
    conv_tap_range(ix0, dw->dilation_w, dw->kernel_w, mid_cols, &kx_begin, &kx_end);
    /* The mid pixel this output needs last in traversal order. */
    needed = descending ? (n * mid_rows + iy0 + ky_begin * dw->dilation_h) * mid_cols + ix0 + kx_begin * dw->dilation_w
                        : (n * mid_rows + iy0 + (ky_end - 1) * dw->dilation_h) * mid_cols + ix0 +
                              (kx_end - 1) * dw->dilation_w;
    for (; next <= segment_pixel(needed, mids, descending); ++next) {
      const int32_t mid = segment_pixel(next, mids, descending);
      const int32_t mn = mid / (mid_rows * mid_cols), mr = mid / mid_cols % mid_rows, mc = mid % mid_cols;
      const int32_t iy = mr * expand_window.stride_h - expand_window.pad_top;
      const int32_t ix = mc * expand_window.stride_w - expand_window.pad_left;
      dsp_element* slot = ring + (ptrdiff_t)(mid % ring_pixels) * mid_channels;
      if (params->expand->requant != NULL) {
        conv_segment_dsp_at(input, mn, iy, ix, &expand_window, &expand, slot);
      } else {
        conv_segment_pixel(input, mn, iy, ix, params->expand, &expand_window, descending, slot);
      }
    }
    for (ky = ky_begin; ky < ky_end; ++ky) {
      const int32_t row_start = (n * mid_rows + iy0 + ky * dw->dilation_h) * mid_cols + ix0;
      for (kx = kx_begin; kx < kx_end; ++kx) {
        taps[tap_count] = ring + (ptrdiff_t)((row_start + kx * dw->dilation_w) % ring_pixels) * mid_channels;
        tap_index[tap_count++] = ky * dw->kernel_w + kx;
      }
    }
    if (dw->requant != NULL) {
      ib_dsp_depthwise(taps, tap_index, tap_count, dw, &dw_clamp, dw_pixel);
    } else {
      dwconv_segment_pixel(taps, tap_index, tap_count, dw, descending, dw_pixel);
    }
    {
      const ptrdiff_t at_out = n * output->strides[0] + oy * output->strides[1] + ox * output->strides[2];
      const ptrdiff_t at_in = n * input->strides[0] + oy * input->strides[1] + ox * input->strides[2];
      const dsp_element* x = params->add ? (const dsp_element*)input->data + at_in : NULL;
      dsp_element* y = (dsp_element*)output->data + at_out;
      if (params->project->requant != NULL) {
        ib_dsp_project(dw_pixel, params->project, &project_clamp, x, params->add, descending, y);
      } else {
        ib_project_pixel(dw_pixel, params->project, x, params->add, descending, y);
      }
    }
  }
}
#endif
