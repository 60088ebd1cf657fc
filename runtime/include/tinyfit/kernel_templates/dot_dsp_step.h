/* The dot-product step of the __dsp kernels, over conv_dsp_arithmetic.h
 * (included first): one contiguous int8 / uint8 row against two weight rows
 * at once, four inputs a step (per eight MACs: a load and two widenings of
 * the inputs, then per channel a load, two widenings and two SMLADs), the
 * inputs left over one by one. Shared by dot_dsp.h (1x1 Conv2D,
 * FullyConnected) and the segment kernels' fast paths (their last, short
 * block of channels; dot_dsp_block.h the others). */
#ifndef TINYFIT_KERNEL_TEMPLATES_DOT_DSP_STEP_H_
#define TINYFIT_KERNEL_TEMPLATES_DOT_DSP_STEP_H_

/* acc0 += x . w0, acc1 += x . w1 over `count` elements (offsets added). */
static inline void dot_dsp_1x2(const dsp_element* x, const dsp_element* w0, const dsp_element* w1, int32_t count,
                               int32_t x_offset, int32_t w_offset, int32_t acc[2]) {
  const uint32_t x_offset_lanes = tf_splat_lanes(x_offset), w_offset_lanes = tf_splat_lanes(w_offset);
  const dsp_element* const x_end = x + (count & ~3);
  int32_t a0 = acc[0], a1 = acc[1];
  for (; x < x_end; x += 4, w0 += 4, w1 += 4) {
    const uint32_t xw = tf_load_u32(x);
    const uint32_t x_even = dsp_widen_even(xw, x_offset_lanes), x_odd = dsp_widen_odd(xw, x_offset_lanes);
    const uint32_t ww0 = tf_load_u32(w0), ww1 = tf_load_u32(w1);
    a0 = tf_smlad(x_even, dsp_widen_weights_even(ww0, w_offset_lanes), a0);
    a0 = tf_smlad(x_odd, dsp_widen_weights_odd(ww0, w_offset_lanes), a0);
    a1 = tf_smlad(x_even, dsp_widen_weights_even(ww1, w_offset_lanes), a1);
    a1 = tf_smlad(x_odd, dsp_widen_weights_odd(ww1, w_offset_lanes), a1);
  }
  for (; x < x_end + (count & 3); ++x, ++w0, ++w1) {
    const int32_t xv = dsp_widen(*x, x_offset);
    a0 += xv * dsp_widen(*w0, w_offset);
    a1 += xv * dsp_widen(*w1, w_offset);
  }
  acc[0] = a0, acc[1] = a1;
}

#endif /* TINYFIT_KERNEL_TEMPLATES_DOT_DSP_STEP_H_ */
