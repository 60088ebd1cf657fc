/* The segment kernels' dot-product step (conv_segment_dsp.h,
 * inverted_bottleneck_segment_dsp.h), over conv_dsp_arithmetic.h (included
 * first): one contiguous int8 / uint8 row against a block of four weight
 * rows, four inputs a step, the inputs left over one by one. */
#ifndef TINYFIT_KERNEL_TEMPLATES_DOT_DSP_BLOCK_H_
#define TINYFIT_KERNEL_TEMPLATES_DOT_DSP_BLOCK_H_

/* acc[j] += x . (w + j * w_stride) for j = 0..3 over `count` elements
 * (offsets added): the inputs loaded and widened once for four channels (per
 * sixteen MACs 23 instructions and the loop's), the weight rows reached from
 * one pointer. Out of line, so that its caller's loops leave it the
 * registers. */
TF_INNER_LOOP static void dot_dsp_1x4(const dsp_element* x, const dsp_element* w, ptrdiff_t w_stride, int32_t count,
                                      int32_t x_offset, int32_t w_offset, int32_t acc[4]) {
  const uint32_t x_offset_lanes = tf_splat_lanes(x_offset), w_offset_lanes = tf_splat_lanes(w_offset);
  const dsp_element* const x_end = x + (count & ~3);
  const ptrdiff_t s1 = w_stride, s2 = 2 * w_stride, s3 = 3 * w_stride;
  int32_t a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
  for (; x < x_end; x += 4, w += 4) {
    const uint32_t xw = tf_load_u32(x);
    const uint32_t x_even = dsp_widen_even(xw, x_offset_lanes), x_odd = dsp_widen_odd(xw, x_offset_lanes);
    uint32_t ww = tf_load_u32(w);
    a0 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a0);
    a0 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a0);
    ww = tf_load_u32(w + s1);
    a1 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a1);
    a1 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a1);
    ww = tf_load_u32(w + s2);
    a2 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a2);
    a2 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a2);
    ww = tf_load_u32(w + s3);
    a3 = tf_smlad(x_even, dsp_widen_weights_even(ww, w_offset_lanes), a3);
    a3 = tf_smlad(x_odd, dsp_widen_weights_odd(ww, w_offset_lanes), a3);
  }
  for (; x < x_end + (count & 3); ++x, ++w) {
    const int32_t xv = dsp_widen(*x, x_offset);
    a0 += xv * dsp_widen(w[0], w_offset);
    a1 += xv * dsp_widen(w[s1], w_offset);
    a2 += xv * dsp_widen(w[s2], w_offset);
    a3 += xv * dsp_widen(w[s3], w_offset);
  }
  acc[0] = a0, acc[1] = a1, acc[2] = a2, acc[3] = a3;
}

#endif /* TINYFIT_KERNEL_TEMPLATES_DOT_DSP_BLOCK_H_ */
